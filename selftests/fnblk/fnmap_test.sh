#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# fnmap (userspace/fnmap, fnmap(3)) on the kernel under test, on fnblk
# (libfnmap's own suite and the shim's run in fnmap_suite.sh):
#  1. what userfaultfd offers here (fnblk-fnmap), per kernel;
#  2. data written through fnmap are on the device for a reader that is
#     not fnmap, after a fresh mount (a file) and on a raw device;
#  3. unprivileged users: user-mode-only faults (a system call on an
#     unfilled part gets EFAULT), /dev/userfaultfd, the sysctl;
#  4. memory pressure: under memory.high, a budget above the limit shrinks
#     while another process takes memory, grows back when it leaves, and
#     nothing is OOM-killed;
#  5. a slow store: the channels' depth probing goes deeper (and not with
#     fixed-depth), with every element read correct.
# TAP; exits 1 on failure, 4 to skip.

lib=$(dirname "$0")/lib_tap.sh
[ -f "$lib" ] || lib=/opt/kselftest/fnblk/lib_tap.sh
. "$lib"
. "$(dirname "$lib")/lib_fnmap.sh"

# value KEY FILE: "KEY value" lines of helper_reader.
value() { sed -n "s/^$1 //p" "$2"; }

# at_most VALUE LIMIT: VALUE is a number (not empty: a reader killed
# before its counters leaves none) no larger than LIMIT.
at_most() { [ -n "$1" ] && [ "$1" -le "$2" ]; }

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

# 2. On the device for a reader that is not fnmap, after a fresh mount.
shim="$fm/fnmap-preload.so"
fio_args="--name=dur --size=24M --bs=4k --rw=randwrite --verify=md5 --verify_fatal=1 --verify_state_save=0"
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

# 3. Unprivileged users (uid 65534).
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

# 4. Memory pressure: a 256 MiB file read at random with a 512 MiB budget
# in a cgroup with memory.high 64M; once the cache holds 24 MiB (the limit
# minus the hog), a 40 MiB hog joins it for 3 s. memory.high is the limit
# here, not memory.max alone: past memory.high the kernel throttles
# whoever allocates instead of killing, which gives the runtime (a sample
# every 100 ms) the time to give way. Under memory.max alone a burst
# larger than the headroom meets the OOM killer before any sample unless
# the kernel can reclaim the cache (a read-only mapping's, MADV_FREE;
# not a writable one's): a race this test used to run and lose
# (Documentation/fnmap.rst). memory.max 96M stays as the hard line. Each
# step waits for what it needs (a sample of the reader's showing it),
# not for a guessed time.
fio --name=p --filename="$MNT/p.dat" --size=256M --rw=write --bs=1M \
	--ioengine=psync --output=/dev/null >/dev/null 2>&1
mkdir "$CG" && echo 64M >"$CG/memory.high" && echo 96M >"$CG/memory.max" ||
	skip_all "no memory cgroup"
: >"$TMP/pressure.out"	# before await reads it
sh -c "echo \$\$ >$CG/cgroup.procs && exec env FNMAP_BUDGET=512M \
	$fm/tests/helper_reader -n -s $TMP/stop $MNT/p.dat 300 4" >"$TMP/pressure.out" 2>&1 &
reader=$!
# samples [FROM]: "budget_now resident" of the reader's samples from line FROM.
samples() {
	tail -n +"${1:-1}" "$TMP/pressure.out" |
		sed -n 's/^sample .*budget_now=\([0-9]*\) .*resident=\([0-9]*\)$/\1 \2/p'
}
# await FROM CONDITION: wait (up to 120 s, while the reader runs) for a
# sample from line FROM on where the awk CONDITION on b (budget_now) and
# r (resident) holds.
await() {
	i=0
	while [ $i -lt 1200 ] && kill -0 $reader 2>/dev/null; do
		samples "$1" | awk "{ b = \$1; r = \$2 } $2 { f = 1 } END { exit !f }" && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}
