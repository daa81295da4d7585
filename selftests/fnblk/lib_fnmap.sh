# SPDX-License-Identifier: GPL-2.0
#
# Set-up shared by the fnmap selftests (fnmap_test.sh, fnmap_suite.sh),
# sourced after lib_tap.sh: libfnmap's tests ($fm), fnblk with two
# devices of a remote store's latency, ext4 (or ext2) on /dev/fnblk0 at
# $MNT open to all, and a cleanup trap.

here=$(cd "$(dirname "$0")" && pwd)
fm=$here/vmtests
[ -x "$fm/tests/test_read" ] || fm=/opt/kselftest/fnblk/vmtests
[ -x "$fm/tests/test_read" ] || skip_all "libfnmap's tests are not built (userspace/fnmap)"
command -v fio >/dev/null || skip_all "no fio"
TMP=$(mktemp -d /tmp/fnmap_test.XXXXXX)
chmod 0755 "$TMP"	# unprivileged users reach $MNT through it
MNT=$TMP/mnt
CG=/sys/fs/cgroup/fnmap_test

cleanup() {
	[ -d "$CG" ] && rmdir "$CG" 2>/dev/null
	umount "$MNT" 2>/dev/null
	if [ $failed -ne 0 ] && [ -d /results ]; then
		r=/results/$(basename "$0" .sh)
		mkdir -p "$r" && cp -r "$TMP"/*.out "$r"/ 2>/dev/null
	fi
	chmod 0600 /dev/userfaultfd 2>/dev/null
	echo 0 >/proc/sys/vm/unprivileged_userfaultfd
	rmmod fnblk 2>/dev/null
	rm -rf "$TMP"
}

if [ -e /sys/module/fnblk ] && ! rmmod fnblk 2>/dev/null; then
	skip_all "fnblk is loaded and busy"
fi
args="nr_devices=2 size_mb=320 bw_mbps=0"
if [ -n "${FNBLK_KO:-}" ]; then insmod "$FNBLK_KO" $args; else modprobe fnblk $args; fi ||
	skip_all "cannot load fnblk"
trap cleanup EXIT
i=0
while [ ! -b /dev/fnblk1 ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
# A remote store's round trip on every request; bandwidth is left
# unlimited so that the tests run at the guest CPU's pace.
fnblkctl dev set fnblk0 latency 100us >/dev/null
fnblkctl dev set fnblk1 latency 100us >/dev/null
mkdir -p "$MNT"
# mkfs.ext4 where the guest has it, else busybox's mke2fs (ext2); the
# ext4 driver mounts either.
mkfs="mkfs.ext4 -F"
command -v mkfs.ext4 >/dev/null || mkfs=mke2fs
$mkfs -q /dev/fnblk0 >/dev/null 2>&1 && mount -t ext4 /dev/fnblk0 "$MNT" ||
	skip_all "cannot make a file system on /dev/fnblk0 ($mkfs)"
echo "# file system: $mkfs, mounted by the ext4 driver"
chmod 1777 "$MNT"
