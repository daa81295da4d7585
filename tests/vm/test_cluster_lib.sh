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

echo "1..$n"
[ "$failed" -eq 0 ]
