#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# fnmap (userspace/fnmap, fnmap(3)) on the kernel under test, on fnblk:
#  1. what userfaultfd offers here (fnblk-fnmap), per kernel;
#  2. libfnmap's own suite (reads under every pattern, writes and syncs,
#     eviction stress, two-process consistency, bad arguments) and the
#     LD_PRELOAD shim's (mapcat | md5sum, fio's mmap engine, the limits)
#     on ext4 on an fnblk device with a remote store's latency;
#  3. data written through fnmap are on the device for a reader that is
#     not fnmap, after a fresh mount (a file) and on a raw device;
#  4. unprivileged users: user-mode-only faults (a system call on an
#     unfilled part gets EFAULT), /dev/userfaultfd, the sysctl;
#  5. memory pressure: under memory.max, a budget above the limit shrinks
#     while another process takes memory, grows back when it leaves, and
#     nothing is OOM-killed.
# TAP; exits 1 on failure, 4 to skip.

lib=$(dirname "$0")/lib_tap.sh
[ -f "$lib" ] || lib=/opt/kselftest/fnblk/lib_tap.sh
. "$lib"

here=$(cd "$(dirname "$0")" && pwd)
fm=$here/vmtests
[ -x "$fm/tests/test_read" ] || fm=/opt/kselftest/fnblk/vmtests
[ -x "$fm/tests/test_read" ] || skip_all "libfnmap's tests are not built (userspace/fnmap)"
command -v fio >/dev/null || skip_all "no fio"
TMP=$(mktemp -d /tmp/fnmap_test.XXXXXX)
MNT=$TMP/mnt
CG=/sys/fs/cgroup/fnmap_test

cleanup() {
	[ -d "$CG" ] && rmdir "$CG" 2>/dev/null
	umount "$MNT" 2>/dev/null
	if [ $failed -ne 0 ] && [ -d /results ]; then
		mkdir -p /results/fnmap_test && cp -r "$TMP"/*.out /results/fnmap_test/ 2>/dev/null
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

# fold NAME COMMAND...: a TAP producer's results, one by one, as ours.
fold() {
	name=$1
	shift
	"$@" >"$TMP/$name.out" 2>&1
	rc=$?
	bad=0
	while IFS= read -r line; do
		case $line in
		"not ok "*)
			bad=1
			not_ok "$name: ${line#not ok * - }" ;;
		"ok "*"# SKIP"*)
			d=${line#ok * - }
			skip "$name: ${d%%# SKIP*}" "${d#*# SKIP }" ;;
		"ok "*)
			ok "$name: ${line#ok * - }" ;;
		"1..0 # SKIP"*)
			skip "$name" "${line#1..0 # SKIP }" ;;
		esac
	done <"$TMP/$name.out"
	if [ $rc -ne 0 ] && [ $bad -eq 0 ]; then
		not_ok "$name: exited $rc" "$(tail -n 3 "$TMP/$name.out" | tr '\n' ' ')"
	fi
}

# value KEY FILE: "KEY value" lines of helper_reader.
value() { sed -n "s/^$1 //p" "$2"; }

# 1. What the kernel offers.
kv=$(uname -r | sed 's/^\([0-9]*\.[0-9]*\).*/\1/')
fnblk-fnmap "$MNT" >"$TMP/probe.out" 2>&1
check "fnblk-fnmap: fnmap can run here" [ $? -eq 0 ]
check "fnblk-fnmap: O_DIRECT on ext4 on fnblk" grep -q "O_DIRECT on .*: yes" "$TMP/probe.out"
src=$(fnblk-fnmap -j | fnblkctl json source)
check_eq "root gets userfaultfd from the system call" "$src" syscall
feats=$(sed -n 's/^features: *//p' "$TMP/probe.out")
echo "# $(uname -r): $feats"
for f in thread-id wp; do
	case " $feats " in
	*" $f "*) ok "features: $f (needed)" ;;
	*) not_ok "features: $f (needed)" "$feats" ;;
	esac
done
case " $feats " in *" wp-async "*) async=yes ;; *) async=no ;; esac
case $kv in
6.1) check_eq "6.1: no asynchronous write protection" $async no ;;
*) check_eq "$kv: asynchronous write protection offered (not used)" $async yes ;;
esac

# 2. libfnmap's suite and the shim's, on ext4 on fnblk.
for t in test_policy test_args test_read test_write test_cache test_evict test_consistency; do
	fold "$t" env FNMAP_TEST_DIR="$MNT" "$fm/tests/$t"
done
fold test_shim env FNMAP_TEST_DIR="$MNT" "$fm/tests/test_shim.sh"

# 3. On the device for a reader that is not fnmap, after a fresh mount.
shim="$fm/fnmap-preload.so"
fio_args="--name=dur --size=24M --bs=4k --rw=randwrite --verify=md5 --verify_fatal=1"
LD_PRELOAD=$shim FNMAP_PATHS=$MNT fio $fio_args --filename="$MNT/dur" \
	--ioengine=mmap --do_verify=0 --output="$TMP/fio1.out" >/dev/null 2>&1
check "fresh mount: fio writes a file through the shim" [ $? -eq 0 ]
umount "$MNT" && mount -t ext4 /dev/fnblk0 "$MNT"
fio $fio_args --filename="$MNT/dur" --ioengine=psync --direct=1 --verify_only \
	--output="$TMP/fio2.out" >/dev/null 2>&1
