! Start-up stub from isa.md §6.2 (assembled by llvm-mc-14 into crt0.o).
        .text
        .globl  _start
_start: mov     0x100000, %sp        ! stack top (8-byte aligned)
        or      %sp, 0x0, %fp
        add     %pc, 0x10, %rca      ! return address = _start+0x18
        st      %rca, [--%sp]        ! push it, exactly like a clang call site
        bt      main
        nop                          ! delay slot
        st      %rv, [0x1ffffc]      ! publish main's return value (SLS store)
_halt:  bt      _halt                ! branch-to-self = "halt" for the emulator
        nop
