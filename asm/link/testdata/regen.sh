#!/bin/sh
# Remakes the LLVM-produced objects in this directory (LLVM 14).
set -e
cd "$(dirname "$0")"
llvm-mc-14 -triple=lanai -filetype=obj crt0.s -o crt0.o
clang-14 --target=lanai -O2 -ffreestanding -c ex.c -o ex.o
