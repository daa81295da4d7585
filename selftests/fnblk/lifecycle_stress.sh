#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Life-cycle stress: cycles of load, add, use and teardown, each racing
# every configuration command against real I/O. Per cycle: the module is
# loaded; a checkpoint fleet (fnblk-fleet, io_uring or psync) writes to
# one device and fio (psync, libaio or io_uring, 4-64 KiB blocks, verified) to
# another, while settings change on both (bandwidth, f(n), latency,
# policy, key), counters are reset, weights set, users and stats read,
# a third device is added and deleted over and over, and deleting a busy
# device or unloading the module is tried (and must be refused). Then
# every device is deleted and the module unloaded while a reader and an
# event monitor are still talking to it.
#
# No oops, no leak, no hang: every step runs under a timeout that turns a
# hang into a failure naming the cycle and the step (and writes the
# blocked tasks' stacks to the console); kernel warnings are looked for
# after every cycle; memory must come back after the last. Prints TAP.
# FNBLK_STRESS_CYCLES sets the number of cycles (default 25, 5 on a debug
# kernel; 100 for the full proof), FNBLK_STRESS_FIRST the first cycle's
# number (default 1): a proof too long for one boot runs in pieces that
# together are the cycles one run would have made (settings and seeds
# follow the cycle's number).

lib=$(dirname "$0")/lib_tap.sh
[ -f "$lib" ] || lib=/opt/kselftest/fnblk/lib_tap.sh
. "$lib"

# 25 cycles (about 90 s under TCG) keep make check short; the full proof
# is FNBLK_STRESS_CYCLES=100. On a debug kernel (lockdep, kmemleak) a
# cycle takes about ten times longer: 5 cycles there unless told.
why=$(timing_unchecked)
CYCLES=${FNBLK_STRESS_CYCLES:-$([ -n "$why" ] && echo 5 || echo 25)}
FIRST=${FNBLK_STRESS_FIRST:-1}
case $CYCLES$FIRST in
*[!0-9]*) echo "lifecycle_stress: FNBLK_STRESS_CYCLES and FNBLK_STRESS_FIRST must be whole numbers" >&2
	exit 2 ;;
esac
[ "$FIRST" -ge 1 ] || { echo "lifecycle_stress: FNBLK_STRESS_FIRST must be at least 1" >&2; exit 2; }
LAST=$((FIRST + CYCLES - 1))
[ -n "$why" ] && [ -z "${FNBLK_STRESS_CYCLES:-}" ] &&
	echo "# $CYCLES cycles on $why (FNBLK_STRESS_CYCLES sets it)"
# Any single step; ten times that on a debug kernel.
STEP_S=$([ -n "$why" ] && echo 600 || echo 60)
tmp=$(mktemp -d /tmp/lifecycle.XXXXXX)

for tool in fnblkctl fnblk-fleet fio; do
	command -v $tool >/dev/null || skip_all "$tool not installed"
done
if [ -e /sys/module/fnblk ] && ! rmmod fnblk 2>/dev/null; then
	skip_all "fnblk is loaded and busy"
fi

