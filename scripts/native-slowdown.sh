#!/bin/sh
# native-slowdown.sh: how much slower the emulated LANai core runs a corpus
# program than the same C compiled for this host (docs/performance.md).
#
#   scripts/native-slowdown.sh [PROGRAM...]     (default: vm and six held-out programs)
#
# For each program it builds fixtures/c/NAME.c with clang-14 -O2 for the
# host, times one call of its main in each of 31 processes (CPU time of
# the process, CLOCK_PROCESS_CPUTIME_ID; checking the
# result against fixtures/c/expected.txt; the programs keep state in
# globals, so one call per process) and takes the median; then
# it runs `go test ./lanai -bench Corpus/NAME` (-count 5; the median of
# instructions per run over MIPS-cpu: the CPU time of one run of the -O2
# Lanai build to its exit, predecode included) and prints both and their
# ratio. CPU times keep the ratio steady on a shared machine. Needs
# clang-14 and Go; run from the repository root.
set -eu
progs=${*:-"vm sort_quick parse_expr switch_dense sha256 hashtable lz"}
command -v clang-14 >/dev/null || { echo "native-slowdown.sh: clang-14 not found" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/drv.c" <<'C'
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
int prog_main(void);
int main(int argc, char **argv) {
	struct timespec a, b;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
	uint32_t v = (uint32_t)prog_main();
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
	if (argc < 2 || v != (uint32_t)strtoul(argv[1], 0, 0)) { fprintf(stderr, "returned %#x\n", v); return 1; }
	printf("%.0f\n", (b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec));
	return 0;
}
C
printf "%-12s %14s %14s %9s\n" program native-ns emulated-ns slowdown
for p in $progs; do
	want=$(awk -v p="$p" '$1 == p { print $2 }' fixtures/c/expected.txt)
	[ -n "$want" ] || { echo "native-slowdown.sh: $p: not in fixtures/c/expected.txt" >&2; exit 1; }
	clang-14 -O2 -w -Dmain=prog_main -c "fixtures/c/$p.c" -o "$tmp/$p.o"
	clang-14 -O2 "$tmp/drv.c" "$tmp/$p.o" -o "$tmp/$p"
	native=$(for i in $(seq 31); do "$tmp/$p" "$want"; done | sort -n | sed -n 16p)
	emu=$(go test ./lanai -run '^$' -bench "Corpus/$p\$" -benchtime 20x -count 5 2>/dev/null |
		awk '/^BenchmarkCorpus/ { for (i = 4; i < NF; i++) { if ($(i+1) == "MIPS-cpu") m = $i; if ($(i+1) == "instr/op") n = $i }; print n * 1000 / m }' |
		sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
	awk -v p="$p" -v n="$native" -v e="$emu" 'BEGIN { printf "%-12s %14.0f %14.0f %8.1fx\n", p, n, e, e / n }'
done
