! Every .file is an STT_FILE symbol, before the local symbols named after it
! (the first before all), duplicates kept.
	.file	"a.c"
	.file	"a.c"
	.text
f:	nop
	.file	"b.c"
	.section .data
	.file	"c.c"
	.long	0
	.globl	zz
zz:
	.file	"d.c"
