# SPDX-License-Identifier: GPL-2.0
#
# fnmap experiment 3: ablation, on the 256 MiB matrix of experiment 1
# (65536 x 512) on the emulated remote store, 5 s per run.
#  a. random rows, 1 and 16 threads, a 64 MiB budget (a quarter of the
#     matrix, so the cache must choose): the paper's two halves switched
#     on one at a time, prefetch off as in the paper: neither
#     (no-coalesce, simple-cache), coalescing only (simple-cache: FIFO
#     eviction under one lock, blind to use, full budget at once), cache
#     only (no-coalesce: one read per block), both; then both with
#     prefetch (fnmap's default). mmap random for reference, unlimited
#     and under a 64 MiB memory.max (its x_mmap: over the unlimited run).
#  b. block size 64 KiB .. 2 MiB (16 threads, random rows, 64 MiB budget).
#  c. I/O channels 1 .. 8 (16 threads, random rows, 64 MiB budget).
#  d. prefetch on and off for each pattern (cols, rows, tiles, xtx),
#     1 thread, default budget; mmap (default advice) for reference.
# The paper (umap, fig. 13a): coalescing alone 3.5x mmap single-threaded
# but no scaling past 8 threads; the cache brings the scaling.
# A wrapper may run a part of it in a boot of its own: E3_PARTS (letters,
# default abcd), E3_THREADS (part a's thread counts, default "1 16"),
# E3_DUR (per run, default 5s).
#include matrix-common.sh
#include fnmap-common.sh

E3_PARTS=${E3_PARTS:-abcd}
E3_THREADS=${E3_THREADS:-1 16}
E3_DUR=${E3_DUR:-5s}
SUMMARY=$RESULTS/fnmap-3-ablation-$KV.summary
big_matrix
{
	echo "# fnmap experiment 3: ablation on a 256 MiB matrix, parts $E3_PARTS, $E3_DUR per run"
	conditions
	echo "# el/s: elements read per second (8 bytes each); x_mmap: over mmap in the same part;"
	echo "# fn: the runtime's reads (count, mean KiB, mean in flight); MiB_rd: read from the"
	echo "# device; evict: blocks evicted; pf: prefetched blocks (late: faulted on before they came)"
	printf '%-2s %-22s %3s %8s %6s %6s %7s %4s %7s %6s %9s\n' part setting thr el/s x_mmap \
		fn fn_KiB qd MiB_rd evict pf/late
} >"$SUMMARY"

rate() { elps "$1"; }

row() { # name part setting threads x_mmap
	pf=-
	[ "$(v "$1" jobs.0.mode.name)" = fnmap ] && pf="$(fc "$1" prefetches)/$(fc "$1" prefetch_late)"
	printf '%-2s %-22s %3s %8s %6s %6s %7s %4s %7s %6s %9s\n' "$2" "$3" "$4" "$(rate "$1")" "$5" \
		$(fnmap_io "$1") "$(mib "$(v "$1" device.io.read_bytes)")" \
		"$(if [ "$pf" = - ]; then echo -; else fc "$1" evictions; fi)" "$pf" >>"$SUMMARY"
}

# fn NAME PART SETTING THREADS BASE ARGS...: an fnmap run and its row, against run BASE.
fn() {
	name=$1 part=$2 setting=$3 thr=$4 base=$5
	shift 5
	mx "$name" $DEV --mode fnmap --threads $thr "$@"
	row "$name" $part "$setting" $thr "$(ratio "$(rate "$name")" "$(rate "$base")")"
}

rows="--pattern rows --duration $E3_DUR"
small="--fnmap-budget 64MiB"
part() { case $E3_PARTS in *$1*) return 0 ;; esac; return 1; }
part a && for t in $E3_THREADS; do
	mx "e3a-mmap-$t" $DEV --mode mmap --advise random --threads $t $rows
	row "e3a-mmap-$t" a "mmap random" $t -
	# The same with its page cache held to fnmap's 64 MiB: unlimited, a
	# quiet guest's page cache takes the whole matrix within the run.
	mx "e3a-mmap64-$t" $DEV --mode mmap --advise random --threads $t $rows \
		--memory-max 64MiB
	row "e3a-mmap64-$t" a "mmap random, 64MiB max" $t \
		"$(ratio "$(rate "e3a-mmap64-$t")" "$(rate "e3a-mmap-$t")")"
	fn "e3a-neither-$t" a neither $t "e3a-mmap-$t" $rows $small \
		--fnmap-flags no-coalesce,simple-cache,no-prefetch
	fn "e3a-coalesce-$t" a "coalescing only" $t "e3a-mmap-$t" $rows $small \
		--fnmap-flags simple-cache,no-prefetch
	fn "e3a-cache-$t" a "cache only" $t "e3a-mmap-$t" $rows $small \
		--fnmap-flags no-coalesce,no-prefetch
	fn "e3a-both-$t" a both $t "e3a-mmap-$t" $rows $small --fnmap-flags no-prefetch
	fn "e3a-all-$t" a "both + prefetch" $t "e3a-mmap-$t" $rows $small
done
# Parts b and c compare with mmap random at 16 threads: part a's run, or
# one of their own when part a ran without 16 threads.
case $E3_PARTS in *b* | *c*)
	if [ ! -s "$RESULTS/e3a-mmap-16.json" ]; then
		mx "e3a-mmap-16" $DEV --mode mmap --advise random --threads 16 $rows
		row "e3a-mmap-16" bc "mmap random" 16 -
	fi ;;
esac
part b && for bs in 64KiB 256KiB 1MiB 2MiB; do
	fn "e3b-$bs" b "block $bs" 16 e3a-mmap-16 $rows $small --bs $bs
done
part c && for ch in 1 2 4 8; do
	fn "e3c-$ch" c "channels $ch" 16 e3a-mmap-16 $rows $small --fnmap-channels $ch
done
part d && for p in cols rows tiles xtx; do
	mx "e3d-mmap-$p" $DEV --mode mmap --pattern $p --duration $E3_DUR
	row "e3d-mmap-$p" d "$p: mmap normal" 1 -
	fn "e3d-on-$p" d "$p: prefetch" 1 "e3d-mmap-$p" --pattern $p --duration $E3_DUR
	fn "e3d-off-$p" d "$p: no-prefetch" 1 "e3d-mmap-$p" --pattern $p --duration $E3_DUR \
		--fnmap-flags no-prefetch
done
cat "$SUMMARY"
