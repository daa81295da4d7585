#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs inside the test VM (scripts/bench-ab appends the modules to a copy
# of this script): several builds of fnblk.ko loaded in turn in one boot,
# ROUNDS times, and in each load fnblk (bw 0) and brd take turns of 50
# QD1 4 KiB random direct writes for SECONDS (fnblk-bench iops). The
# host's noise falls on every module alike.
# Arguments: ROUNDS SECONDS LABEL... (LABEL.ko each, in the payload).
set -eu
rounds=$1
secs=$2
shift 2
out=/results/bench-ab.txt
mkdir -p /results /tmp/ab
exec > "$out" 2>&1
cd /tmp/ab
sed '1,/^__PAYLOAD__$/d' "$0" | base64 -d | tar -xzf -
echo "# kernel $(uname -r), $(nproc) CPUs, clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource), $(date -u +%Y-%m-%dT%H:%MZ)"
echo "# unthrottled 4 KiB random writes, QD1 direct, fnblk (grace 1 s) and /dev/ram0 taking turns of 50 writes for $secs s per load, 10th percentile of the time per write"
modprobe brd rd_nr=1 rd_size=262144
rmmod fnblk 2>/dev/null || true
r=1
while [ "$r" -le "$rounds" ]; do
	for m in "$@"; do
		echo "module=$m round=$r"
		FNBLK_KO=/tmp/ab/$m.ko fnblk-bench --iops-time "${secs}s" iops fnblk /dev/ram0
		rmmod fnblk
	done
	r=$((r + 1))
done
exit 0
