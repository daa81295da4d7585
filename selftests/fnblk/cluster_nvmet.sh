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
CFG=/sys/kernel/config/nvmet
TMP=$(mktemp -d /tmp/cluster_nvmet.XXXXXX)
CLUSTER_DIR=$TMP/cluster
dev=
cleanup() {
	for c in /sys/class/nvme/nvme*; do
		case $(cat "$c/subsysnqn" 2>/dev/null) in
		fnblk-host*) echo 1 >"$c/delete_controller" ;;
		esac
	done
	rm -f "$CFG"/ports/1/subsystems/* 2>/dev/null
	rmdir "$CFG/ports/1" 2>/dev/null
	for s in "$CFG"/subsystems/fnblk-host*; do
		[ -d "$s" ] || continue
		echo 0 >"$s/namespaces/1/enable" 2>/dev/null
		rmdir "$s/namespaces/1" "$s" 2>/dev/null
	done
	cluster_teardown
	if [ $failed -ne 0 ] && [ -d /results ]; then
		mkdir -p /results/cluster_nvmet && cp -r "$TMP"/* /results/cluster_nvmet/
	fi
	[ -n "$dev" ] && fnblkctl dev del "$dev" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
jget() { fnblkctl json "$1" <"$2"; }

dev=$(fnblkctl dev add size 128MiB bw ${BW_MIB}MiB/s fn constant key tgid policy anon) ||
	{ echo "1..0 # SKIP cannot add a fnblk device"; exit $KSFT_SKIP; }
# One subsystem per host (a shared one would be one multipath device),
# every one exporting the same fnblk device.
mkdir "$CFG/ports/1" &&
	echo tcp >"$CFG/ports/1/addr_trtype" &&
	echo ipv4 >"$CFG/ports/1/addr_adrfam" &&
	echo 0.0.0.0 >"$CFG/ports/1/addr_traddr" &&
	echo 4420 >"$CFG/ports/1/addr_trsvcid"
check "nvmet-tcp port 4420" [ $? -eq 0 ]
for i in 0 1 2; do
	s=$CFG/subsystems/fnblk-host$i
	mkdir "$s" && echo 1 >"$s/attr_allow_any_host" &&
		mkdir "$s/namespaces/1" &&
		echo "/dev/$dev" >"$s/namespaces/1/device_path" &&
		echo 1 >"$s/namespaces/1/enable" &&
		ln -s "$s" "$CFG/ports/1/subsystems/fnblk-host$i" || break
done
check "three subsystems export /dev/$dev" [ -L "$CFG/ports/1/subsystems/fnblk-host2" ]

# Each host connects from its namespace (the queue sockets are made in
# the writer's network namespace).
up=0
for i in 0 1 2; do
	cluster_client_add $i || break
	# A host id of its own: the fabrics layer refuses a host NQN that
	# comes with another host's id (EINVAL, "found same hostid").
	cluster_on $i sh -c "echo transport=tcp,traddr=10.77.$i.1,trsvcid=4420,nqn=fnblk-host$i,hostnqn=nqn.2026-12.fnblk:host$i,hostid=6e6f6e65-0000-4000-8000-00000000000$i >/dev/nvme-fabrics" &&
		up=$((up + 1))
done
check_eq "three hosts connected over NVMe/TCP" $up 3
# The namespace device of each host's controller.
i=0
while [ $i -lt 50 ]; do
	found=0
	for c in /sys/class/nvme/nvme*; do
		case $(cat "$c/subsysnqn" 2>/dev/null) in
		fnblk-host*) [ -n "$(ls -d "$c"/nvme*n1 2>/dev/null)" ] && found=$((found + 1)) ;;
		esac
	done
	[ $found -ge 3 ] && break
	sleep 0.2
	i=$((i + 1))
done
: >"$TMP/devs"
for c in /sys/class/nvme/nvme*; do
	h=$(cat "$c/subsysnqn" 2>/dev/null)
	case $h in
	fnblk-host*)
		n=$(ls -d "$c"/nvme*n1 2>/dev/null | head -1)
		n=${n##*/}
		# With native multipath the controller's path is nvmeScCnN,
		# hidden; its disk is the subsystem's nvmeSnN.
		case $n in
		nvme*c*n*) n=$(echo "$n" | sed 's/c[0-9]*n/n/') ;;
		esac
		[ -n "$n" ] && [ -b "/dev/$n" ] && echo "${h#fnblk-host} /dev/$n" >>"$TMP/devs" ;;
	esac
done
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
# Users that wrote: key, kernel thread or not, bytes.
: >"$TMP/writers"
k=0
while [ $k -lt "$(jget '#' "$TMP/users.json")" ]; do
	w=$(jget $k.write_bytes "$TMP/users.json")
	[ "${w:-0}" -gt 0 ] &&
		echo "$(jget $k.key "$TMP/users.json") $(jget $k.kthread "$TMP/users.json") $w" >>"$TMP/writers"
	k=$((k + 1))
done
sed 's/^/# writer (key kthread bytes): /' "$TMP/writers"
echo "# nvmet-tcp: written $written, peak n $peak"
check_eq "the hosts' bytes all arrived" "$written" $((3 * SIZE_MIB << 20))
check "every byte came from one kernel-thread user (the target's workers)" \
	awk 'END { exit !(NR == 1 && $2 == "true") }' "$TMP/writers"
check_eq "n never counted the hosts: one user" "$peak" 1

echo "1..$n"
[ $failed -eq 0 ]
