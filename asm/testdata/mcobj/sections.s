! Section order, alignment and padding as llvm-mc lays them out: .text
! first, others as entered, NOBITS aligned too, names through adjacent
! tokens, code sections other than .text unaligned unless asked.
	.bss
	.p2align 3
b:	.zero	5
	.data
x:	.byte	1
	.section .foo,"aw",@nobits
	.p2align 4
	.zero	3
	.section .a-b+c,"a"
	.long	1
	.section .text.x,"ax",@progbits
	nop
	.section .rodata.str1.1,"aMS",@progbits,1
.Ls:	.asciz	"hi"
	.text
	bt	ext
	mov	hi(.Ls), %r3
	or	%r3, lo(.Ls), %r3
	ld	[.Ls], %r4
	.data
	.long	.text.x
	.weak	w
	.long	w
	.section .note.GNU-stack,"",@progbits
