# SPDX-License-Identifier: GPL-2.0
#
# Matrix experiment 4: writes. Four threads update elements of random
# tiles (256 rows x 16 columns: 16 runs of 2 KiB) of a 64 MiB matrix on
# the emulated remote store, 1% or 100% of the elements they read, and
# sync every 10 accesses that wrote (msync for mmap, fsync otherwise):
#   mmap            stores into a shared mapping; dirty pages reach the
#                   device by write-back (the flusher) or msync
#   pread, direct   read-modify-write of --bs blocks (4 KiB and 64 KiB)
# once with the matrix on the raw device (the block device's own page
# cache) and once as a file on ext4 (the file system's write-back). Per
# run: throughput, how long syncs block (p50, p99, max) and the final
# sync, the device's write requests and their sizes, the largest dirty
# and writeback page cache seen, and the workers' time in dirty
# throttling and waiting for write-back (sampled stacks). Every update is
# verified after the final sync by reading it back with O_DIRECT.
#include matrix-common.sh

SUMMARY=$RESULTS/matrix-4-writes-$KV.summary
SIZE_MB=192
MNT=/mnt/matrix
load_fnblk bw_mbps=0
{
	echo "# matrix experiment 4: 4 threads update random 256x16 tiles, sync every 10 accesses, 200 accesses"
	conditions
	echo "# vm.dirty_background_ratio $(cat /proc/sys/vm/dirty_background_ratio), vm.dirty_ratio $(cat /proc/sys/vm/dirty_ratio), dirty_expire $(cat /proc/sys/vm/dirty_expire_centisecs)cs"
	echo "# MiB/s: matrix bytes touched / time; sync p50/p99/max and final (ms);"
	echo "# wr: device write requests, mean KiB, sizes (%); dirty/wb: largest file_dirty and"
	echo "# file_writeback seen (MiB); waits: the workers' sampled wait classes (%); lost: updates"
	echo "# read back from the device that were not there"
	printf '%-4s %-4s %-7s %-6s %7s %7s %7s %7s %7s %6s %6s %5s %5s %4s  %-24s %s\n' on F mode bs MiB/s \
		sync50 sync99 syncmax final wr wr_KiB dirty wb lost sizes waits
} >"$SUMMARY"

series_max() { # name key: largest value of a memory series, MiB
	v "$1" "memory.series.$2" | tr -d '[]' | tr ',' '\n' |
		awk '$1 > m { m = $1 } END { printf "%.1f", m / 1048576 }'
}

row() { # name on F mode bs
	printf '%-4s %-4s %-7s %-6s %7s %7s %7s %7s %7s %6s %6s %5s %5s %4s  %-24s %s\n' "$2" "$3" "$4" "$5" \
		"$(mibps "$(v "$1" result.bytes_per_s)")" \
		"$(ms "$(v "$1" result.sync_latency.p50_ns)")" \
		"$(ms "$(v "$1" result.sync_latency.p99_ns)")" \
		"$(ms "$(v "$1" result.sync_latency.max_ns)")" \
		"$(ms "$(v "$1" result.final_sync_ns)")" \
		"$(v "$1" device.io.write_ops)" \
		"$(kib "$(v "$1" device.io.mean_write_bytes)")" \
		"$(series_max "$1" file_dirty)" "$(series_max "$1" file_writeback)" \
		"$(v "$1" result.durable_lost)" \
		"$(sizes "$1" write)" "$(wait_classes "$1")" >>"$SUMMARY"
}

for on in raw ext4; do
	store_off
	if [ $on = raw ]; then
		path=$DEV
	else
		mkfs.ext4 -q -F $DEV >/dev/null && mkdir -p $MNT && mount -t ext4 $DEV $MNT ||
			{ echo "no ext4 on $DEV"; exit 1; }
		path=$MNT/matrix.fbm
	fi
	fnblk-matrix create $path --rows 16384 --cols 512 -q || { echo "create failed"; exit 1; }
	store_on
	for f in 1% 100%; do
		for m in "mmap -" "pread 4KiB" "pread 64KiB" "direct 4KiB" "direct 64KiB"; do
			set -- $m
			mode=$1 bs=$2
			args="--mode $mode"
			[ "$bs" = - ] || args="$args --bs $bs"
			name="e4-$on-${f%\%}-$mode-$bs"
			mx "$name" $path $args --pattern tiles --block 256x16 --threads 4 \
				--accesses 200 --write-fraction $f --sync-every 10 --verify
			row "$name" $on "$f" $mode "$bs"
		done
	done
done
umount $MNT
cat "$SUMMARY"
