#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# fnblk-matrix on fnblk: every mode and pattern reads correct data from the
# raw device and from ext4 on it and checks every element it reads; direct
# I/O reaches the device as exactly one request of --bs per call; updates
# are durable; several jobs in cgroups report their memory; a run whose
# memory limit is too small reports its OOM kill (exit 3) and removes its
# cgroups; an interrupted run removes its cgroups and dies of the signal.
# fnblk-fleet: the same OOM report and interrupt clean-up. Prints TAP;
# exits 1 on failure, 4 to skip.

lib=$(dirname "$0")/lib_tap.sh
[ -f "$lib" ] || lib=/opt/kselftest/fnblk/lib_tap.sh
. "$lib"

TMP=$(mktemp -d /tmp/matrix_test.XXXXXX)
MNT=$TMP/mnt
CG=/sys/fs/cgroup

cleanup() {
	if [ $failed -ne 0 ] && [ -d /results ]; then
		mkdir -p /results/matrix_test && cp "$TMP"/*.json "$TMP"/*.txt \
			/results/matrix_test/ 2>/dev/null
	fi
	umount "$MNT" 2>/dev/null
	rmmod fnblk 2>/dev/null
	rm -rf "$TMP"
}

for tool in fnblk-matrix fnblk-fleet fnblkctl; do
	command -v $tool >/dev/null || skip_all "$tool not installed"
done
[ -w $CG/cgroup.subtree_control ] || skip_all "no writable cgroup v2 at $CG"
load_fnblk nr_devices=1 size_mb=96 bw_mbps=0
trap cleanup EXIT
DEV=/dev/fnblk0

jv() { fnblkctl json "$2" <"$1"; }

# The OOM killer's report carries a call trace, which the VM runner takes
# for a kernel problem: while OOM kills are meant, warnings stay off the
# console, and the kernel log of that stretch is checked here instead.
oom_expected() {
	printk=$(cat /proc/sys/kernel/printk)
	echo 4 >/proc/sys/kernel/printk
	echo "matrix_test: OOM kills expected from here" >/dev/kmsg
}

oom_done() {
	echo "$printk" >/proc/sys/kernel/printk
	dmesg | sed -n '/matrix_test: OOM kills expected from here/,$p' |
		grep -E 'BUG:|WARNING:|Oops|general protection|Kernel panic' >"$TMP/k.txt"
	check "$1: the kernel logged only OOM reports" [ ! -s "$TMP/k.txt" ]
	sed 's/^/# /' "$TMP/k.txt"
}

# all_correct FILE LABEL: the run read elements, checked all, none wrong.
all_correct() {
	el=$(jv "$1" result.elements)
	ve=$(jv "$1" result.verified)
	wr=$(jv "$1" result.wrong)
	if [ "${el:-0}" -gt 0 ] && [ "$ve" = "$el" ] && [ "$wr" = 0 ]; then
		ok "$2: $el elements read, all checked, all correct"
	else
		not_ok "$2: every element read is checked and correct" \
			"elements $el, verified $ve, wrong $wr"
	fi
}

# 1. The raw device: every mode and pattern.
fnblk-matrix create $DEV --rows 4096 --cols 128 -q
check "create a 4096 x 128 matrix on $DEV" [ $? -eq 0 ]
for mode in mmap pread direct; do
	for pattern in cols rows tiles xtx; do
		lim=
		case $pattern in rows | tiles) lim="--accesses 100" ;; esac
		fnblk-matrix run $DEV --mode $mode --pattern $pattern --threads 2 \
			--verify $lim -j >"$TMP/r.json" 2>"$TMP/err.txt"
		rc=$?
		[ $rc -eq 0 ] || sed 's/^/# /' "$TMP/err.txt"
		all_correct "$TMP/r.json" "$DEV $mode $pattern"
	done
done

# 2. O_DIRECT: each call is one request of --bs bytes, seen by the device.
for bs in 4096 65536 1048576; do
	fnblk-matrix run $DEV --mode direct --bs $bs --pattern cols -j >"$TMP/d.json"
	calls=$(jv "$TMP/d.json" jobs.0.mode.counters.read_calls)
	bytes=$(jv "$TMP/d.json" jobs.0.mode.counters.read_bytes)
	check_eq "direct --bs $bs: the device served one read per call" \
		"$(jv "$TMP/d.json" device.io.read_ops)" "$calls"
	check_eq "direct --bs $bs: ... and exactly the bytes asked for" \
		"$(jv "$TMP/d.json" device.io.read_bytes)" "$bytes"
	check_eq "direct --bs $bs: the device's histogram has every read in the $bs bin" \
		"$(jv "$TMP/d.json" device.io.read_sizes)" "[{\"bytes\":$bs,\"requests\":$calls}]"
done
check_eq "direct --bs 1MiB: mean request 1MiB" \
	"$(jv "$TMP/d.json" device.io.mean_read_bytes)" 1048576.0
# mmap with readahead off: every fault is one 4 KiB read.
fnblk-matrix run $DEV --mode mmap --advise random --pattern cols -j >"$TMP/m.json"
check_eq "mmap --advise random: every device read is 4KiB" \
	"$(jv "$TMP/m.json" device.io.mean_read_bytes)" 4096.0
check_eq "mmap --advise random: the device's histogram agrees" \
	"$(jv "$TMP/m.json" device.io.read_sizes)" \
	"[{\"bytes\":4096,\"requests\":$(jv "$TMP/m.json" device.io.read_ops)}]"
check "mmap --advise random: a major fault per page of the matrix" \
	[ "$(jv "$TMP/m.json" result.majflt)" -ge 1024 ]

# 3. Updates through each mode are durable, and verify accepts them.
for mode in mmap pread direct; do
	fnblk-matrix run $DEV --mode $mode --pattern tiles --block 32 --threads 3 \
		--verify --write-fraction 10% --sync-every 5 -j >"$TMP/w.json"
	rc=$?
	ch=$(jv "$TMP/w.json" result.durable_checked)
	lo=$(jv "$TMP/w.json" result.durable_lost)
	wb=$(jv "$TMP/w.json" device.io.write_ops)
	if [ $rc -eq 0 ] && [ "${ch:-0}" -gt 0 ] && [ "$lo" = 0 ] && [ "${wb:-0}" -gt 0 ]; then
		ok "$mode: updates written ($wb requests), the last $ch read back from the device"
	else
		not_ok "$mode: updates are durable" "rc $rc, checked $ch, lost $lo, writes $wb"
	fi
done
fnblk-matrix verify $DEV -q
check "verify: every element of the device holds a value of its own" [ $? -eq 0 ]

# 4. ext4 on fnblk: a set of three matrices, three jobs in cgroups.
mkdir -p "$MNT"
if mkfs.ext4 -q -F $DEV >/dev/null 2>&1 && mount -t ext4 $DEV "$MNT"; then
	mkdir "$MNT/m"
	fnblk-matrix create "$MNT/m" --rows 2048 --cols 128 --jobs 3 -q
	for mode in mmap pread direct; do
		fnblk-matrix run "$MNT/m" --jobs 3 --mode $mode --pattern tiles \
			--block 16 --accesses 100 --threads 2 --verify -j >"$TMP/e.json"
		all_correct "$TMP/e.json" "ext4, 3 jobs, $mode tiles"
	done
	fnblk-matrix run "$MNT/m" --jobs 3 --mode mmap --pattern cols --cgroup mxsel \
		-j >"$TMP/e.json"
	check_eq "ext4: the jobs ran in cgroups" "$(jv "$TMP/e.json" memory.scope)" cgroup
	check "ext4 mmap: job 2's page cache was charged to its group (peak >= 1MiB)" \
		[ "$(jv "$TMP/e.json" jobs.2.memory.peak)" -ge 1048576 ]
	check_eq "ext4: the device is named" "$(jv "$TMP/e.json" device.name)" fnblk0
	check "the cgroups are gone after the run" [ ! -e $CG/mxsel ]
	umount "$MNT"
else
	skip "ext4 on fnblk" "mkfs.ext4 or mount failed"
fi

# 5. Out of memory: xtx keeps a cols x cols sum per thread (8 MiB here).
fnblk-matrix create $DEV --rows 256 --cols 1024 -q
oom_expected
fnblk-matrix run $DEV --pattern xtx --threads 4 --memory-max 8M --cgroup mxoom \
	-j >"$TMP/o.json" 2>"$TMP/err.txt"
rc=$?
check_eq "a run killed by the OOM killer exits 3" $rc 3
check_eq "the report says the job was OOM-killed" "$(jv "$TMP/o.json" jobs.0.oom_killed)" true
case $(jv "$TMP/o.json" jobs.0.exit) in
*"killed by the OOM killer"*) ok "... in words: $(jv "$TMP/o.json" jobs.0.exit)" ;;
*) not_ok "the exit is described as an OOM kill" "$(jv "$TMP/o.json" jobs.0.exit)" ;;
esac
check "memory.events counted the kill" [ "$(jv "$TMP/o.json" memory.events.oom_kill)" -ge 1 ]
fnblk-matrix run $DEV --pattern xtx --threads 4 --memory-max 8M >"$TMP/o.txt" 2>&1
check "the text report says so too" grep -q '^job 0: killed by the OOM killer' "$TMP/o.txt"
check "the OOM run's cgroups are gone" [ ! -e $CG/mxoom ]
oom_done "fnblk-matrix out of memory"

# 6. Interrupted runs remove their cgroups and die of the signal.
interrupt() { # signal status
	fnblk-matrix run $DEV --pattern rows --duration 60s --cgroup mxint -q &
	pid=$!
	i=0
	while [ ! -e $CG/mxint/job-0000 ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	sleep 0.5
	kill -"$1" $pid
	wait $pid
	check_eq "SIG$1: fnblk-matrix dies of it" $? "$2"
	check "SIG$1: its cgroups are removed" [ ! -e $CG/mxint ]
}
interrupt INT 130
interrupt TERM 143

# 7. fnblk-fleet: an OOM-killed job is named; an interrupt cleans up.
oom_expected
fnblk-fleet -q --jobs 2 --compute 10ms --size 1MiB --cycles 2 --bs 32MiB \
	--cgroup flsel --memory-max 8M $DEV >/dev/null 2>"$TMP/f.txt"
check "fleet: a job over its memory.max fails the fleet" [ $? -ne 0 ]
check "fleet: ... and is reported killed by the OOM killer" \
	grep -q 'job [01]: killed by the OOM killer' "$TMP/f.txt"
check "fleet: its cgroups are removed" [ ! -e $CG/flsel ]
oom_done "fleet out of memory"
fnblk-fleet -q --jobs 2 --compute 1s --size 1MiB --cycles 1000 --cgroup flint $DEV \
	>/dev/null 2>"$TMP/f.txt" &
pid=$!
i=0
while [ ! -e $CG/flint/job-0001 ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
sleep 1
kill -INT $pid
wait $pid
check_eq "fleet: SIGINT: it dies of it" $? 130
check "fleet: SIGINT: its cgroups are removed" [ ! -e $CG/flint ]
check "fleet: no job is left running" sh -c '! pidof fnblk-fleet >/dev/null'

echo "1..$n"
[ $failed -eq 0 ]
