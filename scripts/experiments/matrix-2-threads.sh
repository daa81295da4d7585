# SPDX-License-Identifier: GPL-2.0
#
# Matrix experiment 2: threads. 1 to 64 threads read random rows of a
# 256 MiB matrix (65536 x 512: a row is one element in each of 512
# columns, each column 512 KiB, so every element read is its own page)
# through mmap, for 8 s each, on the emulated remote store. Three cases:
#   random   --advise random: every fault one 4 KiB read
#   normal   the default advice: read-around until the misses turn it off
#   churn    random, and one more thread maps and unmaps 1 MiB every 1 ms
#            (a memory allocator): mmap and munmap take the mmap lock for
#            writing, and page faults that need it wait behind them
# 6.1 handles file-backed page faults under the mmap lock; 6.12 handles
# them under the VMA's own lock (CONFIG_PER_VMA_LOCK), so another VMA's
# mmap/munmap does not stop them. Per run: throughput, faults/s, latency,
# where the workers' time went (delay accounting), their states and kernel
# wait sites (sampled stacks), pressure and iowait.
#include matrix-common.sh

SUMMARY=$RESULTS/matrix-2-threads-$KV.summary
SITES=$RESULTS/matrix-2-threads-sites-$KV.txt
SIZE_MB=320
load_fnblk bw_mbps=0
fnblk-matrix create $DEV --rows 65536 --cols 512 -q || { echo "create failed"; exit 1; }
store_on
{
	echo "# matrix experiment 2: threads reading random rows through mmap, 8 s per run"
	conditions
	echo "# faults/s: major faults per second; p50/p99: per access (512 elements);"
	echo "# cpu/runq/blkio/other: share of the workers' time on a CPU, waiting for one,"
	echo "# in block I/O, other sleep (delay accounting); D: sampled uninterruptible share;"
	echo "# io: io.pressure some share; waits: sampled wait classes of the workers (%)"
	printf '%-7s %3s %9s %8s %8s %5s %5s %5s %5s %5s %5s  %s\n' case thr faults/s p50_ms p99_ms \
		cpu runq blkio other D io waits
} >"$SUMMARY"
: >"$SITES"

row() { # name case threads
	el=$(v "$1" result.elapsed_ns)
	printf '%-7s %3s %9s %8s %8s %5s %5s %5s %5s %5s %5s  %s\n' "$2" "$3" \
		"$(awk -v f="$(v "$1" result.majflt)" -v t="$el" 'BEGIN { if (t + 0) printf "%.0f", f * 1e9 / t; else print "-" }')" \
		"$(ms "$(v "$1" result.latency.p50_ns)")" \
		"$(ms "$(v "$1" result.latency.p99_ns)")" \
		"$(pct "$(v "$1" result.delay_shares.cpu)")" \
		"$(pct "$(v "$1" result.delay_shares.waiting_for_cpu)")" \
		"$(pct "$(v "$1" result.delay_shares.block_io)")" \
		"$(pct "$(v "$1" result.delay_shares.other_sleep)")" \
		"$(pct "$(v "$1" threads.workers.uninterruptible)")" \
		"$(pct "$(v "$1" pressure.io.some_share)")" \
		"$(wait_classes "$1")" >>"$SUMMARY"
	echo "$2 $3: $(top_sites "$1" 6)" >>"$SITES"
}

for case in random normal churn; do
	case $case in
	random) args="--advise random" ;;
	normal) args="--advise normal" ;;
	churn) args="--advise random --mmap-churn 1ms" ;;
	esac
	for t in 1 2 4 8 16 32 64; do
		mx "e2-$case-$t" $DEV --mode mmap --pattern rows --threads $t --duration 8s $args
		row "e2-$case-$t" $case $t
	done
done
# The ceiling: the same with the store off, at 1 and 8 threads.
store_off
echo "# store off: the guest CPU's ceiling" >>"$SUMMARY"
for t in 1 8; do
	mx "e2-ceiling-$t" $DEV --mode mmap --pattern rows --threads $t --duration 8s --advise random
	row "e2-ceiling-$t" ceiling $t
done
cat "$SUMMARY" "$SITES"
