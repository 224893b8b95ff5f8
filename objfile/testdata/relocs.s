! Every relocation type llvm-mc emits, against globals, locals, .L labels,
! section symbols and undefined/weak/common symbols (assembled into relocs.o).
        .text
        .globl  entry
        .type   entry,@function
entry:  mov     hi(buf+4), %r3
        or      %r3, lo(buf+4), %r3
        mov     small, %r4
        ld      [small], %r5
        bt      ext_fn
        nop
.Lloop: bt      .Lloop
        nop
        mov     hi(.Lstr), %r6
        or      %r6, lo(.Lstr), %r6
        .size   entry, .-entry
        .data
        .p2align 2
        .globl  tbl
tbl:    .long   entry, .Lloop, ext_data+8, .Lstr+1
        .section .rodata.str1.1,"aMS",@progbits,1
.Lstr:  .asciz  "hello"
        .bss
        .p2align 2
small:  .long   0
buf:    .zero   8
        .comm   cbuf, 64, 8
        .weak   wk
        .globl  abs_sym
        .set    abs_sym, 0x1234
        .section .text
        bt      wk
        nop
