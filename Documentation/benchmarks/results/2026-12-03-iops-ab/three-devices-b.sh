#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# 6.1: fnblk/brd in fnblk-bench iops with three devices (as scripts/bench)
# and with two (as scripts/bench-ab), with the default grace (2 ms) and with
# 20 ms, counting fnblk's activations (fnblkctl monitor) in each run.
out=/results/three-devices-6.1-b.txt
mkdir -p /results
exec > "$out" 2>&1
echo "# $(uname -r) $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource) $(date -u +%H:%M:%S)"
modprobe brd rd_nr=1 rd_size=262144
modprobe null_blk nr_devices=1 queue_mode=2 memory_backed=1 gb=1
for r in 1 2; do
	for g in 2000 20000; do
		modprobe fnblk nr_devices=0 grace_us=$g
		for set in "fnblk /dev/ram0 /dev/nullb0" "fnblk /dev/ram0"; do
			echo "== round $r grace_us=$g: iops $set"
			fnblkctl monitor --csv > /tmp/mon.csv 2>/dev/null &
			mon=$!
			sleep 1
			fnblk-bench --iops-time 6s iops $set
			kill $mon; wait $mon 2>/dev/null
			echo "activations: $(grep -c ',active,' /tmp/mon.csv) (monitor rows $(wc -l < /tmp/mon.csv))"
		done
		rmmod fnblk
	done
done
head -5 /tmp/mon.csv
echo "# end $(date -u +%H:%M:%S)"
