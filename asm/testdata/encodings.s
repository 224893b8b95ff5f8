! Expected bytes stand beside each line that emits any ("! => hex"), with
! the relocation it makes, if any ("R_TYPE symbol+addend"); lines without
! "=>" emit nothing. Values were computed by hand from docs/isa.md and, for
! the lines llvm-mc accepts, checked against llvm-mc -show-encoding.
! Symbols are named as in llvm-mc's objects: numeric labels ".Ltmp<n>",
! the label of "." unnamed ("(unnamed)" here).
	.text
	.globl	start
start:
	add	%r1, (1<<4)|3, %r2          ! => 01040013
	.set	K, 0x40
	add	%r1, K, %r2                 ! => 01040040
	add	%r1, K*0x10000, %r2         ! => 01050040
	KK = K + 1
	sub	%r1, KK, %r2                ! => 21040041
	mov	hi(data-4), %r3             ! => 01810000 R_LANAI_HI16 data-4
	or	%r3, lo(data-4), %r3        ! => 518c0000 R_LANAI_LO16 .data+4
	mov	lo(K), %r4                  ! => 02000040
	mov	hi(0x12345678), %r4         ! => 02011234
1:	nop                                 ! => 00000001
	bt	1b                          ! => e0000000 R_LANAI_25 .Ltmp0+0
	bne	1f                          ! => e6000000 R_LANAI_25 .Ltmp1+0
1:	bt	.                           ! => e0000000 R_LANAI_25 (unnamed)+0
	mov	end-start, %r5              ! => 028000a0
	ld	[data], %r6                 ! => f3000000 R_LANAI_21 data+0
	ld	[0x1000], %r6               ! => f3001000
	ld	[0x7ffe], %r6               ! => 83027ffe
	ld	[-4], %r6                   ! => 8302fffc
	ld.h	[6], %r6                    ! => f3030806
	uld	4[%r7], %r6                 ! => 831e0004
	uld	[%r7 add %r8], %r6          ! => a31e4003
	ld	0[*%r7], %r6                ! => 831c0000
	st.b	%r6, [%r7--]                ! => f31f67ff
	ld	[%r7 sh %r8], %r6           ! => a31e4782
	add	0x0, 0x222, %r9             ! => 04800222
	bt	%r7 add %r8                ! => c11c4500
	.macro	addk dst, k=1
	add	\dst, \k, \dst
	.endm
	nop ; nop                           ! => 00000001 00000001
	add /* a comment */ %r1, 1, %r2     ! => 01040001
	/* a comment
	   over lines */ sub %r1, 2, %r2    ! => 21040002
# a preprocessor line marker
	add %r1, 3, %r2 // C++ comment      ! => 01040003
	addk	%r6                         ! => 03180001
	addk	%r6, 7                      ! => 03180007
	.if K > 0x30
	nop                                 ! => 00000001
	.else
	nop                                 ! (skipped)
	.endif
	.ifdef	nosuchsymbol
	.long 5                             ! (skipped)
	.endif
	.p2align 5                          ! => 15000000 15000000 15000000 15000000 15000000 15000000 15000000
end:
	.data
	.long	0x12345678, -1              ! => 12345678 ffffffff
data:
	.long	start+8, .Lx                ! => 00000000 00000000 R_LANAI_32 start+8
	.byte	1, 'A', -1                  ! => 0141ff
	.p2align 1                          ! => 00
	.short	0xbeef, -2                  ! => beeffffe
	.quad	0x123456789abcdef0          ! => 123456789abcdef0
	.ascii	"hi\n"                      ! => 68690a
	.asciz	"a\"b"                      ! => 61226200
	.balign	4, 0xee                     ! => ee
.Lx:	.zero	3                           ! => 000000
	.fill	2, 2, 0x1234                ! => 12341234
	.long	. - data                    ! => 00000027
	.long	end - start                 ! => 000000a0
