! Symbols .set to labels. Before the label is defined (g, h, z, y) the
! symbol is defined at the label all the same (llvm-mc evaluates the
! assignment when it writes the object) and relocations name it; a symbol
! .set to a label takes the label's type where its own is weaker and its
! size unless it has one (along a chain of plain ".set a, b" the first
! size met); one .set to a later constant (c) is absolute.
	.text
	.globl	g, h, z, y, c
	.set	g, f
	.set	h, f+8
	.set	z, y
	.set	y, x+4
	.set	c, k
	.set	k, 12
	.set	dd, e2 - e1
	.long	z, y, c, dd
	bt	h
	nop
	.type	f,@function
f:	nop
	nop
	nop
	.size	f, 12
x:	nop
	nop
	.size	x, 8
e1:	nop
e2:	mov	hi(y), %r3
	or	%r3, lo(y), %r3
	.set	q, x
	.size	q, 4
	.set	qq, q
	.type	fo,@function
	.set	fo, d
	.data
d:	.long	qq, fo
	.size	d, 8
	.set	e, d
	.globl	e
	.type	ob,@object
	.set	ob, x
