/* int32.c - 32-bit multiply and divide helpers called by clang's LANai code.
 *
 * The LANai has no multiply or divide instructions: clang lowers a
 * non-constant i32 multiply to __mulsi3 and every i32 division or remainder
 * to __divsi3/__udivsi3/__modsi3/__umodsi3 (standard libgcc names, arguments
 * in r6/r7, result in rv). Semantics are libgcc's: division truncates toward
 * zero, the remainder has the sign of the dividend, INT_MIN / -1 wraps to
 * INT_MIN (remainder 0). Division by zero is defined here (C leaves it
 * undefined): the quotient is 0 and the remainder is the dividend.
 *
 * The code must not use '*', '/' or '%' on 32-bit operands (that would call
 * the helper being defined); only shifts, adds and compares, plus
 * __builtin_clz, which the LANai does inline with `leadz`. */
#include "rt.h"

si_int __mulsi3(si_int a, si_int b);
su_int __udivsi3(su_int n, su_int d);
su_int __umodsi3(su_int n, su_int d);
si_int __divsi3(si_int a, si_int b);
si_int __modsi3(si_int a, si_int b);

/* Shift-and-add multiply; the loop runs once per significant bit of the
 * smaller operand. */
si_int __mulsi3(si_int a, si_int b)
{
	su_int x = (su_int)a, y = (su_int)b, r = 0;
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
	return (si_int)r;
}

/* Restoring division: align the divisor's top bit with the dividend's, then
 * one compare-subtract per quotient bit. Returns the quotient and stores the
 * remainder in *rem; d == 0 gives quotient 0, remainder n. */
RT_INLINE su_int udivmod32(su_int n, su_int d, su_int *rem)
{
	if (d == 0 || n < d) {
		*rem = n;
		return 0;
	}
	/* n >= d > 0, so both clz arguments are non-zero */
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

RT_INLINE su_int uabs32(si_int v) { return v < 0 ? 0u - (su_int)v : (su_int)v; }

su_int __udivsi3(su_int n, su_int d)
{
	su_int r;
	return udivmod32(n, d, &r);
}

su_int __umodsi3(su_int n, su_int d)
{
	su_int r;
	udivmod32(n, d, &r);
	return r;
}

si_int __divsi3(si_int a, si_int b)
{
	su_int r, q = udivmod32(uabs32(a), uabs32(b), &r);
	return (si_int)((a ^ b) < 0 ? 0u - q : q);
}

si_int __modsi3(si_int a, si_int b)
{
	su_int r;
	udivmod32(uabs32(a), uabs32(b), &r);
	return (si_int)(a < 0 ? 0u - r : r);
}
