#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of scripts/cluster -M vm: one VM per host, each with its own
# kernel, page cache and nbd-client, linked to the storage VM by a qemu
# socket network (one virtio-net link per client, MAC 52:54:00:77:00:II
# on the storage side, 52:54:00:77:01:II on client II's).
#
#   cluster-vm.sh storage -n HOSTS [-e EXPORT] [-s SETTINGS] [-d D] [-j J] [-r R]
#       fnblk device, nbd-server, fnblk-clock serve; netem on its side of
#       each link; waits for "stop" on /dev/ttyS1 (scripts/cluster sends
#       it when every client VM has ended), then leaves the counters,
#       users and n(t) in /results.
#   cluster-vm.sh client -i I [-d D] [-j J] [-r R] -- FLEET-ARGS...
#       connects /dev/nbd0 to the storage VM, measures its clock offset
#       to the storage VM's before and after, runs the fleet; leaves
#       events.csv (with clock_offset_ns), fleet.json, fleet.err, rc.
# Exits non-zero if its part failed.

lib=/opt/kselftest/fnblk
[ -f "$lib/lib_cluster.sh" ] || { echo "cluster: no $lib/lib_cluster.sh in this guest"; exit 1; }
. "$lib/lib_tap.sh"	# wait_started
. "$lib/lib_cluster.sh"

role=$1
shift
hosts=1 me=0 settings="bw 32MiB/s" delay=0 jitter=0 rate=
while getopts "n:i:e:s:d:j:r:" opt; do
	case $opt in
	n) hosts=$OPTARG ;;
	i) me=$OPTARG ;;
	e) CLUSTER_EXPORT=$OPTARG ;;
	s) settings=$OPTARG ;;
	d) delay=$OPTARG ;;
	j) jitter=$OPTARG ;;
	r) rate=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ "${1:-}" = "--" ] && shift

out=/results
CLUSTER_DIR=$out/run
mkdir -p "$CLUSTER_DIR"
fail() { echo "cluster: $role: $*"; exit 1; }
mac() { printf '52:54:00:77:%02x:%02x' "$1" "$2"; }

# The link with MAC, up with ADDR; 0, or 1 after waiting 10 s for it.
link_up() { # mac addr
	i=0
	while ! l=$(cluster_link_by_mac "$1") && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	[ -n "$l" ] || { echo "cluster: no link with MAC $1"; return 1; }
	ip addr add "$2" dev "$l" && ip link set "$l" up && echo "$l"
}

modprobe -q virtio_net
ip link set lo up
case $role in
storage)
	i=0
	while [ $i -lt "$hosts" ]; do
		l=$(link_up "$(mac 0 $i)" "10.77.$i.1/24") || fail "link $i"
		cluster_netem "$l" "$delay" "$jitter" "$rate" || fail "netem on link $i"
		i=$((i + 1))
	done
	modprobe fnblk nr_devices=0 || fail "cannot load fnblk"
	# shellcheck disable=SC2086 # settings is a list of words
	dev=$(fnblkctl dev add size 1GiB $settings) || fail "fnblkctl dev add size 1GiB $settings failed"
	fnblkctl -j dev show "$dev" >"$out/dev.json"
	cluster_storage_start "/dev/$dev" || fail "nbd-server did not start"
	cp "$CLUSTER_DIR/nbd-server.conf" "$out/"
	fnblk-clock serve &
	clock=$!
	fnblkctl monitor "$dev" --csv >"$out/monitor.csv" 2>/dev/null &
	monitor=$!
	wait_started "$out/monitor.csv" $monitor || fail "fnblkctl monitor did not start"
	fnblkctl stats reset "$dev"
	echo "cluster: storage: /dev/$dev ($settings), export $CLUSTER_EXPORT, $hosts links: ready"
	# Wait for the host's word; the guest's own timeout ends a lost wait.
	stty -F /dev/ttyS1 -echo 2>/dev/null
	read -r word </dev/ttyS1
	echo "cluster: storage: $word"
	cluster_storage_collect "$dev" "$out"
	kill $monitor $clock 2>/dev/null
	fnblkctl stats "$dev"
	cluster_teardown
	;;
client)
	server=10.77.$me.1
	l=$(link_up "$(mac 1 "$me")" "10.77.$me.2/24") || fail "link"
	cluster_netem "$l" "$delay" "$jitter" "$rate" || fail "netem"
	# The storage VM may still be booting: wait up to 5 min for its clock.
	i=0
	while ! fnblk-clock offset -j -n 20 "$server" >"$out/clock-before.json" 2>/dev/null; do
		i=$((i + 1))
		[ $i -lt 150 ] || fail "no answer from the storage host $server"
		sleep 2
	done
	modprobe -q nbd nbds_max=4 || fail "cannot load nbd"
	# -t: a request unanswered for 2 min fails (a dead storage VM sends
	# no reset), so the fleet ends instead of hanging.
	nbd-client -N "$CLUSTER_NAME" "$server" "$CLUSTER_PORT" /dev/nbd0 -b 4096 -L -t 120 \
		>"$out/nbd-client.log" 2>&1 || { cat "$out/nbd-client.log"; fail "cannot connect /dev/nbd0"; }
	# %h in an argument is the host's number (--seed 1%h).
	for a in "$@"; do
		shift
		set -- "$@" "$(echo "$a" | sed "s/%h/$me/g")"
	done
	echo "cluster: host $me: /dev/nbd0 from $server; fnblk-fleet $*"
	fnblk-fleet -j --param host="$me" --param hosts="$hosts" "$@" -o "$out/events.csv" \
		/dev/nbd0 >"$out/fleet.json" 2>"$out/fleet.err"
	rc=$?
	echo $rc >"$out/rc"
	fnblk-clock offset -j -n 20 "$server" >"$out/clock-after.json" ||
		echo "cluster: host $me: no clock offset after the run"
	nbd-client -L -d /dev/nbd0 >/dev/null 2>&1
	# The storage clock is the run's: this host's times move by the mean
	# of the offsets before and after (the drift between them is kept).
	b=$(fnblkctl json offset_ns <"$out/clock-before.json")
	a=$(fnblkctl json offset_ns <"$out/clock-after.json" 2>/dev/null || echo "$b")
	if [ -f "$out/events.csv" ]; then
		sed -i "/^job,cycle,/i # param clock_offset_ns=$(((a + b) / 2))\\
# param clock_drift_ns=$((a - b))\\
# param clock_rtt_ns=$(fnblkctl json rtt_ns <"$out/clock-before.json")" "$out/events.csv"
	fi
	if [ $rc -ne 0 ]; then
		sed 's/^/  /' "$out/fleet.err"
		fail "fnblk-fleet exited $rc"
	fi
	echo "cluster: host $me: done (clock offset to storage $(((a + b) / 2)) ns, drift $((a - b)) ns)"
	;;
*)
	echo "cluster-vm.sh: role storage or client, not '$role'"
	exit 2
	;;
esac
