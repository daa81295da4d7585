#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# fnblk's tracepoints switched on and off, over and over, while two
# writers keep the device busy: every switch patches the code the writers
# run (static keys). The kernel must stay well and the data intact.
# Under qemu's multi-threaded TCG this killed the guest with "Oops: int3"
# within a second (scripts/vm runs TCG on one host thread since; see
# Documentation/build.rst). FNBLK_FLIPS sets the number of on-off pairs
# (default 100; the first killed the guest in a second). Prints TAP.

lib=$(dirname "$0")/lib_tap.sh
[ -f "$lib" ] || lib=/opt/kselftest/fnblk/lib_tap.sh
. "$lib"

events=/sys/kernel/tracing/events/fnblk/enable
flips=${FNBLK_FLIPS:-100}

load_fnblk nr_devices=0
[ -w $events ] || skip_all "no fnblk events in /sys/kernel/tracing"
dev=$(fnblkctl dev add size 16MiB bw 32MiB/s latency 200us) ||
	skip_all "fnblkctl dev add failed"
i=0
while [ ! -b /dev/$dev ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done

tmp=$(mktemp -d)
cleanup() {
	echo 0 >$events 2>/dev/null
	touch "$tmp/stop"
	wait
	fnblkctl dev del $dev 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
dmesg_before=$(dmesg | wc -l)

# Each writer rewrites its own 2 MiB with a pattern of its own until told
# to stop, so what is on the device at the end is known.
head -c 2097152 /dev/urandom >"$tmp/p1"
head -c 2097152 /dev/urandom >"$tmp/p2"
for w in 1 2; do
	(
		while [ ! -e "$tmp/stop" ]; do
			dd if="$tmp/p$w" of=/dev/$dev bs=64k seek=$((w * 64)) \
				oflag=direct conv=notrunc 2>/dev/null ||
				{ echo "writer $w: dd failed" >"$tmp/err$w"; break; }
		done
	) &
done

start=$(date +%s)
i=0
while [ $i -lt "$flips" ]; do
	echo 1 >$events && echo 0 >$events || break
	i=$((i + 1))
done
echo "# $i on-off pairs in $(($(date +%s) - start)) s under two writers"
touch "$tmp/stop"
wait
check_eq "every switch of the fnblk events took" $i "$flips"
check "the writers never failed" sh -c "! cat '$tmp'/err* 2>/dev/null | grep ."
for w in 1 2; do
	check "writer $w's data reads back intact" sh -c \
		"dd if=/dev/$dev bs=64k skip=$((w * 64)) count=32 iflag=direct \
		 2>/dev/null | cmp -s - '$tmp/p$w'"
done
check "no oops, BUG or WARNING in the kernel log" sh -c \
	"! dmesg | tail -n +$((dmesg_before + 1)) | grep -E 'Oops|BUG|WARNING|Call Trace'"
echo "1..$n"
[ "$failed" -eq 0 ]
