! Start-up code for the linked golden executable (assembled by lanai-as).
	.text
	.globl	_start
_start:	mov	0x100000, %sp
	or	%sp, 0x0, %fp
	add	%pc, 0x10, %rca
	st	%rca, [--%sp]
	bt	main
	nop
	st	%rv, [0x1ffffc]
_halt:	bt	_halt
	nop
