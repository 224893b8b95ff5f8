/* it0.c - lanai9.h at work, run on the emulated board by firmware/crt's
 * TestLanai9C: arm interval timer IT0 with the RTC zeroed in the same
 * tick, poll ISR until TIME0_INT, read the RTC, clear the bit (write 1)
 * and check that it cleared. Prints the cycles it waited; exits with the
 * RTC ticks the timer took (TICKS), or 0xdead if the bit stayed set.
 *
 * it0.s beside it is clang's output, kept so the test runs without clang:
 *   clang-14 --target=lanai -O2 -ffreestanding -I.. -S it0.c -o it0.s
 * (go test ./firmware/crt -run Lanai9C -update remakes it). */
#include "lanai.h" /* console output and exit; it includes lanai9.h */

#define TICKS 25 /* 12.5 us at 2 MHz */

int main(void)
{
	LANAI9_RTC = 0;
	LANAI9_IT0 = TICKS;
	unsigned int start = LANAI9_SIM_CYCLES_LO;
	while ((LANAI9_ISR & LANAI9_ISR_TIME0_INT) == 0)
		;
	unsigned int rtc = LANAI9_RTC;
	unsigned int waited = LANAI9_SIM_CYCLES_LO - start;
	LANAI9_ISR = LANAI9_ISR_TIME0_INT;
	/* An ISR read right after a special-register store does not see the
	 * store's effect yet (docs/hardware.md "The write hazard"). */
	__asm__ volatile("nop" ::: "memory");
	if (LANAI9_ISR & LANAI9_ISR_TIME0_INT)
		return 0xdead;
	lanai_print("waited ");
	lanai_print_udec(waited);
	lanai_puts(" cycles");
	return (int)rtc;
}