cleanup() {
	kill -9 $(jobs -p) 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

hangs=0
refusals=0
teardown=0
io_fail=0
warnings=0
first_hang=
first_refusal=
first_teardown=
first_io=
first_warning=

# A hang: the blocked tasks go to the console for the report.
hung() { # what
	hangs=$((hangs + 1))
	[ -n "$first_hang" ] || first_hang="cycle $c: $1"
	echo "# HANG in cycle $c: $1"
	echo w >/proc/sysrq-trigger 2>/dev/null
}

# Run a command under the step timeout; 124 means it hung.
t() {
	timeout -k 5 $STEP_S "$@"
	rc=$?
	[ $rc -eq 124 ] || [ $rc -eq 137 ] && hung "$*"
	return $rc
}

# Wait for a background job, at most STEP_S seconds; its status.
wait_for() { # pid what
	i=0
	while kill -0 $1 2>/dev/null && [ $i -lt $((STEP_S * 10)) ]; do
		sleep 0.1
		i=$((i + 1))
	done
	if kill -0 $1 2>/dev/null; then
		hung "$2"
		kill -9 $1 2>/dev/null
	fi
	wait $1
}

refused() { # what: a change that had to be refused was not
	refusals=$((refusals + 1))
	[ -n "$first_refusal" ] || first_refusal="cycle $c: $1"
}

io_failed() { # what
	io_fail=$((io_fail + 1))
	[ -n "$first_io" ] || first_io="cycle $c: $1"
	echo "# cycle $c: $1"
}

teardown_failed() { # what
	teardown=$((teardown + 1))
	[ -n "$first_teardown" ] || first_teardown="cycle $c: $1"
	echo "# cycle $c: $1"
}

load() {
	if [ -n "${FNBLK_KO:-}" ]; then
		t insmod "$FNBLK_KO" nr_devices=0
	else
		t modprobe fnblk nr_devices=0
	fi
}

wait_dev() { # name
	i=0
	while [ ! -b /dev/$1 ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
}

# The settings a cycle races through, chosen by the cycle number.
pick() { # n word...
	k=$1
	shift
	shift $((k % $#))
	echo $1
}

# Who has a device open: pid and command of every holder, one a line.
holders() { # name
	for f in /proc/[0-9]*/fd/*; do
		[ "$(readlink "$f" 2>/dev/null)" = /dev/$1 ] || continue
		p=${f#/proc/}
		p=${p%%/*}
		echo "$p ($(cat /proc/$p/comm 2>/dev/null))"
	done | sort -u | tr '\n' ' '
}

# Run a command until it succeeds; while it fails saying it is busy (its
# output matches PATTERN), try again for up to 10 s. The tenths of a second
# it waited are in $busy, its last output in $tmp/busy.out.
retry_busy() { # pattern command...
	pattern=$1
	shift
	busy=0
	while ! t "$@" >$tmp/busy.out 2>&1; do
		grep -q "$pattern" $tmp/busy.out && [ $busy -lt 100 ] || return 1
		sleep 0.1
		busy=$((busy + 1))
	done
}

# Delete a device once its last user is gone. A process's final close can
# come a moment after it exited (io_uring releases its files from a
# worker), so "device is open" is retried for up to 10 s; after that the
# holders are named.
del_dev() { # name
	retry_busy 'device is open' fnblkctl dev del $1 || {
		teardown_failed "dev del $1: $(cat $tmp/busy.out); holders: $(holders $1)"
		return 1
	}
	[ $busy -eq 0 ] || echo "# cycle $c: $1 closed $((busy / 10)).$((busy % 10)) s after its users ended"
}

# Unload while netlink clients still talk to the module. A genetlink dump
# in flight holds a module reference (netlink_dump_start), and rmmod does
# not wait (O_NONBLOCK), so it may be told EAGAIN: try again, as a user
# would. Any other refusal, or one that lasts, is a failure.
unload_busy() {
	retry_busy 'temporarily unavailable' rmmod fnblk || {
		teardown_failed "rmmod: $(cat $tmp/busy.out)"
		return 1
	}
	[ $busy -eq 0 ] || echo "# cycle $c: rmmod busy for $((busy / 10)).$((busy % 10)) s (a netlink dump in flight)"
}

mem_avail() { awk '/^MemAvailable:/ { print $2 }' /proc/meminfo; }

echo "TAP version 13"
echo 3 >/proc/sys/vm/drop_caches
mem0=$(mem_avail)
dmesg_lines=$(dmesg | wc -l)
t0=$(date +%s)

c=$((FIRST - 1))
while [ $c -lt $LAST ]; do
	c=$((c + 1))
	fn=$(pick $c constant linear:2 table:1,0.5,0.25 power:0.5)
	policy=$(pick $((c / 4)) anon fifo weighted)
	engine=$(pick $c psync libaio io_uring)
	fleet_engine=$(pick $((c / 3)) uring psync)

	# A cycle that could not unload the module would make every later
	# one fail the same way: stop at the first.
	if [ -e /sys/module/fnblk ]; then
		teardown_failed "fnblk still loaded from the cycle before; stopped"
		break
	fi
	load || { teardown_failed "module does not load"; continue; }
	t fnblkctl dev add fnblk1 size 64MiB bw 32MiB/s fn $fn policy $policy \
		grace 2ms >/dev/null || teardown_failed "dev add fnblk1"
	t fnblkctl dev add fnblk2 size 64MiB bw 32MiB/s latency 100us \
		>/dev/null || teardown_failed "dev add fnblk2"
	wait_dev fnblk1
	wait_dev fnblk2
	# Held open all along: deleting fnblk1 or unloading must be refused.
	exec 7</dev/fnblk1

	fnblk-fleet -q --jobs 3 --compute 5ms --size 256KiB --cycles 4 \
		--engine $fleet_engine --seed $c -o $tmp/fleet.csv /dev/fnblk1 \
		>$tmp/fleet.out 2>&1 &
	fleet=$!
	fio --name=stress --filename=/dev/fnblk2 --direct=1 --rw=randwrite \
		--bs=$(pick $c 4k 16k 64k) --size=2m --numjobs=2 --offset_increment=4m \
		--ioengine=$engine --iodepth=4 --verify=crc32c --do_verify=1 \
		--eta=never --output=$tmp/fio.out >/dev/null 2>&1 &
	fio=$!

	# Race every command against the I/O until both are done.
	r=0
	while kill -0 $fleet 2>/dev/null || kill -0 $fio 2>/dev/null; do
		r=$((r + 1))
		t fnblkctl dev set fnblk1 bw $((8 + (c + r) % 48))MiB/s >/dev/null
		t fnblkctl dev set fnblk1 fn $(pick $r constant linear:3 table:1,0.75) >/dev/null
		t fnblkctl dev set fnblk2 latency $(pick $r 0 50us 1ms) >/dev/null
		# Refused while I/O is in flight, accepted when idle: either way
		# it must answer.
		t fnblkctl dev set fnblk1 key $(pick $r pid tgid cgroup) >/dev/null 2>&1
		t fnblkctl dev set fnblk2 policy $(pick $r fifo anon weighted) >/dev/null 2>&1
		t fnblkctl stats reset fnblk$((1 + r % 2)) >/dev/null
		t fnblkctl weight fnblk1 $(pick $r $fleet $$ 1 18446744073709551615) \
			$((1 + r % 9)) >/dev/null
		t fnblkctl users fnblk1 >/dev/null
		t fnblkctl stats fnblk2 >/dev/null
		t fnblkctl dev add fnblk3 size 16MiB >/dev/null
		t dd if=/dev/fnblk3 of=/dev/null bs=4k count=4 2>/dev/null
		t fnblkctl dev del fnblk3 >/dev/null 2>&1
		t fnblkctl dev del fnblk1 >/dev/null 2>&1 &&
			refused "an open device was deleted"
		t rmmod fnblk 2>/dev/null &&
			{ refused "the module was unloaded with a device open"; break; }
	done
	wait_for $fleet "fnblk-fleet"
	rc=$?
	[ $rc -eq 0 ] || io_failed "fnblk-fleet ($fleet_engine) exit $rc: $(tail -n 2 $tmp/fleet.out)"
	wait_for $fio "fio"
	rc=$?
	[ $rc -eq 0 ] || io_failed "fio ($engine) exit $rc: $(grep -i -m2 'verify\|err' $tmp/fio.out)"

	exec 7<&-
	# Teardown with a reader and a monitor still talking to the module.
	(while :; do fnblkctl -j stats >/dev/null 2>&1; fnblkctl dev show >/dev/null 2>&1; done) &
	reader=$!
	fnblkctl monitor >/dev/null 2>&1 &
	monitor=$!
	for d in fnblk1 fnblk2 fnblk3; do
		[ -e /sys/block/$d ] && del_dev $d
	done
	unload_busy
	kill $reader $monitor 2>/dev/null
	wait_for $reader "netlink reader"
	wait_for $monitor "event monitor"
	[ -e /sys/module/fnblk ] && { rmmod fnblk 2>/dev/null || teardown_failed "module still loaded"; }

	# Kernel warnings of this cycle.
	new=$(dmesg | tail -n +$((dmesg_lines + 1)) |
		grep -E 'BUG:|WARNING:|UBSAN:|KASAN|Oops|general protection|ODEBUG|blocked for more than')
	dmesg_lines=$(dmesg | wc -l)
	if [ -n "$new" ]; then
		warnings=$((warnings + 1))
		[ -n "$first_warning" ] || first_warning="cycle $c: $(echo "$new" | head -n 1)"
		echo "$new" | head -n 3 | sed "s/^/# cycle $c: /"
	fi
done
elapsed=$(($(date +%s) - t0))
echo "# $CYCLES cycles ($FIRST to $LAST) in $elapsed s"

check_eq "$CYCLES cycles without a hang" "$hangs${first_hang:+ ($first_hang)}" 0
check_eq "busy devices and the busy module were never removed" \
	"$refusals${first_refusal:+ ($first_refusal)}" 0
check_eq "every cycle's I/O completed and verified" "$io_fail${first_io:+ ($first_io)}" 0
check_eq "every cycle loaded, deleted its devices and unloaded" \
	"$teardown${first_teardown:+ ($first_teardown)}" 0
check_eq "no kernel warning" "$warnings${first_warning:+ ($first_warning)}" 0

# Memory comes back: every cycle stored about 5 MiB, so leaking the stores
# would cost 5 MiB a cycle, far above this margin (which leaves room for
# KASAN's quarantine on the debug kernel, where kmemleak checks finer).
echo 3 >/proc/sys/vm/drop_caches
mem1=$(mem_avail)
echo "# MemAvailable before $mem0 kB, after $mem1 kB"
check "memory came back (within 96 MiB)" test $((mem0 - mem1)) -lt 98304

echo "1..$n"
[ $failed -eq 0 ]
