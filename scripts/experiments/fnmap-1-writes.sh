# SPDX-License-Identifier: GPL-2.0
#
# fnmap experiment 1b: writes, 1 to 64 threads. The threads read random
# rows of the 256 MiB matrix of experiment 1a and update every element
# they read, for 3 s; then one sync (msync for mmap, fnmap_sync for fnmap)
# makes the updates durable. The rate counts that final sync: matrix
# bytes updated / (run time + final sync). mmap (default advice and
# random) writes dirty pages back through the kernel's write-back and
# msync; fnmap tracks dirty pages by write protection and writes them
# from shadow copies, coalesced. The paper (umap, fig. 12): 8.3x mmap's
# write throughput at 32 threads.
#include matrix-common.sh
#include fnmap-common.sh

SUMMARY=$RESULTS/fnmap-1-writes-$KV.summary
big_matrix
{
	echo "# fnmap experiment 1b: threads updating random rows of a 256 MiB matrix, 3 s + final sync"
	conditions
	echo "# el/s: elements updated / (run time + final sync); x_rnd, x_nrm: fnmap over mmap"
	echo "# random, normal; run_el/s: without the sync; sync_s: the final sync; wr: device writes"
	echo "# (count, mean KiB); fnw: the runtime's writes (count, mean KiB); MiB_wr: bytes written;"
	echo "# wpf/tw: the runtime's write faults and blocks twinned at their fill (write-allocate);"
	echo "# bound: the most el/s (sync counted) any page-mapping runtime could reach for the run's"
	echo "# accesses on this store (fnblk-matrix bound); x_max (fnmap rows): mmap random's bound"
	echo "# over its el/s, the largest x_rnd the store allows"
	printf '%-12s %3s %8s %5s %5s %10s %7s %7s %7s %6s %7s %7s %6s %5s %6s %5s\n' mode thr el/s x_rnd x_nrm \
		run_el/s sync_s wr wr_KiB fnw fnw_KiB MiB_wr wpf tw bound x_max
} >"$SUMMARY"

row() { # name mode threads x_rnd x_nrm [x_max]
	fw="- -" wt="- -"
	if [ "$(v "$1" jobs.0.mode.name)" = fnmap ]; then
		fw="$(fc "$1" writes) $(awk -v b="$(fc "$1" write_bytes)" -v n="$(fc "$1" writes)" \
			'BEGIN { if (n + 0) printf "%.1f", b / n / 1024; else print "-" }')"
		wt="$(fc "$1" faults_wp) $(fc "$1" twins_at_fill)"
	fi
	printf '%-12s %3s %8s %5s %5s %10s %7s %7s %7s %6s %7s %7s %6s %5s %6s %5s\n' "$2" "$3" "$(durable_elps "$1")" "$4" "$5" \
		"$(elps "$1")" "$(sec "$(v "$1" result.final_sync_ns)")" \
		"$(v "$1" device.io.write_ops)" "$(kib "$(v "$1" device.io.mean_write_bytes)")" \
		$fw "$(mib "$(v "$1" device.io.write_bytes)")" $wt "$(bound_elps "$1")" "${6:--}" >>"$SUMMARY"
}

run="--pattern rows --duration 3s --write-fraction 100%"
for t in 1 4 16 32 64; do
	mmap_both e1w $t $run
	mx "e1w-fnmap-$t" $DEV --mode fnmap --threads $t $run
	f=$(durable_elps "e1w-fnmap-$t")
	row "e1w-fnmap-$t" fnmap $t "$(ratio "$f" "$(durable_elps "e1w-mmap-random-$t")")" \
		"$(ratio "$f" "$(durable_elps "e1w-mmap-normal-$t")")" \
		"$(ratio "$(bound_elps "e1w-mmap-random-$t")" "$(durable_elps "e1w-mmap-random-$t")")"
done
cat "$SUMMARY"
