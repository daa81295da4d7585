# SPDX-License-Identifier: GPL-2.0
#
# fnmap experiment 2: memory. Matrix experiment 3 with fnmap: four jobs,
# each sweeping its own matrix (a file on ext4 on the emulated remote
# store) three times, under one parent cgroup with memory.max = 64 MiB;
# the matrices total 0.25x to 4x that limit. Each job's runtime takes a
# quarter of what its cgroup has left as its budget, and shrinks it under
# the cgroup's memory pressure. mmap is run alongside for the same boot.
# At 2x and 4x, 10% of the elements are also updated (dirty pages that
# must be written before they can go). Targets (issue 13): no OOM kill,
# memory within the runtime's budget, completion time flat past the limit.
# A wrapper may run some of the sizes in a boot of its own: E2_SIZES
# (default "0.25 0.5 1 2 4"); E2_READS=0 skips the read-only runs;
# E2_WRITE_MODES (default "mmap fnmap") names the runs with updates, a
# mode with runtime flags as fnmap:FLAGS (e.g. fnmap:no-twins).
#include matrix-common.sh
#include fnmap-common.sh

SUMMARY=$RESULTS/fnmap-2-memory-$KV.summary
SERIES=$RESULTS/fnmap-2-memory-series-$KV.txt
MAX_MIB=64
MNT=/mnt/matrix
SIZE_MB=448
load_fnblk bw_mbps=0
mkfs="mkfs.ext4 -F"
command -v mkfs.ext4 >/dev/null || mkfs=mke2fs
$mkfs -q $DEV >/dev/null && mkdir -p $MNT && mount -t ext4 $DEV $MNT ||
	{ echo "no file system on $DEV"; exit 1; }
{
	echo "# fnmap experiment 2: 4 jobs, 3 column sweeps each, parent memory.max ${MAX_MIB} MiB"
	conditions
	echo "# file system: made by ${mkfs%% *}, mounted as ext4"
	echo "# x: the matrices' total over memory.max; time: slowest job; peak, mean: the parent's"
	echo "# memory.current (MiB); high/max/oom: memory.events; budget: the jobs' budgets at the"
	echo "# start, summed, and at the end (MiB); res: the jobs' largest cache, summed (MiB); cuts:"
	echo "# budget cuts under pressure, summed; read: MiB read from the device; exit: how jobs ended"
	printf '%-5s %-12s %7s %6s %6s %5s %5s %4s %7s %7s %6s %5s %8s  %s\n' x mode time_s \
		peak mean high max oom budget0 budget1 res cuts read_MiB exit
} >"$SUMMARY"
: >"$SERIES"

mean_current() {
	v "$1" memory.series.current | tr -d '[]' | tr ',' '\n' |
		awk '{ s += $1; n++ } END { if (n) printf "%.1f", s / n / 1048576; else print "-" }'
}

# jobs_sum NAME KEY: KEY of every job's report, summed, in MiB (or a count with "n").
jobs_sum() { # name key [n]
	for j in 0 1 2 3; do v "$1" "jobs.$j.$2"; done |
		awk -v n="${3:-}" '$1 != "-" && $1 != "null" { s += $1; k++ }
			END { if (!k) print "-"; else if (n) print s; else printf "%.1f", s / 1048576 }'
}

exits() {
	for j in 0 1 2 3; do v "$1" jobs.$j.exit; done | sort | uniq -c |
		awk '{ c = $1; $1 = ""; sub(/^ /, ""); if ($0 == "exit status 0") $0 = "ok";
		       printf "%s%s%s", sep, c == 4 ? "" : c "x ", $0; sep = "; " } END { print "" }'
}

row() { # name x mode
	if [ "$(v "$1" jobs.0.mode.name)" = fnmap ]; then
		b0=$(jobs_sum "$1" mode.settings.budget) b1=$(jobs_sum "$1" mode.counters.budget_now)
		res=$(jobs_sum "$1" mode.counters.resident_max) cuts=$(jobs_sum "$1" mode.counters.shrinks n)
	else
		b0=- b1=- res=- cuts=-
	fi
	printf '%-5s %-12s %7s %6s %6s %5s %5s %4s %7s %7s %6s %5s %8s  %s\n' "$2" "$3" \
		"$(sec "$(v "$1" result.elapsed_ns)")" \
		"$(mib "$(v "$1" memory.peak)")" "$(mean_current "$1")" \
		"$(v "$1" memory.events.high)" "$(v "$1" memory.events.max)" \
		"$(v "$1" memory.events.oom_kill)" "$b0" "$b1" "$res" "$cuts" \
		"$(mib "$(v "$1" device.io.read_bytes)")" "$(exits "$1")" >>"$SUMMARY"
	# also on the console: a boot stopped before its end keeps the rows so far
	tail -n 1 "$SUMMARY"
	echo "$2 $3: s/MiB $({ v "$1" memory.series.t_ns; v "$1" memory.series.current; } |
		tr -d '[]' | awk 'NR == 1 { n = split($0, t, ",") }
			NR == 2 { split($0, c, ",")
				  for (i = 1; i <= n; i += 4) printf "%.1f/%.0f ", t[i] / 1e9, c[i] / 1048576 }')" >>"$SERIES"
}

for x in ${E2_SIZES:-0.25 0.5 1 2 4}; do
	# four matrices of x * 16 MiB: 64 columns of x * 256 KiB
	rows=$(awk -v x=$x 'BEGIN { printf "%d", x * 32768 }')
	rm -rf $MNT/m
	mkdir $MNT/m
	store_off
	fnblk-matrix create $MNT/m --rows $rows --cols 64 --jobs 4 -q || { echo "create failed"; exit 1; }
	store_on
	for mode in mmap fnmap; do
		[ "${E2_READS:-1}" = 1 ] || break
		mx "e2-$x-$mode" $MNT/m --jobs 4 --pattern cols --accesses 192 \
			--memory-max ${MAX_MIB}M --sample-interval 250ms --mode $mode
		row "e2-$x-$mode" $x $mode
	done
	if [ $x = 2 ] || [ $x = 4 ]; then
		for wm in ${E2_WRITE_MODES:-mmap fnmap}; do
			mode=${wm%%:*} flags=${wm#"${wm%%:*}"}
			flags=${flags#:}
			mx "e2-$x-$mode${flags:+-$flags}-writes" $MNT/m --jobs 4 --pattern cols \
				--accesses 192 --memory-max ${MAX_MIB}M --sample-interval 250ms \
				--mode $mode ${flags:+--fnmap-flags $flags} --write-fraction 10%
			row "e2-$x-$mode${flags:+-$flags}-writes" $x "$mode${flags:+:$flags}+writes"
		done
	fi
done
umount $MNT
cat "$SUMMARY" "$SERIES"
