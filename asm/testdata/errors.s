! Each line marked ERROR must give an error matching the quoted regular
! expression; no other line may give one. The column is checked where given
! as "col N".
	.text
start:
	frob %r1, %r2                   ! ERROR "unknown instruction \"frob\""
	add %r32, 1, %r2                ! ERROR "unknown register %r32"
	add %R5, 1, %r2                 ! ERROR "unknown register %R5"
	add %r1, 0x12345, %r2           ! ERROR "immediate 0x12345 cannot be encoded"
	and %r3, 0xff, %r3              ! ERROR "and immediate 0xff cannot be encoded"
	sh %r1, 32, %r2                 ! ERROR "shift amount 32 out of range -31..31"
	ld 40000[%r1], %r2              ! ERROR "offset 40000 out of range -32768..32767"
	ld.h 600[%r1], %r2              ! ERROR "offset 600 out of range -512..511"
	bt 0x1002                       ! ERROR "branch target 0x1002 must be word-aligned"
	bt 0x2000000                    ! ERROR "below 0x2000000"
	mov 0x12345678, %r3             ! ERROR "cannot be loaded by one mov"
	add %r1, %r2                    ! ERROR "add takes 3 operands, got 2"
	ld %r1, %r2                     ! ERROR "operand 1 of ld must be a memory operand"
	add.eq %r1, 1, %r2              ! ERROR "conditional add.eq needs a register second operand"
	ld [0x7fffff], %r3              ! ERROR "not word-aligned below 0x200000"
	ld 4[%r1, %r2                   ! ERROR "expected ']'"
	ld [%r1 mul %r2], %r3           ! ERROR "expected an address operation"
	add %r1, start, %r2             ! ERROR "must be written hi\(start\) or lo\(start\)"
	and %r1, hi(start), %r2         ! ERROR "and takes a constant immediate"
	ld.h lo(start)[%r1], %r2        ! ERROR "memory offset must be a constant"
	blt.r start                     ! ERROR "relative branch takes a constant offset"
	sel.xx %r1, %r2, %r3            ! ERROR "unknown condition \"xx\""
	popc %r1, 5                     ! ERROR "operand 2 of popc must be a register"
start:                                  ! ERROR "symbol start is already defined"
	.foo 1                          ! ERROR "unknown directive .foo"
	.ascii "abc                     ! ERROR "unterminated string"
	.byte 300                       ! ERROR "value 300 does not fit in 1 bytes"
	.short 0x10000                  ! ERROR "does not fit in 2 bytes"
	.long hi(start)                 ! ERROR "only a 4-byte value"
	.byte start                     ! ERROR "only a 4-byte value"
	.long 1/0                       ! ERROR "division by zero"
	.long start-other               ! ERROR "different sections"
	.p2align 40                     ! ERROR "alignment power 40 out of range"
	.balign 3                       ! ERROR "not a power of two"
	.byte 'ab'                      ! ERROR "invalid character constant"
	.set loop1, loop2+1
	.set loop2, loop1+1
	.long loop1                     ! ERROR "defined in terms of itself"
	.zero undefined_yet             ! ERROR "not defined yet"
	.endif                          ! ERROR ".endif without .if"
	.else                           ! ERROR ".else without .if"
	.include "no-such-file.s"       ! ERROR "cannot find include file"
	.err "custom failure"           ! ERROR "custom failure"
	.endm                           ! ERROR ".endm without .macro"
	.long 0x123456789               ! ERROR "does not fit in 4 bytes"
	add %r1, 1 + , %r2              ! ERROR "expected an expression"
	.long 99999999999999999999      ! ERROR "integer literal 99999999999999999999 is too large"
	ld [--%r1 add %r2], %r3         ! ERROR "expected ']'"
	.section .bss,"aw",@nobits
	nop                             ! ERROR "no contents \(nobits\)"
	.byte 1                         ! ERROR "non-zero data in section .bss"
	.section .foo,"q"               ! ERROR "unknown section flag"
	.data
other:
	.long 0
	.text 0
	.data 2			! ERROR "subsections are not supported"
	.text
