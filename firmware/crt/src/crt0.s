! crt0.s - start-up code for clang-compiled LANai programs (docs/runtime.md).
!
! Link it first (`lanai-as -o prog.elf firmware/crt/src/*.s prog.s`; the helper
! files sort after crt0.s) so that _start lands at address 0, where the LANai
! starts after reset; the ELF entry point is _start either way.
!
! _start:
!   1. sp = fp = __stack_top (end of SRAM, linker-defined) rounded down to 8;
!   2. zeroes [__bss_start, __bss_end): bytes up to a word boundary, words,
!      then the remaining 0..3 bytes;
!   3. calls main(argc = 0, argv = envp = pointer to a NULL word) with
!      clang's call sequence (the stack is 8-byte aligned before the return
!      address is pushed, as at every clang call site);
!   4. stores main's return value to the simulation-control EXIT register
!      (0xFFFFF000) and spins on `bt .` in case no such device is present.
! _exit(code) (code in r6) does step 4 directly; it is callable from C as
! `void _exit(int) __attribute__((noreturn))`.
!
! Registers are set only as above; everything else is left as reset left it
! (clang code never reads a register it has not written).

	.text
	.p2align	2
	.globl	_start
	.type	_start,@function
_start:
	mov	hi(__stack_top), %sp
	or	%sp, lo(__stack_top), %sp
	and	%sp, 0xfffffff8, %sp	! keep the stack 8-byte aligned
	or	%sp, 0x0, %fp

	! --- zero .bss: r3 = cursor, r9 = end, r12 = 3 (alignment mask) ---
	mov	hi(__bss_start), %r3
	or	%r3, lo(__bss_start), %r3
	mov	hi(__bss_end), %r9
	or	%r9, lo(__bss_end), %r9
	mov	0x3, %r12
.Lhead:					! bytes until r3 is word-aligned
	sub.f	%r3, %r9, %r0
	buge	.Lcall			! r3 >= end: done
	and.f	%r3, %r12, %r0		! (delay slot) Z = r3 word-aligned
	beq	.Lwords
	nop
	st.b	%r0, 0[%r3]
	bt	.Lhead
	add	%r3, 0x1, %r3		! (delay slot)
.Lwords:				! r13 = end of the whole words
	sub	%r9, %r3, %r13
	and	%r13, 0xfffffffc, %r13
	add	%r3, %r13, %r13
.Lwloop:
	sub.f	%r3, %r13, %r0
	buge	.Ltail
	nop
	st	%r0, 0[%r3]
	bt	.Lwloop
	add	%r3, 0x4, %r3		! (delay slot)
.Ltail:					! the last 0..3 bytes
	sub.f	%r3, %r9, %r0
	buge	.Lcall
	nop
	st.b	%r0, 0[%r3]
	bt	.Ltail
	add	%r3, 0x1, %r3		! (delay slot)

	! --- main(0, argv, envp), argv = envp = sp -> { NULL, NULL } ---
.Lcall:
	st	%r0, [--%sp]
	st	%r0, [--%sp]		! sp is still 8-byte aligned
	or	%sp, 0x0, %r7		! argv
	or	%sp, 0x0, %r18		! envp
	mov	0x0, %r6		! argc
	add	%pc, 0x10, %rca		! return address = the st %rv below
	st	%rca, [--%sp]
	bt	main
	nop				! (delay slot)
	or	%rv, 0x0, %r6		! exit(main's return value)
.Lfunc_end_start:
	.size	_start, .Lfunc_end_start-_start

	.globl	_exit
	.type	_exit,@function
_exit:
	st	%r6, -4096[%r0]	! EXIT (0xFFFFF000): stop the simulation
	bt	.			! no simulation-control device: spin
	nop
.Lfunc_end_exit:
	.size	_exit, .Lfunc_end_exit-_exit
