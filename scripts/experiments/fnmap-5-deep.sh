# SPDX-License-Identifier: GPL-2.0
#
# fnmap experiment 5, deep: experiment 1 at 32 threads (random rows of
# the 256 MiB matrix, reads for 5 s, then updates of every element read
# for 5 s and one final sync) on stores whose requests cost 16 ms and
# 64 ms (E5D_LAT), where mmap's page faults, 32 in flight for 32
# threads, leave the store idle: the regime the paper's distributed file
# system was in. mmap random and normal against fnmap with its defaults
# (4 channels of depth 8) and fnmap deep (16 channels of depth 32, so
# that its prefetched and written blocks keep the store busy). A thread
# finishes the row it is in, so a run may outlast its 5 s. About 10
# minutes a latency under TCG.
#include matrix-common.sh
#include fnmap-common.sh

E5D_LAT=${E5D_LAT:-16ms 64ms}
SUMMARY=$RESULTS/fnmap-5-deep-$KV.summary
DEEP="--fnmap-channels 16 --fnmap-qd 32"
big_matrix
{
	echo "# fnmap experiment 5, deep: 32 threads, random rows, slow stores, 5 s a run"
	conditions
	echo "# store here: bw $STORE_BW overhead $STORE_OVERHEAD, latency as in the lat column"
	echo "# el/s: elements read (reads) or updated and made durable (writes) per second;"
	echo "# x_rnd, x_nrm: over mmap random, normal; run_s: elapsed; sync_s: the final sync;"
	echo "# qd, fn_KiB: the runtime's reads in flight and mean size; MiB_rd: the device's reads;"
	echo "# bound: the store's bound without latency (fnblk-matrix bound)"
	printf '%-6s %5s %-12s %8s %5s %5s %6s %6s %5s %7s %7s %6s\n' what lat mode el/s x_rnd x_nrm \
		run_s sync_s qd fn_KiB MiB_rd bound
} >"$SUMMARY"

row() { # name what latency mode x_rnd x_nrm
	set -- "$@" $(fnmap_io "$1")
	printf '%-6s %5s %-12s %8s %5s %5s %6s %6s %5s %7s %7s %6s\n' "$2" "$3" "$4" \
		"$(durable_elps "$1")" "$5" "$6" "$(sec "$(v "$1" result.elapsed_ns)")" \
		"$(sec "$(v "$1" result.final_sync_ns)")" "${9}" "${8}" \
		"$(mib "$(v "$1" device.io.read_bytes)")" "$(bound_elps "$1")" >>"$SUMMARY"
}

for lat in $E5D_LAT; do
	fnblkctl dev set fnblk0 bw "$STORE_BW" latency "$lat" overhead "$STORE_OVERHEAD" \
		>/dev/null || { echo "cannot set the store"; exit 1; }
	for what in reads writes; do
		w=
		[ $what = reads ] || w="--write-fraction 100%"
		pfx=e5d-$what-$lat
		for a in random normal; do
			mx "$pfx-mmap-$a" $DEV --mode mmap --advise $a --threads 32 --pattern rows \
				--duration 5s $w
			row "$pfx-mmap-$a" $what $lat "mmap $a" - -
		done
		for m in fnmap "fnmap deep"; do
			name=$pfx-$(echo "$m" | tr ' ' -)
			extra=
			[ "$m" = fnmap ] || extra=$DEEP
			# shellcheck disable=SC2086 # $w and $extra are option lists
			mx "$name" $DEV --mode fnmap --threads 32 --pattern rows --duration 5s $w $extra
			r=$(durable_elps "$name")
			row "$name" $what $lat "$m" "$(ratio "$r" "$(durable_elps "$pfx-mmap-random")")" \
				"$(ratio "$r" "$(durable_elps "$pfx-mmap-normal")")"
		done
		# The rows as they come, for a boot that runs out of time.
		tail -n 4 "$SUMMARY"
	done
done
cat "$SUMMARY"
