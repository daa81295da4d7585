#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The kernel may take back the cache of a read-only mapping: filled blocks
# are MADV_FREE, which the kernel reclaims without swap under a cgroup's
# hard limit (the next access faults and the block is read again), where
# anonymous memory it cannot reclaim would get the OOM killer. A reader of
# a 64 MiB file whose budget (96 MiB, pressure handling and growth off, so
# that the runtime neither gives way nor evicts) is three times its
# cgroup's limit (32 MiB) reads right until it has read half the file's
# blocks a second time (blocks the kernel took), and nobody is
# OOM-killed. Needs root and a memory cgroup it can make (v2 memory.max
# or v1 memory.limit_in_bytes); skipped otherwise. TAP.
#
#   tests/test_reclaim.sh          (files in FNMAP_TEST_DIR, else /dev/shm)

here=$(cd "$(dirname "$0")" && pwd)
reader=$here/helper_reader
dir=$(mktemp -d "${FNMAP_TEST_DIR:-/dev/shm}/fnmap_reclaim.XXXXXX") || exit 1
n=0
failed=0
ok() { # description [detail]: from $?
	r=$?
	n=$((n + 1))
	if [ $r -eq 0 ]; then
		echo "ok $n - $1"
	else
		failed=$((failed + 1))
		echo "not ok $n - $1"
		[ -n "$2" ] && echo "#   $2"
	fi
}

cg=
cleanup() {
	[ -n "$cg" ] && rmdir "$cg" 2>/dev/null
	rm -rf "$dir"
}
trap cleanup EXIT

# A memory cgroup limited to 32 MiB: $cg, $procs, and how to read its
# OOM kills.
if [ "$(id -u)" -ne 0 ]; then
	echo "1..0 # SKIP needs root (a memory cgroup)"
	exit 0
fi
v2=$(sed -n 's/^[0-9]* [0-9]* [^ ]* [^ ]* \([^ ]*\) .* - cgroup2 .*/\1/p' /proc/self/mountinfo | head -n1)
v1=$(sed -n 's/^[0-9]* [0-9]* [^ ]* [^ ]* \([^ ]*\) .* - cgroup .*memory.*/\1/p' /proc/self/mountinfo | head -n1)
if [ -n "$v2" ] && grep -qw memory "$v2/cgroup.subtree_control" 2>/dev/null &&
	mkdir "$v2/fnmap_reclaim.$$" 2>/dev/null; then
	cg=$v2/fnmap_reclaim.$$
	echo 32M >"$cg/memory.max"
	echo 0 >"$cg/memory.swap.max" 2>/dev/null
	ooms() { sed -n 's/^oom_kill //p' "$cg/memory.events"; }
elif [ -n "$v1" ] && mkdir "$v1/fnmap_reclaim.$$" 2>/dev/null; then
	cg=$v1/fnmap_reclaim.$$
	echo 32M >"$cg/memory.limit_in_bytes"
	ooms() { sed -n 's/^oom_kill //p' "$cg/memory.oom_control"; }
else
	echo "1..0 # SKIP no memory cgroup to make here"
	exit 0
fi
echo "# cgroup $cg, limit 32 MiB"

# The pattern file (1024 blocks of 64 KiB), made outside the group.
"$reader" -m 64 -s "$dir/go" "$dir/data" 0 1 >/dev/null 2>&1
: >"$dir/reader.out"	# before the loop below reads it
sh -c "echo \$\$ >$cg/cgroup.procs && exec env FNMAP_BUDGET=96M \
	FNMAP_FLAGS=no-pressure,no-growth FNMAP_CHANNELS=2 \
	$reader -s $dir/stop $dir/data 120 2" >"$dir/reader.out" 2>&1 &
pid=$!
# Until the runtime has made 1536 fills (each block once, then half of
# them again), or the reader ends.
i=0
while [ $i -lt 1200 ] && kill -0 $pid 2>/dev/null &&
	! sed -n 's/^sample .*fills=\([0-9]*\) .*/\1/p' "$dir/reader.out" |
		awk '$1 >= 1536 { f = 1 } END { exit !f }'; do
	sleep 0.1
	i=$((i + 1))
done
touch "$dir/stop"
wait $pid
rc=$?
value() { sed -n "s/^$1 //p" "$dir/reader.out"; }
wrong=$(value wrong)
filled=$(value resident_max)
fills=$(value fills)
[ $rc -eq 0 ]
ok "the reader finished (exit $rc; 137: killed)" "$(tail -n 3 "$dir/reader.out" | tr '\n' ' ')"
[ "$wrong" = 0 ]
ok "every word it read was right (${wrong:-?} wrong of $(value accesses))"
[ -n "$fills" ] && [ "$fills" -ge 1536 ]
ok "${fills:-0} fills of 1024 blocks in a 32 MiB group: read again what the kernel took" \
	"$(value evictions) evictions by the runtime, resident at most $((${filled:-0} >> 20)) MiB"
[ "$(ooms)" = 0 ]
ok "no OOM kill in the group ($(ooms))"
echo "1..$n"
[ $failed -eq 0 ]
