#!/usr/bin/env bash
# The main job, today: build every C-corpus program (fixtures/c, compiled by
# clang at OPT, default O2) with our assembler, linker and runtime, run it on
# the emulated LANai 9.2, and compare its exit value with the host build's.
#   bash scripts/run-corpus.sh [O0|O1|O2|Os]
set -euo pipefail
cd "$(dirname "$0")/.."
opt="${1:-O2}"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/" ./cmd/lanai-as ./cmd/lanai-emu
pass=0; fail=0
printf '%-18s %12s %12s %10s %12s\n' program expected got instructions simulated
while read -r name want; do
  "$tmp/lanai-as" -o "$tmp/$name.elf" firmware/crt/src/*.s "fixtures/c/s/$name.$opt.s"
  "$tmp/lanai-emu" run --stats "$tmp/$name.json" --quiet "$tmp/$name.elf" >/dev/null 2>"$tmp/err" || true
  got=$(sed -n 's/.*"exit_code": *\([0-9]*\).*/\1/p' "$tmp/$name.json" | head -1)
  instrs=$(sed -n 's/.*"instructions": *\([0-9]*\).*/\1/p' "$tmp/$name.json" | head -1)
  sim=$(sed -n 's/.*"sim_seconds": *\([0-9.e+-]*\).*/\1/p' "$tmp/$name.json" | head -1)
  gothex=$(printf '0x%08x' "${got:-0}")
  if [ "$gothex" = "$want" ]; then pass=$((pass+1)); mark=ok; else fail=$((fail+1)); mark=FAIL; fi
  us=$(awk -v s="${sim:-0}" 'BEGIN { printf "%.1f us", s * 1e6 }')
  printf '%-18s %12s %12s %10s %12s %s\n' "$name" "$want" "$gothex" "$instrs" "$us" "$mark"
done < fixtures/c/expected.txt
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
