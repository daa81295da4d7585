#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# scripts/vm-lock: runs a command holding the VM lock, waits while another
# process holds it, and neither waits nor takes it again when its caller
# holds it (flock LOCK make ... -> scripts/vm-lock make ...). And
# scripts/vm with FNBLK_VM_LOCK (as make fresh-check runs it): its guest
# waits for the lock, and it says how long. A private lock file stands in
# for /tmp/fnblk-vm.lock, a fake qemu for the guest.
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
. "$src/selftests/fnblk/lib_tap.sh"

tmp=$(mktemp -d)
FNBLK_VM_LOCK_FILE=$tmp/vm.lock
export FNBLK_VM_LOCK_FILE
unset FNBLK_VM_LOCK FNBLK_VM_LOCK_HELD
vl=$src/scripts/vm-lock
holder=

cleanup() {
	[ -z "$holder" ] || kill "$holder" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

check "not held: --held says no" sh -c "! '$vl' --held"
: >"$FNBLK_VM_LOCK_FILE"
# /proc/locks names no holder for a lock whose taker (flock 9) has exited
# when it is read in a PID namespace (make fresh-check's root): the case
# cannot be told there.
: >"$tmp/probe"
if ! bash -c "exec 8>'$tmp/probe'; flock 8
	grep -q ':$(stat -c %i "$tmp/probe") ' /proc/locks"; then
	skip "held by the caller through a descriptor" "in a PID namespace"
else
	check "held by the caller through a descriptor (exec 9>FILE; flock 9): --held says yes" \
		bash -c "exec 9>'$FNBLK_VM_LOCK_FILE'; flock 9; '$vl' --held"
fi
check "the command runs holding the lock" "$vl" "$vl" --held
check_eq "the command's exit status comes back" "$("$vl" sh -c 'exit 3'; echo $?)" 3

: >"$FNBLK_VM_LOCK_FILE"
check "under the caller's flock: runs at once, without waiting" \
	timeout 10 flock "$FNBLK_VM_LOCK_FILE" "$vl" "$vl" --held

check "--fd: the caller holds the lock on its descriptor once it returns" \
	bash -c "exec 7>>'$FNBLK_VM_LOCK_FILE'; '$vl' --fd 7 && ! flock -n '$FNBLK_VM_LOCK_FILE' true"
check "released when the caller's descriptor closes" flock -n "$FNBLK_VM_LOCK_FILE" true
check_eq "--fd with a descriptor that is not open: usage error" \
	"$("$vl" --fd 99 2>/dev/null; echo $?)" 2

# Polls CMD every 0.1 s until it succeeds or TRIES polls have failed.
poll() {
	local tries=$1 i=0

	shift
	while ! "$@" && [ $i -lt "$tries" ]; do
		sleep 0.1
		i=$((i + 1))
	done
}

flock -o "$FNBLK_VM_LOCK_FILE" sleep 30 &
holder=$!
poll 50 grep -q "FLOCK.* $holder " /proc/locks
check "held by another process: --held says no" sh -c "! '$vl' --held"

# Each descriptor of each ancestor is compared with the lock file: with
# builtins, not a stat process apiece (40 descriptors here, hundreds under
# make -j), which made the walk take seconds on a loaded host.
real_stat=$(command -v stat)
mkdir "$tmp/counting"
printf '#!/bin/sh\necho >>"%s"\nexec "%s" "$@"\n' "$tmp/stat.calls" "$real_stat" \
	>"$tmp/counting/stat"
chmod +x "$tmp/counting/stat"
: >"$tmp/stat.calls"
PATH=$tmp/counting:$PATH bash -c 'for fd in $(seq 20 59); do eval "exec $fd</dev/null"; done
	"$1" --held' sh "$vl"
check_eq "--held runs stat once (the lock's inode), not once per descriptor" \
	"$(wc -l <"$tmp/stat.calls")" 1

# Waits while the holder has it, and says so: the message is awaited (its
# walk of the ancestors comes first), then the command must not have run.
waits_and_says_so() { # what command...
	local what=$1 pid

	shift
	rm -f "$tmp/ran"
	"$@" 2>"$tmp/wait.err" &
	pid=$!
	poll 300 grep -q "^vm: waiting for the VM lock $FNBLK_VM_LOCK_FILE\$" "$tmp/wait.err"
	check "$what: says it waits for the VM lock" \
		grep -q "^vm: waiting for the VM lock $FNBLK_VM_LOCK_FILE\$" "$tmp/wait.err"
	sleep 0.5
	check "$what: still waiting, the command not run" sh -c "kill -0 $pid && [ ! -e '$tmp/ran' ]"
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
}
waits_and_says_so "held by another process" "$vl" touch "$tmp/ran"
waits_and_says_so "--fd" bash -c "exec 7>>'$FNBLK_VM_LOCK_FILE'; '$vl' --fd 7 && touch '$tmp/ran'"

if ls /boot/vmlinuz-* >/dev/null 2>&1; then
	mkdir "$tmp/bin"
	printf '#!/bin/sh\necho "FNBLK-VM-EXIT: 0"\n' >"$tmp/bin/qemu-system-x86_64"
	chmod +x "$tmp/bin/qemu-system-x86_64"
	PATH=$tmp/bin:$PATH FNBLK_VM_LOCK=$FNBLK_VM_LOCK_FILE \
		"$src/scripts/vm" -a tcg -t 60 -o "$tmp/out" -- true 2>"$tmp/vm.err" &
	vm=$!
	# It builds the initramfs first (a minute on a busy host), then asks
	# for the lock: wait for it to say it is waiting, not a fixed time.
	poll 3000 sh -c "grep -q 'waiting for the VM lock' '$tmp/vm.err' ||
		! kill -0 $vm" 2>/dev/null
	sleep 0.5
	check "scripts/vm with FNBLK_VM_LOCK waits while another VM holds it" \
		kill -0 "$vm"
	check "and says so" grep -q "waiting for the VM lock $FNBLK_VM_LOCK_FILE" "$tmp/vm.err"
fi
kill "$holder"
wait "$holder" 2>/dev/null
holder=
if [ -n "${vm:-}" ]; then
	# scripts/vm was waiting too: it may take the lock first, so it ends
	# before the command below is judged.
	wait "$vm"
	check_eq "released: scripts/vm runs its guest" "$?" 0
	check "and says how long it waited" grep -q "waited [0-9]* s for the VM lock" "$tmp/vm.err"
fi
check "released: the command runs" timeout 10 "$vl" true 2>/dev/null
if [ -n "${vm:-}" ]; then
	# "flock LOCK make check" with FNBLK_VM_LOCK=LOCK as well: no deadlock.
	PATH=$tmp/bin:$PATH FNBLK_VM_LOCK=$FNBLK_VM_LOCK_FILE timeout 20 \
		flock "$FNBLK_VM_LOCK_FILE" "$src/scripts/vm" -a tcg -t 60 -o "$tmp/out" -- true \
		2>"$tmp/vm2.err"
	check_eq "FNBLK_VM_LOCK under a caller that holds the lock: runs at once" "$?" 0
	# The same for scripts/experiments/run (it waited for ever): it gets
	# as far as refusing an experiment that does not exist. Its build
	# comes first, and is not what is tested: a make that does nothing
	# (a build of a stale tree outlasted the timeout on a loaded host).
	printf '#!/bin/sh\nexit 0\n' >"$tmp/bin/make"
	chmod +x "$tmp/bin/make"
	PATH=$tmp/bin:$PATH FNBLK_VM_LOCK=$FNBLK_VM_LOCK_FILE timeout 20 \
		flock "$FNBLK_VM_LOCK_FILE" \
		"$src/scripts/experiments/run" -o "$tmp/exp" no-such-experiment >/dev/null 2>&1
	check_eq "experiments/run under a caller that holds the lock: no wait" "$?" 2
else
	skip "scripts/vm with FNBLK_VM_LOCK" "no kernel in /boot"
fi

echo "1..$n"
[ "$failed" -eq 0 ]
