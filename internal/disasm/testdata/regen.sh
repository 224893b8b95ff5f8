#!/bin/sh
# Remakes the golden-test inputs in this directory and llvm-objdump-14's
# output for each of them (LLVM 14; run from anywhere).
#
#   mc.o      llvm-mc-14 -triple=lanai -filetype=obj mc.s (edge cases)
#   prog.o    clang-14 --target=lanai -O1 -ffreestanding -c prog.c
#   prog.elf  start.s assembled by our lanai-as, linked with prog.o by our
#             lanai-ld at -Ttext 0x1000
#   NAME.TAG.golden  llvm-objdump-14 FLAGS NAME for each TAG/FLAGS below
#
# The COFF goldens (coff.TAG.golden) cannot come from llvm-objdump, which
# does not read LANai COFF: they are our own output for the COFF file that
# the Go test builds, rewritten by "go test -run TestCOFFGolden -update"
# (the live test checks that file's disassembly and symbol table against
# llvm-objdump-14's output for the same image converted to ELF).
set -eu
cd "$(dirname "$0")"
export LC_ALL=C
llvm-mc-14 -triple=lanai -filetype=obj mc.s -o mc.o
clang-14 --target=lanai -O1 -ffreestanding -c prog.c -o prog.o
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go run ../../../cmd/lanai-as -c -o "$tmp/start.o" start.s
go run ../../../cmd/lanai-ld -o prog.elf -Ttext 0x1000 "$tmp/start.o" prog.o

golden() { # tag flags...
	tag=$1
	shift
	for f in mc.o prog.o prog.elf; do
		llvm-objdump-14 "$@" "$f" >"$f.$tag.golden"
	done
}
golden dr -d -r
golden d -d
golden t -t
golden h -h
golden r -r
golden s -s
golden all -h -t -r -s -d
(cd .. && go test -run TestCOFFGolden -update .)
