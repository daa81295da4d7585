# SPDX-License-Identifier: GPL-2.0
#
# Experiment 6: buffered checkpoints (write + fsync) through the page
# cache, with each job in its own cgroup, counted by the module per
# process (key tgid) or per cgroup (key cgroup). Writeback that the
# flusher or a kworker submits is not the job's own process: under tgid
# those bytes belong to kernel threads and the module's n stops being
# "how many jobs write"; under cgroup the bio carries the job's cgroup.
# O_DIRECT under tgid is the reference where every byte is the job's.

SUMMARY=$RESULTS/6-page-cache-key.summary
BW=32
{
	echo "# experiment 6: 4 jobs, T = 1s, S = 8MiB, B = ${BW}MiB/s, 6 cycles, each job in its own cgroup"
	echo "# users/peak_n/mean_n/kthread: the device's view; fleet_n: mean concurrent checkpoint"
	echo "# writes from the fleet's own events; slowdown: mean write over 250ms (alone)"
	printf '%-31s %6s %9s %12s %14s %8s %8s %10s\n' case users peak_n write_MiB kthread_MiB \
		mean_n fleet_n slowdown
} >"$SUMMARY"

# A value from fnblkctl -j output, whether it is one object or a list.
jget() { # file key
	fnblkctl json "$2" <"$1" 2>/dev/null || fnblkctl json "0.$2" <"$1" 2>/dev/null
}

# With the kernel's default dirty thresholds (10% of memory before
# background writeback) an 8 MiB checkpoint stays dirty until its fsync,
# and fsync writes it back from the job's own process. "lowdirty" starts
# the flusher at 1 MiB and throttles writers at 4 MiB, so most of the
# writeback is submitted by kernel threads while the jobs write.
set_dirty() { # background_bytes limit_bytes (0 0: the ratios again)
	if [ "$1" = 0 ]; then
		echo 10 >/proc/sys/vm/dirty_background_ratio
		echo 20 >/proc/sys/vm/dirty_ratio
	else
		echo "$1" >/proc/sys/vm/dirty_background_bytes
		echo "$2" >/proc/sys/vm/dirty_bytes
	fi
}

for spec in "direct tgid 0" "buffered tgid 0" "buffered cgroup 0" \
	    "buffered tgid 1" "buffered cgroup 1" "direct cgroup 0"; do
	set -- $spec
	name=cache-$1-$2
	if [ "$3" = 1 ]; then
		name=$name-lowdirty
		set_dirty 1048576 4194304
	else
		set_dirty 0 0
	fi
	load_fnblk bw_mbps=$BW fn=constant policy=anon key=$2
	fnblkctl stats reset fnblk0
	run_fleet $name --jobs 4 --compute 1s --size 8MiB --cycles 6 --phases stagger \
		--period 1s --path $1 --cgroup fnblk-exp6 --solo-time 250ms || exit 1
	fnblkctl stats fnblk0 >"$RESULTS/$name.stats"
	fnblkctl -j stats fnblk0 >"$RESULTS/$name.stats.json"
	fnblkctl users fnblk0 >"$RESULTS/$name.users"
	s=$RESULTS/$name.stats.json
	users=$(jget "$s" nr_users)
	peak=$(jget "$s" peak_active)
	wb=$(jget "$s" write_bytes)
	kb=$(jget "$s" kthread_bytes)
	mean=$(jget "$s" summary.mean_n)
	fleet_n=$(awk '/^window/ { print $NF }' "$RESULTS/$name.txt")
	slow=$(awk '/^write cost per job/ { on = 1; next } on && $1 ~ /^[0-9]+$/ { s += $5; n++ }
		END { if (n) printf "%.3f", s / n }' "$RESULTS/$name.txt")
	printf '%-31s %6s %9s %12s %14s %8.3f %8s %10s\n' $name "$users" "$peak" \
		$(awk -v b="$wb" 'BEGIN { printf "%.1f", b / 1048576 }') \
		$(awk -v b="$kb" 'BEGIN { printf "%.1f", b / 1048576 }') "$mean" "$fleet_n" "$slow" \
		>>"$SUMMARY"
done
set_dirty 0 0
cat "$SUMMARY"
