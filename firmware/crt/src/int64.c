/* int64.c - 64-bit (long long) helpers called by clang's LANai code.
 *
 * A 64-bit value travels as two words, high word first (argument 1 in r6:r7,
 * argument 2 in r18:r19, a 32-bit count in r18; results in rv:r9). clang
 * calls __muldi3, __divdi3, __udivdi3, __moddi3, __umoddi3 and __ashrdi3
 * (64-bit shl/lshr, negation and compares are inline); __ashldi3,
 * __lshrdi3, __negdi2, __cmpdi2 and __ucmpdi2 complete libgcc's set for
 * hand-written callers. Semantics are libgcc's: truncating division,
 * remainder with the dividend's sign, LLONG_MIN / -1 wraps (remainder 0),
 * and division by zero gives quotient 0 and remainder = dividend. Shift
 * counts are taken modulo 64 (libgcc leaves counts >= 64 undefined).
 * __cmpdi2/__ucmpdi2 return 0, 1, 2 for a < b, a == b, a > b.
 *
 * The code must not use 64-bit '*', '/', '%' or a signed 64-bit '>>' (each
 * would call a helper, possibly the one being defined): 64-bit add,
 * subtract, compare, logical shifts and 32-bit operations only. */
#include "rt.h"

di_int __muldi3(di_int a, di_int b);
du_int __udivdi3(du_int n, du_int d);
du_int __umoddi3(du_int n, du_int d);
di_int __divdi3(di_int a, di_int b);
di_int __moddi3(di_int a, di_int b);
di_int __ashldi3(di_int a, si_int b);
di_int __lshrdi3(di_int a, si_int b);
di_int __ashrdi3(di_int a, si_int b);
di_int __negdi2(di_int a);
si_int __cmpdi2(di_int a, di_int b);
si_int __ucmpdi2(du_int a, du_int b);

/* 32 x 32 -> 32 bits (low word of the product). */
RT_INLINE su_int mul32(su_int x, su_int y)
{
	su_int r = 0;
	if (x < y) {
		su_int t = x;
		x = y;
		y = t;
	}
	while (y != 0) {
		if (y & 1)
			r += x;
		x <<= 1;
		y >>= 1;
	}
	return r;
}

/* 32 x 32 -> 64 bits. */
RT_INLINE du_int mul32x32(su_int x, su_int y)
{
	du_int r = 0, xx;
	if (x < y) {
		su_int t = x;
		x = y;
		y = t;
	}
	xx = x;
	while (y != 0) {
		if (y & 1)
			r += xx;
		xx <<= 1;
		y >>= 1;
	}
	return r;
}

/* (ah:al)(bh:bl) mod 2^64 = al*bl + ((al*bh + ah*bl) << 32). */
di_int __muldi3(di_int a, di_int b)
{
	su_int al = rt_lo((du_int)a), ah = rt_hi((du_int)a);
	su_int bl = rt_lo((du_int)b), bh = rt_hi((du_int)b);
	du_int r = mul32x32(al, bl);
	su_int cross = mul32(al, bh) + mul32(ah, bl);
	return (di_int)(r + ((du_int)cross << 32));
}

RT_INLINE int clz64(du_int v) /* v != 0 */
{
	su_int hi = rt_hi(v);
	return hi != 0 ? __builtin_clz(hi) : 32 + __builtin_clz(rt_lo(v));
}

/* 32-bit restoring division (as in int32.c, duplicated so that each object
 * is self-contained). */
RT_INLINE su_int udivmod32(su_int n, su_int d, su_int *rem)
{
	if (d == 0 || n < d) {
		*rem = n;
		return 0;
	}
	int sh = __builtin_clz(d) - __builtin_clz(n);
	su_int q = 0;
	d <<= sh;
	for (;;) {
		q <<= 1;
		if (n >= d) {
			n -= d;
			q |= 1;
		}
		if (sh-- == 0)
			break;
		d >>= 1;
	}
	*rem = n;
	return q;
}

/* 64-bit restoring division; d == 0 gives quotient 0, remainder n. Operands
 * that both fit in 32 bits take the 32-bit path. */
static du_int udivmod64(du_int n, du_int d, du_int *rem)
{
	if (d == 0 || n < d) {
		*rem = n;
		return 0;
	}
	if (rt_hi(n) == 0) { /* then d < 2^32 too */
		su_int r, q = udivmod32(rt_lo(n), rt_lo(d), &r);
		*rem = r;
		return q;
	}
	int sh = clz64(d) - clz64(n);
	du_int q = 0;
	d <<= sh;
	for (;;) {
		q <<= 1;
		if (n >= d) {
			n -= d;
			q |= 1;
		}
		if (sh-- == 0)
			break;
		d >>= 1;
	}
	*rem = n;
	return q;
}

RT_INLINE du_int uabs64(di_int v) { return v < 0 ? 0u - (du_int)v : (du_int)v; }

du_int __udivdi3(du_int n, du_int d)
{
	du_int r;
	return udivmod64(n, d, &r);
}

du_int __umoddi3(du_int n, du_int d)
{
	du_int r;
	udivmod64(n, d, &r);
	return r;
}

di_int __divdi3(di_int a, di_int b)
{
	du_int r, q = udivmod64(uabs64(a), uabs64(b), &r);
	return (di_int)((a < 0) != (b < 0) ? 0u - q : q);
}

di_int __moddi3(di_int a, di_int b)
{
	du_int r;
	udivmod64(uabs64(a), uabs64(b), &r);
	return (di_int)(a < 0 ? 0u - r : r);
}

/* Shifts work on the two 32-bit halves; the count is taken modulo 64. */
di_int __ashldi3(di_int a, si_int b)
{
	su_int hi = rt_hi((du_int)a), lo = rt_lo((du_int)a);
	unsigned n = (unsigned)b & 63;
	if (n >= 32) {
		hi = lo << (n - 32);
		lo = 0;
	} else if (n != 0) {
		hi = hi << n | lo >> (32 - n);
		lo <<= n;
	}
	return (di_int)rt_make(hi, lo);
}

di_int __lshrdi3(di_int a, si_int b)
{
	su_int hi = rt_hi((du_int)a), lo = rt_lo((du_int)a);
	unsigned n = (unsigned)b & 63;
	if (n >= 32) {
		lo = hi >> (n - 32);
		hi = 0;
	} else if (n != 0) {
		lo = lo >> n | hi << (32 - n);
		hi >>= n;
	}
	return (di_int)rt_make(hi, lo);
}

di_int __ashrdi3(di_int a, si_int b)
{
	su_int hi = rt_hi((du_int)a), lo = rt_lo((du_int)a);
	unsigned n = (unsigned)b & 63;
	/* 32-bit arithmetic shifts of a signed int are inline (`sha`) */
	if (n >= 32) {
		lo = (su_int)((si_int)hi >> (n - 32));
		hi = (su_int)((si_int)hi >> 31);
	} else if (n != 0) {
		lo = lo >> n | hi << (32 - n);
		hi = (su_int)((si_int)hi >> n);
	}
	return (di_int)rt_make(hi, lo);
}

di_int __negdi2(di_int a) { return (di_int)(0u - (du_int)a); }

si_int __cmpdi2(di_int a, di_int b) { return a < b ? 0 : a > b ? 2 : 1; }

si_int __ucmpdi2(du_int a, du_int b) { return a < b ? 0 : a > b ? 2 : 1; }