await 1 "r >= 24 * 1048576"
check "pressure: the cache came to hold 24 MiB" [ $? -eq 0 ]
sh -c "echo \$\$ >$CG/cgroup.procs; exec $fm/tests/helper_hog 40 3" >"$TMP/hog.out" 2>&1
hog=$?
low=$(samples | awk 'NR == 1 || $1 < m { m = $1 } END { if (NR) print m }')
await $(($(wc -l <"$TMP/pressure.out") + 1)) "b >= 2 * ${low:-0} && ${low:-0} > 0"
grew=$?
touch "$TMP/stop"
wait $reader
rc=$?
check "pressure: the reader finished (rc $rc)" [ $rc -eq 0 ]
check "pressure: the hog finished (rc $hog)" [ $hog -eq 0 ]
check_eq "pressure: no OOM kill" "$(sed -n 's/^oom_kill //p' "$CG/memory.events")" 0
echo "# budget (MiB) over time: $(samples | awk '{ printf "%d ", $1 / 1048576 }')"
check "pressure: the budget came under the limit minus the hog (24 MiB): $((${low:-0} >> 20)) MiB" \
	at_most "$low" $((24 << 20))
check "pressure: and grew back to twice that once the hog left" [ $grew -eq 0 ]
resident=$(value resident_max "$TMP/pressure.out")
check "pressure: the cache stayed under the limit: $((${resident:-0} >> 20)) MiB" \
	at_most "$resident" $((64 << 20))
rmdir "$CG" 2>/dev/null

# 5. A slow store: the channels probe deeper. Rows of a 64 MiB matrix on
# /dev/fnblk1 at 40 ms a request, read through fnmap by 8 threads for 4 s
# in requests of at most 64 KiB (stride prefetch gives the channels the
# work; small requests keep the guest CPU out of the way): the channels
# start at 8 requests each and go deeper while the rate follows; with
# fixed-depth they stay at 8. Every element read is checked either way.
if command -v fnblk-matrix >/dev/null; then
	fnblk-matrix create /dev/fnblk1 --rows 65536 --cols 128 -q
	check "depth: a 64 MiB matrix on /dev/fnblk1" [ $? -eq 0 ]
	fnblkctl dev set fnblk1 latency 40ms >/dev/null
	cnt() { fnblkctl json "jobs.0.mode.counters.$2" <"$TMP/depth-$1.out"; }
	for f in none fixed-depth; do
		fnblk-matrix run /dev/fnblk1 --mode fnmap --pattern rows --threads 8 \
			--duration 4s --verify --no-cgroup --fnmap-max-request 64KiB \
			--fnmap-flags $f -j >"$TMP/depth-$f.out" 2>"$TMP/depth-$f.err"
		check "depth ($f): the run finished" [ $? -eq 0 ]
		el=$(fnblkctl json result.elements <"$TMP/depth-$f.out")
		ve=$(fnblkctl json result.verified <"$TMP/depth-$f.out")
		wr=$(fnblkctl json result.wrong <"$TMP/depth-$f.out")
		good=no
		[ "${el:-0}" -gt 0 ] && [ "$ve" = "$el" ] && [ "$wr" = 0 ] && good=yes
		check_eq "depth ($f): $el elements read, every one checked, none wrong" $good yes
		echo "# depth ($f): $(cnt $f queue_depth_now) of at most" \
			"$(cnt $f queue_depth_max) a channel, $(cnt $f inflight_max) out at most"
	done
	now=$(cnt none queue_depth_now)
	check "depth: probing went deeper than the 8 it started at (${now:-?})" \
		[ "${now:-0}" -gt 8 ]
	check_eq "depth: fixed-depth stays at 8" "$(cnt fixed-depth queue_depth_now)" 8
	# Prefetches may hold half the channels' slots: 16 at a fixed 4 x 8.
	out=$(cnt none inflight_max) fixed=$(cnt fixed-depth inflight_max)
	check "depth: more requests out at once than with fixed-depth ($out > $fixed)" \
		[ "${out:-0}" -gt "${fixed:-0}" ]
	fnblkctl dev set fnblk1 latency 100us >/dev/null
else
	skip "depth: fnblk-matrix is not installed"
fi

echo "1..$n"
[ $failed -eq 0 ]
