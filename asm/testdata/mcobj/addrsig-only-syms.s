! .addrsig_sym without .addrsig: no table, but the symbols are kept.
	.text
f:	nop
	.addrsig_sym foo
	.addrsig_sym .Lx
.Lx:	nop
