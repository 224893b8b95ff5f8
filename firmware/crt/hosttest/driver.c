/* driver.c - host-side check of the runtime helpers' C logic.
 *
 * Built by firmware/crt's Go test together with host_*.c (the helper
 * sources compiled for the host with crt_-prefixed names) and compared
 * against the host's native 32/64-bit operators and reference byte loops:
 * edge values (0, ±1, INT_MIN, INT_MAX, powers of two and neighbours),
 * pseudo-random values of every bit length, all shift counts 0..63, and
 * every small offset/length combination for the memory functions.
 * Prints "crt hosttest: N checks, F failures" and exits 1 if F > 0.
 *
 * Expected values where C leaves the result undefined follow
 * docs/runtime.md: x / 0 = 0 and x % 0 = x; MIN / -1 = MIN and
 * MIN % -1 = 0. */
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int crt_mulsi3(int, int);
unsigned crt_udivsi3(unsigned, unsigned);
unsigned crt_umodsi3(unsigned, unsigned);
int crt_divsi3(int, int);
int crt_modsi3(int, int);
long long crt_muldi3(long long, long long);
unsigned long long crt_udivdi3(unsigned long long, unsigned long long);
unsigned long long crt_umoddi3(unsigned long long, unsigned long long);
long long crt_divdi3(long long, long long);
long long crt_moddi3(long long, long long);
long long crt_ashldi3(long long, int);
long long crt_lshrdi3(long long, int);
long long crt_ashrdi3(long long, int);
long long crt_negdi2(long long);
int crt_cmpdi2(long long, long long);
int crt_ucmpdi2(unsigned long long, unsigned long long);
void *crt_memcpy(void *, const void *, size_t);
void *crt_memmove(void *, const void *, size_t);
void *crt_memset(void *, int, size_t);
int crt_memcmp(const void *, const void *, size_t);
size_t crt_strlen(const char *);
int crt_strcmp(const char *, const char *);

static unsigned long checks, failures;

static void fail(const char *what, unsigned long long a, unsigned long long b, unsigned long long got,
		 unsigned long long want)
{
	if (++failures <= 30)
		printf("FAIL %s(0x%llx, 0x%llx) = 0x%llx, want 0x%llx\n", what, a, b, got, want);
}

#define CHECK(what, a, b, got, want)                                                              \
	do {                                                                                      \
		unsigned long long g_ = (unsigned long long)(got), w_ = (unsigned long long)(want); \
		checks++;                                                                         \
		if (g_ != w_)                                                                     \
			fail(what, (unsigned long long)(a), (unsigned long long)(b), g_, w_);       \
	} while (0)

static uint64_t rng = 0x9E3779B97F4A7C15ull;

static uint64_t next(void) /* xorshift64* */
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545F4914F6CDD1Dull;
}

/* A random value with a random number of significant bits (so divisions
 * see every quotient length), sometimes negated. */
static uint64_t rnd64(void)
{
	unsigned bits = (unsigned)(next() % 64) + 1;
	uint64_t v = next() >> (64 - bits);
	return (next() & 1) ? 0 - v : v;
}

#define NV32 256
#define NV64 256
static uint32_t v32[NV32];
static uint64_t v64[NV64];

static void fill(void)
{
	static const uint32_t e32[] = {
		0, 1, 2, 3, 7, 10, 0xFF, 0x100, 0x7FFF, 0x8000, 0xFFFF, 0x10000, 0x10001,
		1000000007u, 0x55555555u, 0xAAAAAAAAu, 0x7FFFFFFEu, 0x7FFFFFFFu, 0x80000000u,
		0x80000001u, 0xFFFFFFFEu, 0xFFFFFFFFu, 0xFFFFFFF9u, 0xFFFF0000u, 0xC0000000u,
	};
	static const uint64_t e64[] = {
		0, 1, 2, 3, 7, 10, 0xFFFF, 0x7FFFFFFFull, 0x80000000ull, 0xFFFFFFFFull,
		0x100000000ull, 0x100000001ull, 0x1FFFFFFFFull, 1000000007ull,
		1000000007ull * 1000000009ull, 0x5555555555555555ull, 0xAAAAAAAAAAAAAAAAull,
		0x7FFFFFFFFFFFFFFEull, 0x7FFFFFFFFFFFFFFFull, 0x8000000000000000ull,
		0x8000000000000001ull, 0xFFFFFFFFFFFFFFFEull, 0xFFFFFFFFFFFFFFFFull,
		0xFFFFFFFF00000000ull, 0xFFFFFFFF80000000ull, 0xFFFFFFFF7FFFFFFFull, 0xFFFFFFF9ull << 32,
	};
	size_t n = 0;
	for (size_t i = 0; i < sizeof e32 / sizeof e32[0]; i++)
		v32[n++] = e32[i];
	for (size_t i = 0; i < sizeof e32 / sizeof e32[0] && n < NV32; i++)
		if (e32[i] != 0 && e32[i] != 0x80000000u)
			v32[n++] = 0 - e32[i];
	while (n < NV32)
		v32[n++] = (uint32_t)rnd64();
	n = 0;
	for (size_t i = 0; i < sizeof e64 / sizeof e64[0]; i++)
		v64[n++] = e64[i];
	for (size_t i = 0; i < sizeof e64 / sizeof e64[0] && n < NV64; i++)
		if (e64[i] != 0 && e64[i] != 0x8000000000000000ull)
			v64[n++] = 0 - e64[i];
	while (n < NV64)
		v64[n++] = rnd64();
}

