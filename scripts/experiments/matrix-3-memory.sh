# SPDX-License-Identifier: GPL-2.0
#
# Matrix experiment 3: memory. Four jobs, each sweeping its own matrix
# (a file on ext4 on the emulated remote store) three times, under one
# parent cgroup with memory.max = 64 MiB; the matrices total 0.25x to 4x
# that limit. mmap keeps what it read in the page cache, charged to each
# job's group, until the limit makes the kernel reclaim; pread goes
# through the same cache; O_DIRECT keeps nothing. Per run: completion
# time, the parent's memory (peak, mean over the run), memory.events,
# reclaim and refaults, memory pressure, the bytes read from the device
# (a pass that fits in the cache reads nothing again) and OOM kills.
# mmap with 10% of the elements updated adds dirty pages, which reclaim
# cannot drop before they are written back. The paper: mmap sits near
# 100 % of the limit and its completion time collapses past it.
#include matrix-common.sh

SUMMARY=$RESULTS/matrix-3-memory-$KV.summary
SERIES=$RESULTS/matrix-3-memory-series-$KV.txt
MAX_MIB=64
MNT=/mnt/matrix
SIZE_MB=448
load_fnblk bw_mbps=0
mkfs.ext4 -q -F $DEV >/dev/null && mkdir -p $MNT && mount -t ext4 $DEV $MNT ||
	{ echo "no ext4 on $DEV"; exit 1; }
{
	echo "# matrix experiment 3: 4 jobs, 3 column sweeps each, parent memory.max ${MAX_MIB} MiB"
	conditions
	echo "# x: the matrices' total over memory.max; time: slowest job; peak, mean: the parent's"
	echo "# memory.current (MiB); high/max/oom_kill: memory.events; scan/steal: pages; refault:"
	echo "# file refaults; read: MiB read from the device (3 sweeps of the total if nothing stays);"
	echo "# mem: memory.pressure some share; exit: how the jobs ended"
	printf '%-5s %-11s %7s %6s %6s %5s %6s %4s %8s %8s %7s %7s %5s  %s\n' x mode time_s \
		peak mean high max oom scan steal refault read_MiB mem% exit
} >"$SUMMARY"
: >"$SERIES"

# The mean of the parent's memory.current samples (MiB).
mean_current() {
	v "$1" memory.series.current | tr -d '[]' | tr ',' '\n' |
		awk '{ s += $1; n++ } END { if (n) printf "%.1f", s / n / 1048576; else print "-" }'
}

# How the jobs ended: "ok" or the distinct exits, counted.
exits() {
	for j in 0 1 2 3; do v "$1" jobs.$j.exit; done | sort | uniq -c |
		awk '{ c = $1; $1 = ""; sub(/^ /, ""); if ($0 == "exit status 0") $0 = "ok";
		       printf "%s%s%s", sep, c == 4 ? "" : c "x ", $0; sep = "; " } END { print "" }'
}

row() { # name x mode
	printf '%-5s %-11s %7s %6s %6s %5s %6s %4s %8s %8s %7s %7s %5s  %s\n' "$2" "$3" \
		"$(sec "$(v "$1" result.elapsed_ns)")" \
		"$(mib "$(v "$1" memory.peak)")" "$(mean_current "$1")" \
		"$(v "$1" memory.events.high)" "$(v "$1" memory.events.max)" \
		"$(v "$1" memory.events.oom_kill)" \
		"$(v "$1" memory.counters.pgscan)" "$(v "$1" memory.counters.pgsteal)" \
		"$(v "$1" memory.counters.workingset_refault_file)" \
		"$(mib "$(v "$1" device.io.read_bytes)")" \
		"$(pct "$(v "$1" pressure.memory.some_share)")" "$(exits "$1")" >>"$SUMMARY"
	# memory.current over time, MiB, every 4th sample
	echo "$2 $3: s/MiB $({ v "$1" memory.series.t_ns; v "$1" memory.series.current; } |
		tr -d '[]' | awk 'NR == 1 { n = split($0, t, ",") }
			NR == 2 { split($0, c, ",")
				  for (i = 1; i <= n; i += 4) printf "%.1f/%.0f ", t[i] / 1e9, c[i] / 1048576 }')" >>"$SERIES"
}

for x in 0.25 0.5 1 2 4; do
	# four matrices of x * 16 MiB: 64 columns of x * 256 KiB
	rows=$(awk -v x=$x 'BEGIN { printf "%d", x * 32768 }')
	rm -rf $MNT/m
	mkdir $MNT/m
	store_off
	fnblk-matrix create $MNT/m --rows $rows --cols 64 --jobs 4 -q || { echo "create failed"; exit 1; }
	store_on
	for mode in mmap pread direct; do
		args="--mode $mode"
		[ $mode = direct ] && args="$args --bs 1MiB"
		[ $mode = pread ] && args="$args --bs 64KiB"
		mx "e3-$x-$mode" $MNT/m --jobs 4 --pattern cols --accesses 192 \
			--memory-max ${MAX_MIB}M --sample-interval 250ms $args
		row "e3-$x-$mode" $x $mode
	done
	if [ $x = 2 ] || [ $x = 4 ]; then
		mx "e3-$x-mmap-writes" $MNT/m --jobs 4 --pattern cols --accesses 192 \
			--memory-max ${MAX_MIB}M --sample-interval 250ms --mode mmap \
			--write-fraction 10%
		row "e3-$x-mmap-writes" $x mmap+writes
	fi
done
umount $MNT
cat "$SUMMARY" "$SERIES"
