#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of scripts/cluster, namespace mode: one fnblk device exported
# by nbd-server, N client hosts as network namespaces (lib_cluster.sh),
# the same fnblk-fleet on each against its /dev/nbdI. Leaves in /results:
#   cluster.env            the run's settings
#   storage/               dev.json (the device), stats.json and users.json
#                          after the run, monitor.csv (n(t)), servers (the
#                          serving processes), nbd-server.conf
#   hostI/                 events.csv, fleet.json (summary), fleet.err, rc
# Exits 1 if a host's fleet failed (naming it), 2 on bad arguments.
#
# usage: cluster.sh -n HOSTS [-e sync|buffered] [-s "DEV SETTINGS"]
#                   [-d DELAYS] [-j JITTERS] [-r RATES] -- FLEET-ARGS...
# DELAYS, JITTERS, RATES: comma lists, one value per host, the last one
# repeating (1ms,5ms: host 0 1ms, hosts 1.. 5ms).

lib=/opt/kselftest/fnblk
[ -f "$lib/lib_cluster.sh" ] || { echo "cluster: no $lib/lib_cluster.sh in this guest"; exit 1; }
. "$lib/lib_tap.sh"	# wait_started
. "$lib/lib_cluster.sh"

hosts=3 settings="bw 32MiB/s" delays=0 jitters=0 rates=
while getopts "n:e:s:d:j:r:" opt; do
	case $opt in
	n) hosts=$OPTARG ;;
	e) CLUSTER_EXPORT=$OPTARG ;;
	s) settings=$OPTARG ;;
	d) delays=$OPTARG ;;
	j) jitters=$OPTARG ;;
	r) rates=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ "${1:-}" = "--" ] && shift

# The I-th value of a comma list, the last one repeating.
nth() { # list i
	echo "$1" | awk -F, -v i="$2" '{ print (i < NF ? $(i + 1) : $NF) }'
}

out=/results
mkdir -p "$out/storage"
CLUSTER_DIR=$out/storage/run
fail() { echo "cluster: $*"; exit 1; }

modprobe fnblk nr_devices=0 || fail "cannot load fnblk"
# The hosts' links: without veth, "ip link add ... type veth" fails
# ("Unknown device type"), as the first run did.
modprobe -q veth || fail "cannot load veth"
# shellcheck disable=SC2086 # settings is a list of words
dev=$(fnblkctl dev add size 1GiB $settings) || fail "fnblkctl dev add size 1GiB $settings failed"
fnblkctl -j dev show "$dev" >"$out/storage/dev.json"
cluster_storage_start "/dev/$dev" || fail "nbd-server did not start"
cp "$CLUSTER_DIR/nbd-server.conf" "$out/storage/"
i=0
while [ $i -lt "$hosts" ]; do
	cluster_client_add $i "$(nth "$delays" $i)" "$(nth "$jitters" $i)" "$(nth "$rates" $i)" ||
		fail "cannot set up host $i"
	cluster_client_connect $i || fail "host $i cannot connect"
	i=$((i + 1))
done
{
	echo "hosts=$hosts"
	echo "export=$CLUSTER_EXPORT"
	echo "device=$dev $settings"
	echo "delays=$delays jitters=$jitters rates=$rates"
	echo "fleet=$*"
	echo "kernel=$(uname -r) cpus=$(nproc)"
} >"$out/cluster.env"

p=$(cluster_fleet_params "$out/storage/dev.json") || fail "cannot read the device's settings"
params=$p

fnblkctl monitor "$dev" --csv >"$out/storage/monitor.csv" 2>/dev/null &
monitor=$!
wait_started "$out/storage/monitor.csv" $monitor || fail "fnblkctl monitor did not start"
fnblkctl stats reset "$dev"
echo "cluster: $hosts hosts on /dev/$dev ($settings), export $CLUSTER_EXPORT: fnblk-fleet $*"
# shellcheck disable=SC2086 # params is a list of words
cluster_run_fleets "$hosts" "$out" $params "$@"
cluster_storage_collect "$dev" "$out/storage"
kill $monitor 2>/dev/null
fnblkctl stats "$dev"

bad=
i=0
while [ $i -lt "$hosts" ]; do
	rc=$(cat "$out/host$i/rc")
	if [ "$rc" -ne 0 ]; then
		bad="$bad $i"
		echo "cluster: host $i: fnblk-fleet exited $rc:"
		sed 's/^/  /' "$out/host$i/fleet.err"
	fi
	i=$((i + 1))
done
cluster_teardown
[ -z "$bad" ] || fail "host(s)$bad failed"
echo "cluster: every host's fleet completed"
