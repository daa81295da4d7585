#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The environment every fnblk selftest relies on: cgroup v2 with the io,
# memory and cpu controllers delegated, a writable /results that reaches
# the host, working modprobe, and fio moving real data through a block
# device (brd) and back. Prints TAP; exits 1 if any check fails.

# TAP helpers; a copy run alone in the test VM finds the installed ones.
lib=$(dirname "$0")/lib_tap.sh
[ -f "$lib" ] || lib=/opt/kselftest/fnblk/lib_tap.sh
. "$lib"

total=8

cgroup2_mounted() {
	grep -q '^cgroup2 /sys/fs/cgroup cgroup2 ' /proc/mounts
}

controllers_delegated() {
	ctl=$(cat /sys/fs/cgroup/cgroup.subtree_control) || return 1
	for c in io memory cpu; do
		case " $ctl " in
		*" $c "*) ;;
		*) echo "# $c missing from subtree_control: '$ctl'"; return 1 ;;
		esac
	done
}

results_writable() {
	[ -d /results ] || { echo "# no /results directory"; return 1; }
	echo "vm_env_test $$" >/results/vm_env_test.txt &&
		[ "$(cat /results/vm_env_test.txt)" = "vm_env_test $$" ]
}

# A virtio entropy device (ID 4) must have its driver bound: otherwise the
# kernel's random pool is seeded only tens of seconds after boot, in the
# middle of the tests (scripts/mkinitramfs, GUEST_MODULES). A machine
# without one passes.
virtio_rng_bound() {
	for d in /sys/bus/virtio/devices/*; do
		[ "$(cat "$d/device" 2>/dev/null)" = 0x0004 ] || continue
		drv=$(readlink "$d/driver") ||
			{ echo "# $(basename "$d") is a virtio entropy device with no driver"; return 1; }
		[ "$(basename "$drv")" = virtio_rng ] ||
			{ echo "# $(basename "$d") is bound to $(basename "$drv")"; return 1; }
	done
	return 0
}

# A ram disk of 32 MiB: fio writes it with checksummed blocks, then reads
# it back and verifies every block.
brd_loaded() {
	[ -b /dev/ram0 ] && return 0
	modprobe brd rd_nr=1 rd_size=32768 && [ -b /dev/ram0 ]
}

fio_round_trip() {
	fio --name=roundtrip --filename=/dev/ram0 --rw=write --bs=64k \
		--size=32m --direct=1 --ioengine=psync --verify=crc32c \
		--do_verify=1 --verify_fatal=1 --output=/tmp/fio-roundtrip.txt ||
		{ cat /tmp/fio-roundtrip.txt; return 1; }
}

# Bytes written with dd must read back identical, independently of fio.
dd_round_trip() {
	dd if=/dev/urandom of=/tmp/pattern bs=1M count=4 2>/dev/null &&
		dd if=/tmp/pattern of=/dev/ram0 bs=1M oflag=direct 2>/dev/null &&
		dd if=/dev/ram0 of=/tmp/readback bs=1M count=4 iflag=direct 2>/dev/null &&
		cmp /tmp/pattern /tmp/readback
}

null_blk_read() {
	[ -b /dev/nullb0 ] || modprobe null_blk nr_devices=1 gb=1 || return 1
	fio --name=nullread --filename=/dev/nullb0 --rw=randread --bs=4k \
		--size=16m --direct=1 --ioengine=psync \
		--output=/tmp/fio-null.txt ||
		{ cat /tmp/fio-null.txt; return 1; }
}

echo "TAP version 13"
echo "1..$total"

if [ "$(id -u)" -ne 0 ]; then
	echo "# needs root"
	exit $KSFT_SKIP
fi

check "cgroup2 mounted at /sys/fs/cgroup" cgroup2_mounted
check "io, memory and cpu controllers enabled for children" controllers_delegated
check "/results is writable" results_writable
check "a virtio entropy device has its driver" virtio_rng_bound
check "brd ram disk loads via modprobe" brd_loaded
if [ -b /dev/ram0 ]; then
	check "fio writes and verifies 32 MiB on brd" fio_round_trip
	check "dd data round-trips through brd" dd_round_trip
else
	skip "fio writes and verifies 32 MiB on brd" "no /dev/ram0"
	skip "dd data round-trips through brd" "no /dev/ram0"
fi
check "fio reads from null_blk" null_blk_read

[ "$failed" -eq 0 ]
