#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Power loss under ext4 on an fnblk device with a volatile write cache:
# files written and fsync'ed before the crash are all there afterwards
# (remount, checksums), a file written without fsync just before the crash
# is lost, and e2fsck finds the file system clean. Needs mkfs.ext4 and
# e2fsck (the test VM has them). Prints TAP.

lib=$(dirname "$0")/lib_tap.sh
[ -f "$lib" ] || lib=/opt/kselftest/fnblk/lib_tap.sh
. "$lib"

command -v fnblkctl >/dev/null || skip_all "fnblkctl not installed"
command -v mkfs.ext4 >/dev/null && command -v e2fsck >/dev/null ||
	skip_all "no mkfs.ext4/e2fsck"
[ -d /sys/module/fnblk ] || modprobe fnblk 2>/dev/null ||
	skip_all "cannot load fnblk"
grep -qw ext4 /proc/filesystems || modprobe ext4 2>/dev/null ||
	skip_all "no ext4"

echo "TAP version 13"
tmp=$(mktemp -d)
mnt=$tmp/mnt
mkdir -p "$mnt"
dev=
cleanup() {
	umount "$mnt" 2>/dev/null
	[ -n "$dev" ] && fnblkctl dev del "$dev" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

dev=$(fnblkctl dev add size 256MiB bw 0 cache volatile) ||
	{ not_ok "add a device with a volatile cache"; echo "1..$n"; exit 1; }
ok "add $dev with a volatile cache"
check "mkfs.ext4" mkfs.ext4 -q -F /dev/"$dev"
check "mount" mount -t ext4 /dev/"$dev" "$mnt"

# Files made durable one by one: each fsync'ed (dd conv=fsync).
i=1
while [ $i -le 12 ]; do
	dd if=/dev/urandom of="$mnt/synced.$i" bs=16k count=$((i * 3)) \
		conv=fsync 2>/dev/null
	i=$((i + 1))
done
(cd "$mnt" && sha256sum synced.*) >"$tmp/synced.sum"
check_eq "12 files written and fsync'ed" "$(wc -l <"$tmp/synced.sum")" 12
# One more, not flushed, just before the power goes.
dd if=/dev/urandom of="$mnt/unsynced" bs=64k count=16 2>/dev/null
(cd "$mnt" && sha256sum unsynced) >"$tmp/unsynced.sum"

check "crash $dev" fnblkctl dev crash "$dev"
if dd if=/dev/zero of=/dev/"$dev" bs=4k count=1 seek=60000 conv=fsync \
	2>/dev/null; then
	not_ok "the crashed device refuses I/O while mounted"
else
	ok "the crashed device refuses I/O while mounted"
fi
# Unmounting closes the device; its writes fail and are lost, as they would be.
umount "$mnt" 2>/dev/null || umount -l "$mnt"
check "mount again after the crash (journal replay)" \
	mount -t ext4 /dev/"$dev" "$mnt"
if (cd "$mnt" && sha256sum -c "$tmp/synced.sum" >"$tmp/check.out" 2>&1); then
	ok "every fsync'ed file survived, checksums equal"
else
	not_ok "every fsync'ed file survived, checksums equal" \
		"$(grep -v ': OK' "$tmp/check.out" | head -n 3)"
fi
if (cd "$mnt" && sha256sum -c "$tmp/unsynced.sum" >/dev/null 2>&1); then
	not_ok "the file not flushed before the crash was lost" \
		"it is complete"
else
	ok "the file not flushed before the crash was lost ($(ls "$mnt/unsynced" 2>/dev/null || echo absent))"
fi
check "umount" umount "$mnt"
if e2fsck -fn /dev/"$dev" >"$tmp/fsck.out" 2>&1; then
	ok "e2fsck finds the file system clean"
else
	not_ok "e2fsck finds the file system clean" "$(tail -n 3 "$tmp/fsck.out")"
fi
lost=$(fnblkctl -j stats "$dev" | fnblkctl json crash_lost_bytes)
crashes=$(fnblkctl -j stats "$dev" | fnblkctl json crashes)
check_eq "stats count one crash" "$crashes" 1
check "stats count the bytes lost ($lost)" test "${lost:-0}" -gt 0

echo "1..$n"
[ "$failed" -eq 0 ]