static void test32(uint32_t ua, uint32_t ub)
{
	int32_t a = (int32_t)ua, b = (int32_t)ub;
	CHECK("__mulsi3", ua, ub, (uint32_t)crt_mulsi3(a, b), ua * ub);
	CHECK("__udivsi3", ua, ub, crt_udivsi3(ua, ub), ub ? ua / ub : 0);
	CHECK("__umodsi3", ua, ub, crt_umodsi3(ua, ub), ub ? ua % ub : ua);
	int32_t q, r;
	if (b == 0) {
		q = 0;
		r = a;
	} else if (a == INT32_MIN && b == -1) {
		q = INT32_MIN;
		r = 0;
	} else {
		q = a / b;
		r = a % b;
	}
	CHECK("__divsi3", ua, ub, (uint32_t)crt_divsi3(a, b), (uint32_t)q);
	CHECK("__modsi3", ua, ub, (uint32_t)crt_modsi3(a, b), (uint32_t)r);
}

static void test64(uint64_t ua, uint64_t ub)
{
	int64_t a = (int64_t)ua, b = (int64_t)ub;
	CHECK("__muldi3", ua, ub, (uint64_t)crt_muldi3(a, b), ua * ub);
	CHECK("__udivdi3", ua, ub, crt_udivdi3(ua, ub), ub ? ua / ub : 0);
	CHECK("__umoddi3", ua, ub, crt_umoddi3(ua, ub), ub ? ua % ub : ua);
	int64_t q, r;
	if (b == 0) {
		q = 0;
		r = a;
	} else if (a == INT64_MIN && b == -1) {
		q = INT64_MIN;
		r = 0;
	} else {
		q = a / b;
		r = a % b;
	}
	CHECK("__divdi3", ua, ub, (uint64_t)crt_divdi3(a, b), (uint64_t)q);
	CHECK("__moddi3", ua, ub, (uint64_t)crt_moddi3(a, b), (uint64_t)r);
	CHECK("__cmpdi2", ua, ub, crt_cmpdi2(a, b), a < b ? 0 : a > b ? 2 : 1);
	CHECK("__ucmpdi2", ua, ub, crt_ucmpdi2(ua, ub), ua < ub ? 0 : ua > ub ? 2 : 1);
}

static void test64unary(uint64_t ua)
{
	int64_t a = (int64_t)ua;
	CHECK("__negdi2", ua, 0, (uint64_t)crt_negdi2(a), 0 - ua);
	for (int n = 0; n < 64; n++) {
		CHECK("__ashldi3", ua, n, (uint64_t)crt_ashldi3(a, n), ua << n);
		CHECK("__lshrdi3", ua, n, (uint64_t)crt_lshrdi3(a, n), ua >> n);
		/* the host's >> of a negative value is arithmetic (gcc and clang
		 * document it); also computed without relying on that: */
		uint64_t sra = (ua >> n) | ((a < 0 && n) ? ~(~0ull >> n) : 0);
		CHECK("__ashrdi3", ua, n, (uint64_t)crt_ashrdi3(a, n), sra);
		CHECK("__ashrdi3 (native)", ua, n, (uint64_t)crt_ashrdi3(a, n), (uint64_t)(a >> n));
	}
}

/* memory functions against reference byte loops, every (offset, offset,
 * length) combination in a small window, on a pattern of distinct bytes */
#define BUF 96
static unsigned char src[BUF], dst[BUF], ref[BUF];

