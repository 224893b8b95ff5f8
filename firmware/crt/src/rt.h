/* rt.h - types shared by the LANai runtime helper sources (firmware/crt/src).
 *
 * The helpers are freestanding C: no libc headers, fixed-size types spelled
 * with the compiler's own type macros, so the same sources compile for the
 * LANai (clang-14 --target=lanai, ILP32) and for the host test driver
 * (firmware/crt/hosttest, LP64), where int is 32 bits and long long 64 bits
 * on both. */
#ifndef LANAI_RT_H
#define LANAI_RT_H

typedef int si_int;                /* 32-bit signed (libgcc "SImode") */
typedef unsigned int su_int;       /* 32-bit unsigned */
typedef long long di_int;          /* 64-bit signed ("DImode") */
typedef unsigned long long du_int; /* 64-bit unsigned */
typedef __SIZE_TYPE__ size_t;

_Static_assert(sizeof(si_int) == 4, "int must be 32 bits");
_Static_assert(sizeof(di_int) == 8, "long long must be 64 bits");

#define RT_INLINE static inline __attribute__((always_inline))

/* Halves of a 64-bit value, without relying on memory layout. */
RT_INLINE su_int rt_hi(du_int v) { return (su_int)(v >> 32); }
RT_INLINE su_int rt_lo(du_int v) { return (su_int)v; }
RT_INLINE du_int rt_make(su_int hi, su_int lo) { return (du_int)hi << 32 | lo; }

#endif
