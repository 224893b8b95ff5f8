! Symbol types: a later .type never weakens an earlier one (no type <
! object < function < thread-local); a label in a thread-local (T) section
! is thread-local; tls_object, common (an object), STT_* names, quoted.
	.text
	.type a,@function
	.type a,@object
	.type b,@object
	.type b,@notype
	.type c,@notype
	.type c,@object
	.type d,@object
	.type d,@function
a: b: c: d: nop
	.type e,@tls_object
	.type e,@function
	.type f,STT_FUNC
	.type g,%object
	.type h,"function"
	.type i,@common
	.type j,STT_TLS
e: f: g: h: i: j: nop
	.section .tbss,"awT",@nobits
	.globl tl
	.type tl,@object
tl:	.long 0
	.size tl, 4
	.section .tdata,"awT",@progbits
tx:	.long 5
