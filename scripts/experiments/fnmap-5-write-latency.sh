# SPDX-License-Identifier: GPL-2.0
#
# fnmap experiment 5, write latency: where the write target (8.3x mmap at 32
# threads) is reached. Experiment 1's updates at 32 threads (random rows
# of the 256 MiB matrix for 5 s, then one final sync) on stores whose
# requests cost 64, 128 and 256 ms (E5W_LAT): mmap random has one fault
# in flight a thread, so its time grows with the latency; fnmap's
# prefetches and write-backs keep the store busy, so its time is the
# store's bandwidth once enough requests are in flight. fnmap with its
# defaults (channels probing their depth, since 1.4) against the same
# with fixed-depth (4 channels of 8, as before 1.4), and the store's
# bound for each run's accesses (latency left out). A thread finishes
# the row it is in, so a run may outlast its 5 s. About 8 minutes under
# TCG, most of it mmap at 256 ms.
#include matrix-common.sh
#include fnmap-common.sh

E5W_LAT=${E5W_LAT:-64ms 128ms 256ms}
SUMMARY=$RESULTS/fnmap-5-write-latency-$KV.summary
big_matrix
{
	echo "# fnmap experiment 5, write latency: 32 threads updating random rows, 5 s + sync"
	conditions
	echo "# store here: bw $STORE_BW overhead $STORE_OVERHEAD, latency as in the lat column"
	echo "# el/s: elements updated and made durable per second; x_rnd: over mmap random;"
	echo "# run_s, sync_s: the run and the final sync; depth: each channel's depth at the end"
	echo "# (of at most dmax); out: the runtime's requests in flight, mean; cap_MiB: the"
	echo "# cache's capacity at the end; bound: the store's bound without latency, el/s"
	printf '%5s %-18s %6s %5s %6s %6s %5s %4s %5s %7s %6s\n' lat mode el/s x_rnd run_s sync_s \
		depth dmax out cap_MiB bound
} >"$SUMMARY"

row() { # name latency mode x_rnd
	# shellcheck disable=SC2046 # fnmap_io's three words
	set -- "$@" $(fnmap_io "$1")
	printf '%5s %-18s %6s %5s %6s %6s %5s %4s %5s %7s %6s\n' "$2" "$3" "$(durable_elps "$1")" \
		"$4" "$(sec "$(v "$1" result.elapsed_ns)")" "$(sec "$(v "$1" result.final_sync_ns)")" \
		"$(fc "$1" queue_depth_now)" "$(fc "$1" queue_depth_max)" "$7" \
		"$(mib "$(fc "$1" capacity)")" "$(bound_elps "$1")" >>"$SUMMARY"
}

run="--threads 32 --pattern rows --duration 5s --write-fraction 100%"
for lat in $E5W_LAT; do
	fnblkctl dev set fnblk0 bw "$STORE_BW" latency "$lat" overhead "$STORE_OVERHEAD" \
		>/dev/null || { echo "cannot set the store"; exit 1; }
	pfx=e5w-$lat
	# shellcheck disable=SC2086 # $run is an option list
	mx "$pfx-mmap-random" $DEV --mode mmap --advise random $run
	row "$pfx-mmap-random" "$lat" "mmap random" -
	for f in "" fixed-depth; do
		name=$pfx-fnmap${f:+-$f}
		# shellcheck disable=SC2086
		mx "$name" $DEV --mode fnmap $run ${f:+--fnmap-flags $f}
		row "$name" "$lat" "fnmap${f:+ $f}" \
			"$(ratio "$(durable_elps "$name")" "$(durable_elps "$pfx-mmap-random")")"
	done
	tail -n 3 "$SUMMARY"
done
cat "$SUMMARY"
