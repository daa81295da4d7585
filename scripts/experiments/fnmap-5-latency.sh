# SPDX-License-Identifier: GPL-2.0
#
# fnmap experiment 5: the crossover along the store's latency. The
# paper's store is a distributed file system whose requests cost
# milliseconds; the matrix experiments' store costs 200 us a request.
# fnmap pays a fixed CPU cost a miss (fault delivery, a fill of a whole
# block, wake-ups: about 1.3-2 ms in this guest) and makes fewer, larger
# requests; mmap pays little CPU a fault and, without read-around, one
# 4 KiB request a page. As the latency a request grows, the request count
# weighs more than the CPU a miss: this measures where (if anywhere)
# fnmap overtakes mmap. The store: bw 64MiB/s, overhead 16KiB, latency
# 200us, 1ms, 4ms and 16ms (E5_LAT). Two workloads on the 256 MiB
# matrix of experiment 1 (65536 x 512, column-major), 1 and 32 threads
# (E5_THREADS), 5 s a run (E5_DUR), every run cold:
#   rows     random rows, as experiment 1: 512 elements a row, each in a
#            page and a 64 KiB block of its own (no neighbours)
#   records  random 16 KiB records: 2048 consecutive elements of one
#            column (--pattern tiles --block 2048x1), a row of a
#            row-major 16384 x 2048 matrix of the same size: four pages
#            that are neighbours, as the paper's misses were (its random
#            accesses coalesced to 17.2 KiB, fig. 14)
# each through mmap random (one 4 KiB request a fault: what the paper
# says mmap does on its DFS), mmap normal (read-around) and fnmap (its
# defaults, as in experiment 1); at one thread also fnmap without
# prefetch (fnmap nopf: one miss out at a time, as mmap has). A wrapper
# may set E5_PATTERNS (default "rows records").
#include matrix-common.sh
#include fnmap-common.sh

E5_PATTERNS=${E5_PATTERNS:-rows records}
E5_LAT=${E5_LAT:-200us 1ms 4ms 16ms}
E5_THREADS=${E5_THREADS:-1 32}
E5_DUR=${E5_DUR:-5s}
SUMMARY=$RESULTS/fnmap-5-latency-$KV.summary
big_matrix
{
	echo "# fnmap experiment 5: store latency against fnmap and mmap, $E5_DUR a run, patterns $E5_PATTERNS"
	conditions
	echo "# store here: bw $STORE_BW overhead $STORE_OVERHEAD, latency as in the lat column"
	echo "# el/s: elements read per second (8 bytes each); x_rnd, x_nrm: fnmap over mmap random, normal;"
	echo "# run_s: the run's elapsed time (a thread finishes the access it is in); p50: per access;"
	echo "# dev: the device's reads (count, mean KiB); fn_KiB, qd: the runtime's reads after"
	echo "# coalescing (mean KiB, mean in flight); MiB_rd: bytes read from the device"
	printf '%-7s %5s %3s %-11s %8s %5s %5s %6s %8s %7s %7s %7s %4s %7s\n' pattern lat thr mode \
		el/s x_rnd x_nrm run_s p50_ms dev dev_KiB fn_KiB qd MiB_rd
} >"$SUMMARY"

rate() { elps "$1"; }

row() { # name pattern latency threads mode x_rnd x_nrm
	set -- "$@" $(fnmap_io "$1")
	printf '%-7s %5s %3s %-11s %8s %5s %5s %6s %8s %7s %7s %7s %4s %7s\n' "$2" "$3" "$4" "$5" \
		"$(rate "$1")" "$6" "$7" "$(sec "$(v "$1" result.elapsed_ns)")" \
		"$(ms "$(v "$1" result.latency.p50_ns)")" "$(v "$1" device.io.read_ops)" \
		"$(kib "$(v "$1" device.io.mean_read_bytes)")" "${9}" "${10}" \
		"$(mib "$(v "$1" device.io.read_bytes)")" >>"$SUMMARY"
}

for p in $E5_PATTERNS; do
	case $p in
	rows) access="--pattern rows" ;;
	records) access="--pattern tiles --block 2048x1" ;;
	*) echo "unknown pattern $p"; exit 1 ;;
	esac
	for lat in $E5_LAT; do
		fnblkctl dev set fnblk0 bw "$STORE_BW" latency "$lat" overhead "$STORE_OVERHEAD" \
			>/dev/null || { echo "cannot set the store"; exit 1; }
		for t in $E5_THREADS; do
			pfx=e5-$p-$lat-$t
			for a in random normal; do
				mx "$pfx-mmap-$a" $DEV --mode mmap --advise $a --threads $t $access \
					--duration $E5_DUR
				row "$pfx-mmap-$a" $p $lat $t "mmap $a" - -
			done
			modes=fnmap
			[ $t -gt 1 ] || modes="fnmap fnmap-nopf"
			for m in $modes; do
				extra=
				[ $m = fnmap ] || extra="--fnmap-flags no-prefetch"
				mx "$pfx-$m" $DEV --mode fnmap --threads $t $access --duration $E5_DUR $extra
				r=$(rate "$pfx-$m")
				row "$pfx-$m" $p $lat $t "$(echo $m | tr - ' ')" \
					"$(ratio "$r" "$(rate "$pfx-mmap-random")")" \
					"$(ratio "$r" "$(rate "$pfx-mmap-normal")")"
			done
			# The rows as they come, for a boot that runs out of time.
			tail -n 4 "$SUMMARY"
		done
	done
done
cat "$SUMMARY"
