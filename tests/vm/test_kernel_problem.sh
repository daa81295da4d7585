#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# What scripts/vm says of a guest's console, with a fake qemu printing a
# made-up one: a task the hung-task detector caught is a kernel problem,
# shown by its own line (what CI's summary repeats); the stacks the guest
# dumps on purpose when its command runs out of time (scripts/guest/
# deadline) are not, but the tasks it found stuck in D state are listed.
. "$(dirname "$0")/lib_fake_qemu.sh"
fake_qemu 'cat "$FAKE_CONSOLE"'

run_vm() { # console
	FAKE_CONSOLE=$1 PATH=$tmp/bin:$PATH "$src/scripts/vm" -a tcg -t 60 \
		-o "$tmp/out" -- true >"$tmp/stdout" 2>"$tmp/stderr"
}

cat >"$tmp/hung" <<'LOG'
[   12.000000] fnblk: loaded
[  250.100000] INFO: task fnblkctl:812 blocked for more than 60 seconds.
[  250.100100]       Not tainted 6.1.0-57-cloud-amd64 #1 Debian 6.1.158-1
[  250.100200] task:fnblkctl        state:D stack:0     pid:812   ppid:700
[  250.100300] Call Trace:
[  250.100400]  <TASK>
[  250.100500]  fnblk_io_drain+0x5c/0x90 [fnblk]
FNBLK-VM-EXIT: 0
LOG
run_vm "$tmp/hung"
check_eq "a hung task: status 126 (kernel problem)" "$?" 126
check "the problem's first line is the hung task's own" \
	sh -c "grep -A1 'kernel problem in the console log' '$tmp/stderr' |
		grep -q '^  \[  250.100000\] INFO: task fnblkctl:812 blocked for more than 60 seconds'"

cat >"$tmp/dumped" <<'LOG'
[   12.000000] fnblk: loaded
FNBLK-VM: command timed out after 40 s
[   51.900000] FNBLK-VM: dump begin: the command ran out of its 40 s
[   52.000000] sysrq: Show Blocked State
[   52.000100] task:rmmod           state:D stack:0     pid:901   ppid:1
[   52.000200] Call Trace:
FNBLK-VM: processes (pid state wait-channel command):
FNBLK-VM: ps 1 S do_wait /bin/sh /init
FNBLK-VM: ps 901 D fnblk_io_drain rmmod fnblk
[   52.100000] sysrq: Show State
FNBLK-VM: ps 902 D blk_mq_freeze[   52.100100] task:init state:S
_queue_wait dd
[   52.100200] Call Trace:
[   52.100300] FNBLK-VM: dump end
FNBLK-VM-EXIT: 124
LOG
run_vm "$tmp/dumped"
check_eq "out of time: status 124" "$?" 124
check "the deliberate dump is no kernel problem" \
	sh -c "! grep -q 'kernel problem' '$tmp/stderr'"
check "the task stuck in D state is listed" \
	grep -q '^  901 D fnblk_io_drain rmmod fnblk$' "$tmp/stderr"
check "no task in S state is" sh -c "! grep -q '^  1 S ' '$tmp/stderr'"
check "one whose line the kernel cut is listed as far as it got" \
	grep -q '^  902 D blk_mq_freeze\[' "$tmp/stderr"

# A kernel problem outside the dump still counts.
sed 's/^FNBLK-VM-EXIT: 124$/[   60.000000] WARNING: CPU: 1 PID: 901 at module\/io.c:1\nFNBLK-VM-EXIT: 0/' \
	"$tmp/dumped" >"$tmp/warned"
run_vm "$tmp/warned"
check_eq "a warning after the dump: status 126" "$?" 126
check "the warning is shown" grep -q '^  \[   60.000000\] WARNING: CPU: 1' "$tmp/stderr"
check_eq "and only it" "$(grep -c '^  \[' "$tmp/stderr")" 1

# The guest's final sync that did not finish: a device left stuck.
printf '%s\n' '[   12.000000] fnblk: loaded' 'FNBLK-VM: command timed out after 30 s' \
	'FNBLK-VM: sync did not finish in 30 s: a device'"'"'s writeback is stuck (the dump above)' \
	'FNBLK-VM-EXIT: 0' >"$tmp/sync"
run_vm "$tmp/sync"
check_eq "a sync that did not finish: status 126" "$?" 126
check "and it is shown" grep -q '^  FNBLK-VM: sync did not finish in 30 s' "$tmp/stderr"

# Every guest stops at its first oops (panic=-1 oops=panic): a task that
# oopsed holding a lock must not leave the others hanging.
fake_qemu 'echo "$*" >"$FAKE_ARGS"; echo "FNBLK-VM-EXIT: 0"'
FAKE_ARGS=$tmp/args run_vm /dev/null
check "the kernel command line has panic=-1 oops=panic" \
	grep -q -- '-append [^-]*panic=-1 oops=panic' "$tmp/args"

# A kernel that panics while booting, before /init ran: booted once more.
fake_qemu 'n=$(cat "$FAKE_BOOTS" 2>/dev/null || echo 0)
echo $((n + 1)) >"$FAKE_BOOTS"
if [ "$n" -eq 0 ]; then
	echo "[    5.661072] Oops: int3: 0000 [#1] PREEMPT SMP NOPTI"
	echo "[    5.667470] Kernel panic - not syncing: Fatal exception in interrupt"
	exit 0
fi
echo "FNBLK-VM: kernel 6.12, up 4.2 s, running: true"
echo "FNBLK-VM-EXIT: 0"'
FAKE_BOOTS=$tmp/boots run_vm /dev/null
check_eq "a boot that panicked before /init: booted again, status 0" "$?" 0
check_eq "two boots" "$(cat "$tmp/boots")" 2
check "it says why" grep -q 'panicked while booting, before /init ran (\[    5.661072\] Oops: int3' "$tmp/stderr"
check "the failed boot's console is kept" grep -q 'Oops: int3' "$tmp/out/console-failed-boot.log"
check "the run's console is the second boot's" sh -c "! grep -q Oops '$tmp/out/console.log'"
# One that panics after /init started is a result, not booted again.
rm -f "$tmp/boots"
printf '%s\n' 'FNBLK-VM: kernel 6.12, up 4.2 s, running: true' \
	'[   20.000000] Kernel panic - not syncing: fnblk' >"$tmp/late"
fake_qemu 'echo x >>"$FAKE_BOOTS"
cat "$FAKE_CONSOLE"'
FAKE_BOOTS=$tmp/boots run_vm "$tmp/late"
check_eq "a panic after /init started: status 125" "$?" 125
check_eq "and one boot" "$(wc -l <"$tmp/boots")" 1

echo "1..$n"
[ "$failed" -eq 0 ]
