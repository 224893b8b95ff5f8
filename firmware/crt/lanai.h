/* lanai.h - console output, cycle counter and exit for C programs running on
 * the lanaiemu LANai emulator (firmware/crt; docs/runtime.md).
 *
 * Everything here talks to the simulation-control device, an emulator-only
 * peripheral at 0xFFFFF000 (outside the real LANai 9.2 memory map), whose
 * registers lanai9.h defines (LANAI9_SIM_EXIT, _PUTC, _CYCLES_LO, _CYCLES_HI;
 * lanai9.h also has the board's own registers).
 *
 * The functions are static inline and need nothing but crt0.s; all of them
 * compile to r0-relative loads and stores (e.g. `st %r6, -4092[%r0]`). */
#ifndef LANAI_H
#define LANAI_H

#include "lanai9.h"

/* The names this header had before lanai9.h, kept for the programs that use them. */
#define LANAI_SIMCTL_BASE ((unsigned int)&LANAI9_SIM_EXIT)
#define LANAI_SIMCTL_REG(off) (*(volatile unsigned int *)(LANAI_SIMCTL_BASE + (off)))
#define LANAI_SIMCTL_EXIT LANAI9_SIM_EXIT
#define LANAI_SIMCTL_PUTC LANAI9_SIM_PUTC
#define LANAI_SIMCTL_CYCLES_LO LANAI9_SIM_CYCLES_LO
#define LANAI_SIMCTL_CYCLES_HI LANAI9_SIM_CYCLES_HI

/* Write one character (the low byte of c) to the console. */
static inline void lanai_putchar(int c) { LANAI_SIMCTL_PUTC = (unsigned char)c; }

/* Write a NUL-terminated string, without a newline. */
static inline void lanai_print(const char *s)
{
	while (*s != 0)
		lanai_putchar(*s++);
}

/* Write a string and a newline, like puts. */
static inline void lanai_puts(const char *s)
{
	lanai_print(s);
	lanai_putchar('\n');
}

/* Write v as 8 lower-case hex digits (no prefix). */
static inline void lanai_print_hex(unsigned int v)
{
	for (int sh = 28; sh >= 0; sh -= 4)
		lanai_putchar("0123456789abcdef"[(v >> sh) & 0xF]);
}

/* Write v in decimal (uses the runtime's __udivsi3/__umodsi3). */
static inline void lanai_print_udec(unsigned int v)
{
	char buf[10];
	int n = 0;
	do {
		buf[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v != 0);
	while (n > 0)
		lanai_putchar(buf[--n]);
}

/* The 64-bit cycle counter: LO is read first, which latches HI, so the
 * two halves belong to the same instant. */
static inline unsigned long long lanai_cycles(void)
{
	unsigned int lo = LANAI_SIMCTL_CYCLES_LO;
	unsigned int hi = LANAI_SIMCTL_CYCLES_HI;
	return (unsigned long long)hi << 32 | lo;
}

/* Stop the simulation with the given exit code (as returning it from main
 * does). Spins if the simulation-control device is absent. */
static inline __attribute__((noreturn)) void lanai_exit(int code)
{
	LANAI_SIMCTL_EXIT = (unsigned int)code;
	for (;;)
		;
}

#endif /* LANAI_H */
