/* string.c - memory and string functions for LANai programs.
 *
 * clang calls memcpy, memset and memmove even in freestanding code (struct
 * copies, zeroing, loops it recognises), so every program needs them;
 * memcmp, strlen and strcmp are cheap extras with the standard C semantics.
 * This file must be compiled with -fno-builtin, or clang would turn the
 * byte loops below back into calls to memcpy/memset (i.e. into themselves).
 *
 * memcpy/memmove/memset move whole words when the addresses allow it (the
 * LANai ignores the low address bits of a word access, so unaligned words
 * are never used) and bytes otherwise. */
#include "rt.h"

void *memcpy(void *restrict dst, const void *restrict src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);
int strcmp(const char *a, const char *b);

/* A word that may alias anything (the copies below reinterpret bytes). */
typedef su_int __attribute__((may_alias)) word;

#define WMASK ((size_t)(sizeof(word) - 1))

/* Forward copy, shared by memcpy and the non-overlapping memmove cases. */
RT_INLINE void copy_fwd(unsigned char *d, const unsigned char *s, size_t n)
{
	if ((((size_t)d ^ (size_t)s) & WMASK) == 0) {
		while (n != 0 && ((size_t)d & WMASK) != 0) {
			*d++ = *s++;
			n--;
		}
		while (n >= sizeof(word)) {
			*(word *)d = *(const word *)s;
			d += sizeof(word);
			s += sizeof(word);
			n -= sizeof(word);
		}
	}
	while (n != 0) {
		*d++ = *s++;
		n--;
	}
}

void *memcpy(void *restrict dst, const void *restrict src, size_t n)
{
	copy_fwd(dst, src, n);
	return dst;
}

void *memmove(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;
	if (d == s || n == 0)
		return dst;
	if ((size_t)d - (size_t)s >= n) { /* d before s, or d at or past s+n */
		copy_fwd(d, s, n);
		return dst;
	}
	/* d overlaps the tail of s: copy backwards */
	d += n;
	s += n;
	if ((((size_t)d ^ (size_t)s) & WMASK) == 0) {
		while (n != 0 && ((size_t)d & WMASK) != 0) {
			*--d = *--s;
			n--;
		}
		while (n >= sizeof(word)) {
			d -= sizeof(word);
			s -= sizeof(word);
			*(word *)d = *(const word *)s;
			n -= sizeof(word);
		}
	}
	while (n != 0) {
		*--d = *--s;
		n--;
	}
	return dst;
}

void *memset(void *dst, int c, size_t n)
{
	unsigned char *d = dst;
	unsigned char b = (unsigned char)c;
	while (n != 0 && ((size_t)d & WMASK) != 0) {
		*d++ = b;
		n--;
	}
	if (n >= sizeof(word)) {
		su_int w = b;
		w |= w << 8;
		w |= w << 16;
		do {
			*(word *)d = w;
			d += sizeof(word);
			n -= sizeof(word);
		} while (n >= sizeof(word));
	}
	while (n != 0) {
		*d++ = b;
		n--;
	}
	return dst;
}

int memcmp(const void *a, const void *b, size_t n)
{
	const unsigned char *p = a, *q = b;
	for (; n != 0; n--, p++, q++) {
		if (*p != *q)
			return (int)*p - (int)*q;
	}
	return 0;
}

size_t strlen(const char *s)
{
	const char *p = s;
	while (*p != 0)
		p++;
	return (size_t)(p - s);
}

int strcmp(const char *a, const char *b)
{
	const unsigned char *p = (const unsigned char *)a, *q = (const unsigned char *)b;
	while (*p != 0 && *p == *q) {
		p++;
		q++;
	}
	return (int)*p - (int)*q;
}
