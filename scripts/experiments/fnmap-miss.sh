# SPDX-License-Identifier: GPL-2.0
#
# What one fnmap miss costs at queue depth 1 in the guest (about 2
# minutes): userspace/fnmap/tests/bench_miss (one thread, one word of
# every 64 KiB block in a random order, no prefetch, no eviction) on ext4
# on the matrix experiments' store, with every read handed to a channel
# thread (the default) and with the fault threads submitting their own
# demand reads (FNMAP_FLAGS=direct), twice each, alternating.
#include matrix-common.sh
bench=/opt/kselftest/fnblk/vmtests/tests/bench_miss
[ -x "$bench" ] || { echo "no $bench: build userspace/fnmap first"; exit 1; }
SIZE_MB=128
load_fnblk bw_mbps=0
mkfs="mkfs.ext4 -F"
command -v mkfs.ext4 >/dev/null || mkfs=mke2fs
mnt=/tmp/fnmap-miss
mkdir -p $mnt
$mkfs -q $DEV >/dev/null 2>&1 && mount -t ext4 $DEV $mnt || { echo "cannot mount $DEV"; exit 1; }
store_on
{
	conditions
	for flags in "" direct "" direct; do
		say "bench_miss 32 3, FNMAP_FLAGS=${flags:-(none)}"
		(
			if [ -n "$flags" ]; then
				export FNMAP_FLAGS=$flags
			else
				unset FNMAP_FLAGS
			fi
			FNMAP_TEST_DIR=$mnt "$bench" 32 3
		) || echo "bench_miss failed"
	done
} 2>&1 | tee "$RESULTS/fnmap-miss.summary"
umount $mnt
