# SPDX-License-Identifier: GPL-2.0
#
# fnmap experiment 5, capacity: what paces fnmap's writes on a slow store.
# Experiment 5 deep's 64 ms write runs (32 threads updating random rows
# for 5 s, then one sync; fnmap with 16 channels of depth 32) with the
# cache as lazy growth leaves it (before 1.4 a sixteenth of the budget:
# no reuse, so no growth; since 1.4 it grows while fills wait for dirty
# evictions' write-back), with the whole budget from the start
# (no-growth), and the same without write-allocate, beside mmap random
# and fnmap with its defaults (4 channels probing their depth since 1.4).
# About 3 minutes.
#include matrix-common.sh
#include fnmap-common.sh

SUMMARY=$RESULTS/fnmap-5-capacity-$KV.summary
DEEP="--fnmap-channels 16 --fnmap-qd 32"
big_matrix
fnblkctl dev set fnblk0 bw "$STORE_BW" latency 64ms overhead "$STORE_OVERHEAD" \
	>/dev/null || { echo "cannot set the store"; exit 1; }
{
	echo "# fnmap experiment 5, capacity: 32 threads updating random rows, 64 ms a request, 5 s + sync"
	conditions
	echo "# store here: bw $STORE_BW overhead $STORE_OVERHEAD latency 64ms"
	echo "# el/s: elements updated and made durable per second; x_rnd: over mmap random;"
	echo "# run_s, sync_s: the run and the final sync; dirty_ev: evictions of dirty blocks;"
	echo "# cap_MiB: the cache's capacity at the end; held_s: time fills waited for room"
	echo "# that dirty evictions held (held_ns, since 1.4)"
	printf '%-24s %6s %5s %6s %6s %8s %7s %6s\n' mode el/s x_rnd run_s sync_s dirty_ev cap_MiB held_s
} >"$SUMMARY"

row() { # name mode x_rnd
	printf '%-24s %6s %5s %6s %6s %8s %7s %6s\n' "$2" "$(durable_elps "$1")" "$3" \
		"$(sec "$(v "$1" result.elapsed_ns)")" "$(sec "$(v "$1" result.final_sync_ns)")" \
		"$(fc "$1" evictions_dirty)" "$(mib "$(fc "$1" capacity)")" \
		"$(sec "$(fc "$1" held_ns)")" >>"$SUMMARY"
}

run="--threads 32 --pattern rows --duration 5s --write-fraction 100%"
# shellcheck disable=SC2086 # $run and $DEEP are option lists
mx e5c-mmap-random $DEV --mode mmap --advise random $run
row e5c-mmap-random "mmap random" -
# shellcheck disable=SC2086
mx e5c-fnmap $DEV --mode fnmap $run
row e5c-fnmap "fnmap" "$(ratio "$(durable_elps e5c-fnmap)" "$(durable_elps e5c-mmap-random)")"
for f in "" no-growth no-growth,no-write-alloc; do
	name=e5c-deep${f:+-$(echo $f | tr , -)}
	# shellcheck disable=SC2086
	mx "$name" $DEV --mode fnmap $run $DEEP ${f:+--fnmap-flags $f}
	row "$name" "fnmap deep${f:+ $f}" \
		"$(ratio "$(durable_elps "$name")" "$(durable_elps e5c-mmap-random)")"
done
cat "$SUMMARY"
