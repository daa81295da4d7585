#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# lib_cluster.sh finds the storage host's serving nbd-server processes
# (the listener's children) even when some other process ends while they
# are looked for: its /proc/PID/stat is listed, then gone when read (a
# dangling link in the stand-in /proc here). cluster_ns.sh counts them.
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
. "$src/selftests/fnblk/lib_tap.sh"
. "$src/selftests/fnblk/lib_cluster.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
CLUSTER_DIR=$tmp
CLUSTER_PROC=$tmp/proc
echo 10 >"$CLUSTER_DIR/nbd-server.pid"
process() { # pid comm ppid
	mkdir -p "$CLUSTER_PROC/$1"
	echo "$1 ($2) S $3 1 1 0 -1 4194304" >"$CLUSTER_PROC/$1/stat"
}
process 1 init 0
process 10 nbd-server 1
process 11 nbd-server 10
process 12 sh 10
process 13 nbd-server 1
process 300 nbd-server 10

echo "TAP version 13"
check_eq "the listener's nbd-server children, not its other children or other servers" \
	"$(cluster_server_children | tr '\n' ' ')" "11 300 "
mkdir "$CLUSTER_PROC/200"
ln -s gone "$CLUSTER_PROC/200/stat"
check_eq "the same while process 200 ends between the listing and the read" \
	"$(cluster_server_children | tr '\n' ' ')" "11 300 "
rm -f "$CLUSTER_DIR/nbd-server.pid"
check_eq "no listener, no children" "$(cluster_server_children | wc -l)" 0

# A trace as tracefs prints it. Share 2 MiB/s: 4 KiB in 1,953,125 ns.
S=1953125
dep() { # dev key leave service [n]
	echo "  nbd-server-$2  [000] .....  1.000000: fnblk_depart: $1 key=$2 rq=00000000deadbeef bytes=4096 leave_ns=$3 service_ns=$4 n=${5:-3}"
}
chg() { # event key time n
	echo "  nbd-server-$2  [000] .....  1.000000: fnblk_user_$1: fnblk0 key=$2 time_ns=$3 n=$4"
}
T=1000000000
{
	chg active 101 $T 1
	chg active 102 $T 2
	chg active 103 $T 3
	# 101: a streak of five; its first has no predecessor, and a user
	# 104 comes and goes during its third (and 103's second): three count.
	k=1
	while [ $k -le 5 ]; do
		dep fnblk0 101 $((T + k * S)) $S
		[ $k = 2 ] && chg active 104 $((T + 2 * S + 5)) 4 && chg idle 104 $((T + 2 * S + 9)) 3
		k=$((k + 1))
	done
	# Another device's departures of the same key break nothing.
	dep fnblk1 101 $((T + 3 * S)) 7
	dep fnblk10 101 $((T + 3 * S)) 7
	# 102: a credited request (no wait), then two at the share: the
	# first of them follows a request that did not wait, so one counts.
	dep fnblk0 102 $T 0
	dep fnblk0 102 $((T + S)) $S
	dep fnblk0 102 $((T + 2 * S)) $S
	# 102 again after a pause (resumes: may hold credit), then one at
	# n = 2 that follows it (served here at the n = 3 rate).
	dep fnblk0 102 $((T + 9 * S)) 1000
	dep fnblk0 102 $((T + 10 * S)) $S 2
	# 103 is served at half its share: its first has no predecessor,
	# its second sees 104, its third counts.
	dep fnblk0 103 $((T + 2 * S)) $((2 * S))
	dep fnblk0 103 $((T + 4 * S)) $((2 * S))
	dep fnblk0 103 $((T + 6 * S)) $((2 * S))
	# 105, later: n changes at the very ns its second request leaves
	# (a user leaving n lets it go at once): its second and third are
	# left out, its fourth counts.
	k=1
	while [ $k -le 4 ]; do
		dep fnblk0 105 $((T + (100 + k) * S)) $S
		k=$((k + 1))
	done
	chg idle 104 $((T + 102 * S)) 3
} >"$tmp/trace"
check_eq "served at n = 3: the requests that follow a waiting one of their user, n constant" \
	"$(cluster_served_at "$tmp/trace" fnblk0 3 2097152 | tr '\n' ';')" \
	"101 3 12288 5859375 5859375 0.0;102 1 4096 1953125 1953125 0.0;103 1 4096 3906250 1953125 1953125.0;105 1 4096 1953125 1953125 0.0;"
check_eq "at n = 2: 102's last, 651 us longer than its share there" \
	"$(cluster_served_at "$tmp/trace" fnblk0 2 3145728)" "102 1 4096 1953125 1302083 651041.7"
check_eq "no departures of the device: nothing" \
	"$(cluster_served_at "$tmp/trace" fnblk7 3 2097152)" ""

echo "1..$n"
[ "$failed" -eq 0 ]