check "fresh mount: O_DIRECT reads verify every block" [ $? -eq 0 ]
LD_PRELOAD=$shim FNMAP_PATHS=/dev/fnblk1 fio $fio_args --filename=/dev/fnblk1 \
	--ioengine=mmap --do_verify=0 --output="$TMP/fio3.out" >/dev/null 2>&1
check "raw device: fio writes /dev/fnblk1 through the shim" [ $? -eq 0 ]
echo 3 >/proc/sys/vm/drop_caches
fio $fio_args --filename=/dev/fnblk1 --ioengine=psync --direct=1 --verify_only \
	--output="$TMP/fio4.out" >/dev/null 2>&1
check "raw device: O_DIRECT reads verify every block" [ $? -eq 0 ]

# 4. Unprivileged users (uid 65534).
head -c $((8 << 20)) /dev/urandom >"$MNT/u.dat"
chmod 0644 "$MNT/u.dat"
want=$(md5sum <"$MNT/u.dat" | cut -d' ' -f1)
as_nobody() { "$fm/tests/helper_as_user" 65534 "$@"; }
mapcat() { # a run of mapcat under the shim as nobody: its md5sum
	as_nobody env LD_PRELOAD="$shim" FNMAP_PATHS="$MNT" \
		"$fm/tests/helper_mapcat" "$MNT/u.dat" 2>"$TMP/mapcat.err" | md5sum | cut -d' ' -f1
}
echo 0 >/proc/sys/vm/unprivileged_userfaultfd
chmod 0600 /dev/userfaultfd
check_eq "unprivileged, sysctl 0: user-mode faults only" \
	"$(as_nobody fnblk-fnmap -j | fnblkctl json source)" user-mode-only
as_nobody env FNMAP_BUDGET=16M "$fm/tests/helper_reader" -n "$MNT/u.dat" 1 2 \
	>"$TMP/nobody.out" 2>&1
check "user-mode-only: a program reading its mapping works" [ $? -eq 0 ]
got=$(mapcat)
check "user-mode-only: write(2) from an unfilled part fails (EFAULT)" \
	grep -q "Bad address" "$TMP/mapcat.err"
chmod 0666 /dev/userfaultfd
check_eq "unprivileged, /dev/userfaultfd open to all: it is used" \
	"$(as_nobody fnblk-fnmap -j | fnblkctl json source)" /dev/userfaultfd
check_eq "/dev/userfaultfd: mapcat | md5sum as nobody" "$(mapcat)" "$want"
chmod 0600 /dev/userfaultfd
echo 1 >/proc/sys/vm/unprivileged_userfaultfd
check_eq "unprivileged, sysctl 1: the system call" \
	"$(as_nobody fnblk-fnmap -j | fnblkctl json source)" syscall
check_eq "sysctl 1: mapcat | md5sum as nobody" "$(mapcat)" "$want"
echo 0 >/proc/sys/vm/unprivileged_userfaultfd

# 5. Memory pressure: a 256 MiB file read at random under memory.max 64M
# with a 512 MiB budget; a 40 MiB hog in the same group from 2 s to 5 s.
fio --name=p --filename="$MNT/p.dat" --size=256M --rw=write --bs=1M \
	--ioengine=psync --output=/dev/null >/dev/null 2>&1
mkdir "$CG" && echo 64M >"$CG/memory.max" || skip_all "no memory cgroup"
sh -c "echo \$\$ >$CG/cgroup.procs && exec env FNMAP_BUDGET=512M \
	$fm/tests/helper_reader -n $MNT/p.dat 8 4" >"$TMP/pressure.out" 2>&1 &
reader=$!
sleep 2
sh -c "echo \$\$ >$CG/cgroup.procs; exec $fm/tests/helper_hog 40 3" >"$TMP/hog.out" 2>&1
hog=$?
wait $reader
rc=$?
check "pressure: the reader finished (rc $rc)" [ $rc -eq 0 ]
check "pressure: the hog finished (rc $hog)" [ $hog -eq 0 ]
check_eq "pressure: no OOM kill" "$(sed -n 's/^oom_kill //p' "$CG/memory.events")" 0
budgets=$(sed -n 's/.*budget_now=\([0-9]*\).*/\1/p' "$TMP/pressure.out")
low=$(echo "$budgets" | sort -n | head -n1)
last=$(echo "$budgets" | tail -n1)
echo "# budget (MiB) over time: $(echo "$budgets" | awk '{ printf "%d ", $1 / 1048576 }')"
check "pressure: the budget came under the limit minus the hog (24 MiB): $((low >> 20)) MiB" \
	[ "$low" -le $((24 << 20)) ]
check "pressure: and grew back once the hog left: $((last >> 20)) MiB" \
	[ "$last" -ge $((low * 2)) ]
check "pressure: the cache stayed under the limit: $(($(value resident_max "$TMP/pressure.out") >> 20)) MiB" \
	[ "$(value resident_max "$TMP/pressure.out")" -le $((64 << 20)) ]
rmdir "$CG" 2>/dev/null

echo "1..$n"
[ $failed -eq 0 ]
