#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs inside the test VM (scripts/bench): every benchmark of
# Documentation/benchmarks.rst, fnblk next to brd and null_blk, in one boot.
# Arguments: the largest n of the share benchmark, the largest N of the cost
# benchmark, and the benchmarks to run (default: all of share sync qd
# latency iops cost).
set -e
max_n=${1:-64}
cost_n=${2:-4096}
only=${3:-share sync qd latency iops cost}
out=/results/bench.txt
mkdir -p /results
exec > "$out" 2>&1
echo "# kernel $(uname -r), $(nproc) CPUs, clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource), $(date -u +%Y-%m-%dT%H:%MZ)"
modprobe fnblk nr_devices=0

for part in $only; do
	case $part in
	share)
		fnblk-bench share "$max_n" ;;
	sync)
		fnblk-bench sync ;;
	qd)
		echo "# share ratio: QD16 writer over QD1 writer, direct writes, 32 MiB/s"
		fnblk-bench qd fnblk
		modprobe null_blk nr_devices=1 queue_mode=2 memory_backed=1 mbps=32 gb=1
		fnblk-bench qd /dev/nullb0
		rmmod null_blk ;;
	latency)
		fnblk-bench latency ;;
	iops)
		echo "# unthrottled 4 KiB random writes, QD1 direct, turns of 50 writes for 12 s, 10th percentile of the time per write"
		modprobe brd rd_nr=1 rd_size=262144
		modprobe null_blk nr_devices=1 queue_mode=2 memory_backed=1 gb=1
		fnblk-bench iops fnblk /dev/ram0 /dev/nullb0
		rmmod brd null_blk ;;
	cost)
		fnblk-bench cost "$cost_n" ;;
	*)
		echo "bench.sh: unknown benchmark $part" >&2
		exit 2 ;;
	esac
done
