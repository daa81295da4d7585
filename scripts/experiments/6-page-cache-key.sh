# SPDX-License-Identifier: GPL-2.0
#
# Experiment 6: buffered checkpoints (write + fsync) through the page
# cache, each job in its own cgroup, counted by the module per process
# (key tgid) or per cgroup (key cgroup). Writeback that the flusher
# submits does not come from the job's process: under tgid those bytes
# belong to one kernel-thread user and the module's n stops counting jobs;
# under cgroup the bio carries the cgroup of the page's owner. Also: all
# jobs writing one raw device share its page cache, so one job's fsync
# writes back and waits for everyone's dirty pages. O_DIRECT under tgid
# is the reference where every byte is the job's own.
#
# Fleet: 4 jobs, T = 1s, S = 8MiB at 32MiB/s (250ms alone), write starts
# 200ms apart (stagger over 800ms), 8 cycles.

SUMMARY=$RESULTS/6-page-cache-key.summary
BW=32
SIZE_MB=256
MNT=/mnt/ckpt
{
	echo "# experiment 6: 4 jobs, T = 1s, S = 8MiB, B = ${BW}MiB/s, starts 200ms apart, 8 cycles,"
	echo "# each job in its own cgroup. raw: /dev/fnblk0 regions; ext2: a file per job."
	echo "# users/kthread/mean_n: the device's view (fnblkctl stats); fleet_n: mean concurrent"
	echo "# checkpoint writes from the fleet's events; slowdown: mean write over 250ms;"
	echo "# r: Kuramoto r, first and last cycle (1 = synchronous)"
	printf '%-34s %5s %12s %7s %7s %9s %6s %6s\n' case users kthread_MiB mean_n fleet_n slowdown r0 r_end
} >"$SUMMARY"

# With the kernel's default dirty thresholds (10% of memory before
# background writeback) an 8 MiB checkpoint stays dirty until its fsync,
# which writes it back from the job's own process. "lowdirty" starts the
# flusher at 1 MiB and throttles writers at 4 MiB, so most writeback is
# submitted by kernel threads while the jobs write.
set_dirty() { # background_bytes limit_bytes (0 0: the default ratios)
	if [ "$1" = 0 ]; then
		echo 10 >/proc/sys/vm/dirty_background_ratio
		echo 20 >/proc/sys/vm/dirty_ratio
	else
		echo "$1" >/proc/sys/vm/dirty_background_bytes
		echo "$2" >/proc/sys/vm/dirty_bytes
	fi
}

# A value from fnblkctl -j output, whether it is one object or a list.
jget() { # file key
	fnblkctl json "$2" <"$1" 2>/dev/null || fnblkctl json "0.$2" <"$1" 2>/dev/null
}

for spec in "raw direct tgid 0" "raw buffered tgid 0" "raw buffered cgroup 0" \
	    "ext2 buffered tgid 0" "ext2 buffered tgid 1" "ext2 buffered cgroup 1"; do
	set -- $spec
	name=cache-$1-$2-$3
	[ "$4" = 1 ] && name=$name-lowdirty
	if [ "$4" = 1 ]; then set_dirty 1048576 4194304; else set_dirty 0 0; fi
	load_fnblk bw_mbps=$BW fn=constant policy=anon key=$3
	target=/dev/fnblk0
	if [ $1 = ext2 ]; then
		mke2fs -q /dev/fnblk0 >/dev/null && mkdir -p $MNT &&
			mount -t ext2 /dev/fnblk0 $MNT || { echo "no ext2 on fnblk0"; exit 1; }
		target="--dir $MNT"
	fi
	fnblkctl stats reset fnblk0
	say "fleet $name"
	fnblk-fleet -q -o "$RESULTS/$name.csv" --jobs 4 --compute 1s --size 8MiB \
		--cycles 8 --phases stagger --period 800ms --path $2 --cgroup fnblk-exp6 \
		--solo-time 250ms $target || exit 1
	fnblkctl stats fnblk0 >"$RESULTS/$name.stats"
	fnblkctl -j stats fnblk0 >"$RESULTS/$name.stats.json"
	fnblkctl users fnblk0 >"$RESULTS/$name.users"
	[ $1 = ext2 ] && umount $MNT
	fnblk-analyze "$RESULTS/$name.csv" >"$RESULTS/$name.txt" || exit 1
	s=$RESULTS/$name.stats.json
	users=$(jget "$s" nr_users)
	kb=$(jget "$s" kthread_bytes)
	mean=$(jget "$s" summary.mean_n)
	t=$RESULTS/$name.txt
	fleet_n=$(awk '/^window/ { print $NF }' "$t")
	slow=$(awk '/^write cost per job/ { on = 1; next } on && $1 ~ /^[0-9]+$/ { s += $8; n++ }
		END { if (n) printf "%.3f", s / n }' "$t")
	r0=$(pick "$t" '^  r:' | awk '{ print $2 }')
	r1=$(pick "$t" '^  r:' | awk '{ print $NF }')
	printf '%-34s %5s %12s %7.3f %7s %9s %6s %6s\n' $name "$users" \
		$(awk -v b="$kb" 'BEGIN { printf "%.1f", b / 1048576 }') "$mean" "$fleet_n" \
		"$slow" "$r0" "$r1" >>"$SUMMARY"
done
set_dirty 0 0
cat "$SUMMARY"
