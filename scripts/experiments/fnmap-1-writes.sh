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
	echo "# (count, mean KiB); fnw: the runtime's writes (count, mean KiB); MiB_wr: bytes written"
	printf '%-12s %3s %8s %5s %5s %10s %7s %7s %7s %6s %7s %7s\n' mode thr el/s x_rnd x_nrm \
		run_el/s sync_s wr wr_KiB fnw fnw_KiB MiB_wr
} >"$SUMMARY"

row() { # name mode threads x_rnd x_nrm
	fw="- -"
	[ "$(v "$1" jobs.0.mode.name)" = fnmap ] &&
		fw="$(fc "$1" writes) $(awk -v b="$(fc "$1" write_bytes)" -v n="$(fc "$1" writes)" \
			'BEGIN { if (n + 0) printf "%.1f", b / n / 1024; else print "-" }')"
	printf '%-12s %3s %8s %5s %5s %10s %7s %7s %7s %6s %7s %7s\n' "$2" "$3" "$(durable_elps "$1")" "$4" "$5" \
		"$(elps "$1")" "$(sec "$(v "$1" result.final_sync_ns)")" \
		"$(v "$1" device.io.write_ops)" "$(kib "$(v "$1" device.io.mean_write_bytes)")" \
		$fw "$(mib "$(v "$1" device.io.write_bytes)")" >>"$SUMMARY"
}

run="--pattern rows --duration 3s --write-fraction 100%"
for t in 1 4 16 32 64; do
	mmap_both e1w $t $run
	mx "e1w-fnmap-$t" $DEV --mode fnmap --threads $t $run
	f=$(durable_elps "e1w-fnmap-$t")
	row "e1w-fnmap-$t" fnmap $t "$(ratio "$f" "$(durable_elps "e1w-mmap-random-$t")")" \
		"$(ratio "$f" "$(durable_elps "e1w-mmap-normal-$t")")"
done
cat "$SUMMARY"
