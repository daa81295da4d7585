# SPDX-License-Identifier: GPL-2.0
#
# Matrix experiment 1: request size. One thread reads a 64 MiB matrix
# (131072 x 64 doubles: a column is 1 MiB) on the emulated remote store:
# sequentially (column sweep) and at random (whole columns drawn at
# random, --pattern tiles --block 131072x1), 16 MiB per run, through
#   direct  O_DIRECT, one request per --bs (4 KiB .. 1 MiB)
#   pread   pread of --bs blocks through the page cache
#   mmap    faults, with each --advise
# and records what the device saw: request sizes, mean size. The paper
# (umap, OSDI 2026, sec. 2.2): direct I/O ~3x from 4 KiB to 64 KiB,
# mmap flat. Last, the same runs with the store off: the CPU's ceiling.
#include matrix-common.sh

SUMMARY=$RESULTS/matrix-1-request-size-$KV.summary
SIZE_MB=128
load_fnblk bw_mbps=0
fnblk-matrix create $DEV --rows 131072 --cols 64 -q || { echo "create failed"; exit 1; }
store_on
{
	echo "# matrix experiment 1: request size, 1 thread, 16 MiB of a 64 MiB matrix per run"
	conditions
	echo "# MiB/s: matrix bytes read / run time; p50: per access (1 MiB column);"
	echo "# reqs, mean: the device's reads; sizes: share of reads by size (%); cpu: worker on a CPU"
	printf '%-5s %-7s %-10s %8s %9s %7s %8s %5s  %s\n' order mode setting MiB/s p50_ms reqs mean_KiB cpu% sizes
} >"$SUMMARY"

row() { # name order mode setting
	printf '%-5s %-7s %-10s %8s %9s %7s %8s %5s  %s\n' "$2" "$3" "$4" \
		"$(mibps "$(v "$1" result.bytes_per_s)")" \
		"$(ms "$(v "$1" result.latency.p50_ns)")" \
		"$(v "$1" device.io.read_ops)" \
		"$(kib "$(v "$1" device.io.mean_read_bytes)")" \
		"$(pct "$(v "$1" result.delay_shares.cpu)")" \
		"$(sizes "$1" read)" >>"$SUMMARY"
}

one_pass() { # prefix
	for order in seq rand; do
		if [ $order = seq ]; then pat="--pattern cols"; else pat="--pattern tiles --block 131072x1"; fi
		for bs in 4KiB 16KiB 64KiB 256KiB 1MiB; do
			for mode in direct pread; do
				mx "$1-$order-$mode-$bs" $DEV --mode $mode --bs $bs $pat --accesses 16
				row "$1-$order-$mode-$bs" $order $mode "bs=$bs"
			done
		done
		for adv in normal random sequential; do
			mx "$1-$order-mmap-$adv" $DEV --mode mmap --advise $adv $pat --accesses 16
			row "$1-$order-mmap-$adv" $order mmap "$adv"
		done
	done
}

one_pass e1
# The ceiling: the CPU alone (no bandwidth, latency or overhead).
store_off
echo "# store off: the guest CPU's ceiling for the same runs (4 KiB and 1 MiB, mmap random)" >>"$SUMMARY"
for bs in 4KiB 1MiB; do
	mx "e1-ceiling-direct-$bs" $DEV --mode direct --bs $bs --pattern cols --accesses 16
	row "e1-ceiling-direct-$bs" seq direct "bs=$bs"
done
mx e1-ceiling-mmap-random $DEV --mode mmap --advise random --pattern cols --accesses 16
row e1-ceiling-mmap-random seq mmap random
cat "$SUMMARY"
