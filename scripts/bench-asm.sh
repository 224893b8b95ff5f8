#!/usr/bin/env bash
# Times our assembler against llvm-mc on the same generated 100,000-line file
# (the input of BenchmarkAssemble100k) and prints the ratio.
#   bash scripts/bench-asm.sh
set -euo pipefail
cd "$(dirname "$0")/.."
MC="${LLVM_MC:-llvm-mc-14}"
command -v "$MC" >/dev/null || { echo "bench-asm: $MC not found (apt-get install llvm-14)" >&2; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
go test ./asm -run TestWriteBenchSource -count=1 -args -benchsrc="$tmp/bench.s" >/dev/null
best=""
for i in 1 2 3 4 5; do
  s=$(date +%s%N); "$MC" -triple=lanai -filetype=obj "$tmp/bench.s" -o "$tmp/bench.o"; e=$(date +%s%N)
  t=$(( (e - s) / 1000 )); if [ -z "$best" ] || [ "$t" -lt "$best" ]; then best=$t; fi
done
ours=$(go test ./asm -run '^$' -bench 'Assemble100k$' -benchtime 5x -count 5 | awk '/BenchmarkAssemble100k/ {t=int($3/1000); if (m == "" || t < m) m = t} END {print m}')
echo "llvm-mc -filetype=obj: ${best} us (best of 5 runs, including process start)"
echo "lanai asm (Assemble + WriteELF): ${ours} us (best of 5 benchmark rounds of 5 runs)"
awk -v a="$best" -v b="$ours" 'BEGIN { printf "ratio llvm-mc / ours: %.2f (%s)\n", a/b, (a > b ? "ours is faster" : "llvm-mc is faster") }'
# End to end, both as commands (process start, reading and writing files).
go build -o "$tmp/" ./cmd/lanai-as
cli=""
for i in 1 2 3 4 5; do
  s=$(date +%s%N); "$tmp/lanai-as" -c -o "$tmp/ours.o" "$tmp/bench.s"; e=$(date +%s%N)
  t=$(( (e - s) / 1000 )); if [ -z "$cli" ] || [ "$t" -lt "$cli" ]; then cli=$t; fi
done
echo "lanai-as -c (command, end to end): ${cli} us (best of 5)"
awk -v a="$best" -v b="$cli" 'BEGIN { printf "ratio llvm-mc / lanai-as, both commands: %.2f\n", a/b }'
