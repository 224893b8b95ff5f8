! .addrsig makes .llvm_addrsig; .addrsig_sym puts a symbol in the table
! (a ".L" label stands for its section's symbol); .ident fills .comment.
	.text
f:	nop
	.ident	"first"
	.addrsig
	.addrsig_sym f
	.addrsig_sym .Lx
	.addrsig_sym undefd
	.addrsig_sym g
.Lx:	nop
	.globl	g
g:	nop
	.ident	"second"
