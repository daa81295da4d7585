#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs inside the test VM (scripts/bench): every benchmark of
# Documentation/benchmarks.rst, fnblk next to brd and null_blk, in one boot.
# Arguments: the largest n of the share benchmark, the largest N of the cost
# benchmark, and the benchmarks to run (default: all of share sync qd
# latency iops cost; qdfio, fio's side of qd in detail, only when named).
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
		echo "# unthrottled 4 KiB random writes, QD1 direct, turns of 50 writes for 12 s, 10th percentile of the time per write; fnblk: bw 0, grace 1 s (its user active throughout)"
		modprobe brd rd_nr=1 rd_size=262144
		modprobe null_blk nr_devices=1 queue_mode=2 memory_backed=1 gb=1
		fnblk-bench iops fnblk /dev/ram0 /dev/nullb0
		rmmod brd null_blk ;;
	cost)
		fnblk-bench cost "$cost_n" ;;
	qdfio)
		# fio's QD16 (libaio) job beside its QD1 (psync) job as
		# "fnblk-bench qd fnblk" runs them (32 MiB/s, f constant), with
		# each job's bytes and runtime from fio's JSON and its
		# one-second bandwidth log: the QD16 job writes on alone after
		# the QD1 job stops (Documentation/benchmarks.rst).
		echo "# fio QD16 beside QD1 on fnblk, 32 MiB/s: each job's io_bytes, job_runtime (ms), and bandwidth log (KiB/s per second)"
		for bs in 1048576 65536; do
			for st in memory none; do
				fnblkctl dev add fnblk20 size 512M bw 32MiB/s fn constant store "$st" >/dev/null
				echo "== bs $bs store $st"
				rm -rf /tmp/qdfio && mkdir /tmp/qdfio
				(cd /tmp/qdfio && fio --output-format=json --direct=1 \
					--rw=write --time_based --runtime=8 --ramp_time=2 \
					--write_bw_log=bw --log_avg_msec=1000 \
					--filename=/dev/fnblk20 --bs="$bs" --size=64M \
					--name=qd16 --ioengine=libaio --iodepth=16 --offset=0 \
					--name=qd1 --ioengine=psync --offset=64M >fio.json)
				fnblkctl dev del fnblk20
				cp /tmp/qdfio/fio.json "/results/qdfio-$bs-$st.json"
				grep -E '"(jobname|io_bytes|job_runtime)"' /tmp/qdfio/fio.json |
					grep -v '"io_bytes" : 0,'
				for f in /tmp/qdfio/bw_*.log; do
					echo "-- $(basename "$f")"
					cat "$f"
				done
			done
		done ;;
	*)
		echo "bench.sh: unknown benchmark $part" >&2
		exit 2 ;;
	esac
done