static void pattern(unsigned char *p, unsigned seed)
{
	for (int i = 0; i < BUF; i++)
		p[i] = (unsigned char)(seed + 37 * i + (i >> 3));
}

static int same(const unsigned char *a, const unsigned char *b)
{
	for (int i = 0; i < BUF; i++)
		if (a[i] != b[i])
			return 0;
	return 1;
}

static void testmem(void)
{
	for (int so = 0; so < 8; so++)
		for (int d0 = 0; d0 < 8; d0++)
			for (int n = 0; n <= 40; n++) {
				/* memcpy */
				pattern(src, 1);
				pattern(dst, 2);
				pattern(ref, 2);
				for (int i = 0; i < n; i++)
					ref[d0 + i] = src[so + i];
				void *rv = crt_memcpy(dst + d0, src + so, (size_t)n);
				CHECK("memcpy ret", so, d0 * 100 + n, rv == dst + d0, 1);
				CHECK("memcpy", so, d0 * 100 + n, same(dst, ref), 1);
				/* memset */
				pattern(dst, 3);
				pattern(ref, 3);
				int c = 0x1A5 + n; /* only the low byte counts */
				for (int i = 0; i < n; i++)
					ref[d0 + i] = (unsigned char)c;
				rv = crt_memset(dst + d0, c, (size_t)n);
				CHECK("memset ret", d0, n, rv == dst + d0, 1);
				CHECK("memset", d0, n, same(dst, ref), 1);
				/* memcmp: equal, then one differing byte at each place */
				pattern(src, 4);
				pattern(dst, 4);
				CHECK("memcmp eq", so, d0 * 100 + n, crt_memcmp(src + so, dst + so, (size_t)n), 0);
				if (n > 0) {
					int k = (so + d0) % n;
					dst[so + k] = (unsigned char)(src[so + k] + 1 + d0 * 31);
					int want = src[so + k] < dst[so + k] ? -1 : 1;
					int got = crt_memcmp(src + so, dst + so, (size_t)n);
					CHECK("memcmp sign", so, d0 * 100 + n, (got > 0) - (got < 0), want);
				}
			}
	/* memmove: source and destination in one buffer, every overlap */
	for (int s0 = 0; s0 < 24; s0++)
		for (int d0 = 0; d0 < 24; d0++)
			for (int n = 0; n <= 40; n++) {
				unsigned char tmp[BUF];
				pattern(dst, 5);
				pattern(ref, 5);
				for (int i = 0; i < n; i++)
					tmp[i] = ref[s0 + i];
				for (int i = 0; i < n; i++)
					ref[d0 + i] = tmp[i];
				void *rv = crt_memmove(dst + d0, dst + s0, (size_t)n);
				CHECK("memmove ret", s0, d0 * 100 + n, rv == dst + d0, 1);
				CHECK("memmove", s0, d0 * 100 + n, same(dst, ref), 1);
			}
}

static void teststr(void)
{
	static const char *s[] = {"", "a", "b", "ab", "abc", "abd", "abcd", "hello, world", "\xff", "\x01", "a\xff"};
	for (size_t i = 0; i < sizeof s / sizeof s[0]; i++) {
		size_t len = 0;
		while (s[i][len])
			len++;
		CHECK("strlen", i, 0, crt_strlen(s[i]), len);
		for (size_t j = 0; j < sizeof s / sizeof s[0]; j++) {
			/* reference: compare as unsigned char */
			const unsigned char *p = (const unsigned char *)s[i], *q = (const unsigned char *)s[j];
			while (*p && *p == *q) {
				p++;
				q++;
			}
			int want = (*p > *q) - (*p < *q);
			int got = crt_strcmp(s[i], s[j]);
			CHECK("strcmp sign", i, j, (got > 0) - (got < 0), want);
		}
	}
}

int main(void)
{
	fill();
	for (int i = 0; i < NV32; i++)
		for (int j = 0; j < NV32; j++)
			test32(v32[i], v32[j]);
	for (int i = 0; i < 200000; i++)
		test32((uint32_t)rnd64(), (uint32_t)rnd64());
	for (int i = 0; i < NV64; i++) {
		test64unary(v64[i]);
		for (int j = 0; j < NV64; j++)
			test64(v64[i], v64[j]);
	}
	for (int i = 0; i < 200000; i++)
		test64(rnd64(), rnd64());
	testmem();
	teststr();
	printf("crt hosttest: %lu checks, %lu failures\n", checks, failures);
	return failures ? 1 : 0;
}
