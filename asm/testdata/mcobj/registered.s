! Undefined symbols that a directive names stay in the table (.local keeps
! one local); an alias of an undefined symbol does not; .size and .if name
! no symbol (onlyif, a constant, is in the table where .set defines it).
	.local	lu
	.text
	bt	lu
	.hidden	hu
	.type	tu,@function
	.globl	gu
	.set	al, un
	.long	al
	.set	s5, 5
	.set	sy, yy
	.size	onlysized, 4
onlyif = 1
	.if	onlyif == 1
	nop
	.endif
	.size	f, 8
	.type	f,@function
	.globl	f
f:	nop
	nop
	.type	u,@object
	.size	u, 4
