#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# 6.1: fnblk's activations and fnblk/brd in fnblk-bench iops with three
# devices (as scripts/bench) and with two (as scripts/bench-ab), one boot.
out=/results/three-devices-6.1-a.txt
mkdir -p /results
exec > "$out" 2>&1
echo "# $(uname -r) $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource) $(date -u +%H:%M:%S)"
modprobe fnblk nr_devices=0
modprobe brd rd_nr=1 rd_size=262144
modprobe null_blk nr_devices=1 queue_mode=2 memory_backed=1 gb=1
for r in 1 2; do
	for set in "fnblk /dev/ram0 /dev/nullb0" "fnblk /dev/ram0"; do
		echo "== round $r: iops $set"
		fnblk-bench --iops-time 6s iops $set
		fnblkctl stats fnblk20 | grep -i "activ\|write\|grace\|elapsed" || true
	done
done
echo "# end $(date -u +%H:%M:%S)"
