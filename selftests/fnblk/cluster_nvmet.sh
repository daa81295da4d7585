#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# What a kernel target does to "one host, one user" (Documentation/
# cluster.rst): three client hosts (network namespaces, lib_cluster.sh)
# write at once to one fnblk device exported by the kernel's NVMe/TCP
# target (nvmet-tcp), each through its own subsystem and controller. The
# target submits from its kernel workers, so the device sees one
# kernel-thread user for every host: n stays 1 and every byte written is
# a kernel thread's. Prints TAP; skips where nvmet-tcp is missing.

dir=$(dirname "$0")
[ -f "$dir/lib_tap.sh" ] || dir=/opt/kselftest/fnblk
. "$dir/lib_tap.sh"
. "$dir/lib_cluster.sh"

for tool in fnblkctl ip; do
	command -v $tool >/dev/null || skip_all "$tool not installed"
done
# Before 6.8 (upstream 07a29b134ce8, "nvmet-tcp: avoid circular locking
# dependency on install_queue()", not in 6.1's stable series), the target
# flushes its teardown workqueue from a queue's I/O work, and lockdep
# reports it when the hosts disconnect ("possible circular locking
# dependency", io_work -> nvmet-wq -> release_work, no fnblk frame). The
# report switches lockdep off for the rest of the boot, so every later
# test would run unchecked: on such a kernel with lockdep (the fnblk debug
# kernel) the test skips.
if [ -e /proc/lockdep ]; then
	kv=$(uname -r)
	kmaj=${kv%%.*}
	kmin=${kv#*.}
	kmin=${kmin%%[!0-9]*}
	if [ "$kmaj" -lt 6 ] || { [ "$kmaj" -eq 6 ] && [ "$kmin" -lt 8 ]; }; then
		skip_all "lockdep is on and nvmet-tcp before 6.8 has its own lockdep report at teardown (upstream 07a29b134ce8), which would switch lockdep off for every later test"
	fi
fi
[ -d /sys/module/fnblk ] || modprobe fnblk nr_devices=0 2>/dev/null ||
	skip_all "cannot load fnblk"
modprobe -q nvmet-tcp 2>/dev/null && modprobe -q nvme-tcp 2>/dev/null ||
	skip_all "no nvmet-tcp or nvme-tcp module"
[ -d /sys/kernel/config/nvmet ] || skip_all "no nvmet configfs"
[ -c /dev/nvme-fabrics ] || skip_all "no /dev/nvme-fabrics"
modprobe -q veth 2>/dev/null

echo "TAP version 13"
BW_MIB=12
SIZE_MIB=8
cluster_test_begin cluster_nvmet $BW_MIB
check "nvmet-tcp exports /dev/$dev to three subsystems on port 4420" \
	cluster_nvmet_export "/dev/$dev" 3

# Each host connects from its namespace.
up=0
for i in 0 1 2; do
	cluster_client_add $i && cluster_nvmet_connect $i && up=$((up + 1))
done
check_eq "three hosts connected over NVMe/TCP" $up 3
# The namespace device of each host's controller.
i=0
while [ "$(cluster_nvmet_devs | wc -l)" -lt 3 ] && [ $i -lt 50 ]; do
	sleep 0.2
	i=$((i + 1))
done
cluster_nvmet_devs >"$TMP/devs"
sed 's/^/# host, device: /' "$TMP/devs"
check_eq "each host has its namespace device" "$(wc -l <"$TMP/devs")" 3

fnblkctl stats reset "$dev"
while read -r h d; do
	cluster_on "$h" dd if=/dev/urandom of="$d" bs=1M count=$SIZE_MIB oflag=direct \
		2>"$TMP/dd.$h" &
done <"$TMP/devs"
wait
fnblkctl -j stats "$dev" >"$TMP/stats.json"
fnblkctl -j users "$dev" >"$TMP/users.json"
written=$(jget write_bytes "$TMP/stats.json")
peak=$(jget peak_active "$TMP/stats.json")
cluster_writers "$TMP/users.json" >"$TMP/writers"
sed 's/^/# writer (key kthread bytes): /' "$TMP/writers"
echo "# nvmet-tcp: written $written, peak n $peak"
check_eq "the hosts' bytes all arrived" "$written" $((3 * SIZE_MIB << 20))
check "every byte came from one kernel-thread user (the target's workers)" \
	awk 'END { exit !(NR == 1 && $2 == "true") }' "$TMP/writers"
check_eq "n never counted the hosts: one user" "$peak" 1

echo "1..$n"
[ $failed -eq 0 ]
