# SPDX-License-Identifier: GPL-2.0
#
# fnmap experiment 1a: reads, 1 to 64 threads. The threads read random
# rows of a 256 MiB matrix (65536 x 512, column-major: every element of a
# row is in its own page, as in matrix experiment 2) on the emulated
# remote store for 4 s, through
#   mmap random   the kernel's mmap, MADV_RANDOM: one 4 KiB read a fault
#   mmap normal   the kernel's mmap, default advice (read-around)
#   fnmap         libfnmap with its defaults: 64 KiB blocks, 4 io_uring
#                 channels of depth 8, requests coalesced up to 1 MiB,
#                 prefetch along the strides it sees, budget a quarter of
#                 what the cgroup has left (all of the matrix fits); the
#                 cache starts at a sixteenth of it and grows lazily
#   fnmap nogrow  the same with --fnmap-flags no-growth: the whole budget
#                 from the start (what lazy growth costs while it learns)
# Neither is limited in memory: both may end up holding the matrix. The
# paper (umap, fig. 12): 2.8x mmap's read throughput at 32 threads.
# A wrapper may set E1_THREADS (default "1 4 16 32 64") and E1_DUR (per
# run, default 4s).
#include matrix-common.sh
#include fnmap-common.sh

SUMMARY=$RESULTS/fnmap-1-reads-$KV.summary
big_matrix
{
	echo "# fnmap experiment 1a: threads reading random rows of a 256 MiB matrix, ${E1_DUR:-4s} per run"
	conditions
	echo "# el/s: elements read per second (8 bytes each); x_rnd, x_nrm: fnmap over mmap random, normal;"
	echo "# p50/p99: per access (512 elements, 512 pages); dev: the device's reads (count, mean KiB);"
	echo "# fn: the runtime's reads after coalescing (count, mean KiB, mean in flight);"
	echo "# MiB_rd: bytes read from the device; cpu: workers on a CPU (%); peak: the job's"
	echo "# memory.peak (MiB: page cache for mmap, the runtime's cache for fnmap); bound: the most"
	echo "# el/s any page-mapping runtime could reach for the run's accesses on this store"
	echo "# (fnblk-matrix bound); x_max (fnmap rows): mmap random's bound over its el/s, the"
	echo "# largest x_rnd the store allows"
	printf '%-12s %3s %8s %5s %5s %8s %8s %7s %7s %6s %7s %4s %7s %5s %6s %6s %5s\n' mode thr el/s x_rnd x_nrm \
		p50_ms p99_ms dev dev_KiB fn fn_KiB qd MiB_rd cpu peak bound x_max
} >"$SUMMARY"

rate() { elps "$1"; }

row() { # name mode threads x_rnd x_nrm [x_max]
	printf '%-12s %3s %8s %5s %5s %8s %8s %7s %7s %6s %7s %4s %7s %5s %6s %6s %5s\n' "$2" "$3" "$(rate "$1")" "$4" "$5" \
		"$(ms "$(v "$1" result.latency.p50_ns)")" "$(ms "$(v "$1" result.latency.p99_ns)")" \
		"$(v "$1" device.io.read_ops)" "$(kib "$(v "$1" device.io.mean_read_bytes)")" \
		$(fnmap_io "$1") "$(mib "$(v "$1" device.io.read_bytes)")" \
		"$(pct "$(v "$1" result.delay_shares.cpu)")" "$(mib "$(v "$1" memory.peak)")" \
		"$(bound_elps "$1")" "${6:--}" >>"$SUMMARY"
}

run="--pattern rows --duration ${E1_DUR:-4s}"
for t in ${E1_THREADS:-1 4 16 32 64}; do
	mmap_both e1r $t $run
	for f in "fnmap" "fnmap nogrow"; do
		name=e1r-$(echo "$f" | tr ' ' -)-$t
		extra=
		[ "$f" = fnmap ] || extra="--fnmap-flags no-growth"
		mx "$name" $DEV --mode fnmap --threads $t $run $extra
		r=$(rate "$name")
		row "$name" "$f" $t "$(ratio "$r" "$(rate "e1r-mmap-random-$t")")" \
			"$(ratio "$r" "$(rate "e1r-mmap-normal-$t")")" \
			"$(ratio "$(bound_elps "e1r-mmap-random-$t")" "$(rate "e1r-mmap-random-$t")")"
	done
done
# The ceiling: the guest CPU alone (store off), 1 and 32 threads.
store_off
echo "# store off: the guest CPU's ceiling" >>"$SUMMARY"
for t in 1 32; do
	for m in "mmap random" fnmap; do
		set -- $m
		mx "e1r-ceiling-$1-$t" $DEV --mode $1 ${2:+--advise $2} --threads $t $run
		row "e1r-ceiling-$1-$t" "$m" $t - -
	done
done
cat "$SUMMARY"
