! Edge cases of llvm-objdump's output, assembled by llvm-mc-14 (regen.sh).
	.file	"mc.s"
	.text
	.globl	f
	.type	f,@function
f:
	add	%r6, 0x1234, %r7
	bt	g			! R_LANAI_25 against a local label
	nop
zz:					! two labels at one address: only the
aa:					! last by name ("zz") labels the code
	nop
	.long	0xffffffff		! not an instruction: 4-byte <unknown>
	.long	0, 0, 0			! 12 zero bytes: "..."
	bt	0x20			! absolute target: <zz+0x14>
	bne.r	0x8			! BRR target: <f+0x8>
	beq	0			! target 0: no annotation
	ld	-4[%fp], %pc ! return
	.type	tab,@object		! data in a code section: bytes + ASCII
tab:
	.long	f
	.long	0
	.long	0
	.long	g+8
	.ascii	"ABCD"
	.size	tab, 20
g:
	.long	0, 0, 0			! zeros before a relocation
	mov	hi(ext), %r3
	or	%r3, lo(ext+4), %r3
	ld	[cvar], %r3
	add	%r3, lo(d+4), %r3
q:	.long	0xffffffff		! undecodable right after a label: llvm-objdump
	.long	0xfffffffe		! takes 1 byte at a time until a word decodes
	nop
	.byte	1, 2			! trailing bytes: <unknown> each
	.size	f, .-f

	.section .text.b,"ax",@progbits	! no symbol at 0: <.text.b> label
	nop
	bt	0x4
.Lb:	bt	.Lb
	.long	0, 0, 0, 0

	.section .text.empty,"ax",@progbits
empty:

	.data
d:	.long	f+8
	.long	g-4
	.long	0x12345678
	.byte	0x7f, 0x20, 0x41

	.section .rodata.str1.1,"aMS",@progbits,1
str:	.asciz	"hello, world\n"

	.bss
b1:	.long	0
	.zero	12

	.comm	cvar, 8, 4
	.weak	w
	.weak	wu
	.globl	h
	.hidden	h
	h = 0x1234
	.globl	p
	.protected p
	.set	absx, 0x55
	.text
p:	nop
w:	bt	wu
	nop
