#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# scripts/vm killed while its guest runs (a caller's kill, a terminal
# closed, kill -9): the guest, here a fake qemu that would run for a
# minute, goes with it within seconds, and so does its hold on the VM
# lock, which the guest inherited. Before, the guest ran on to its own
# end, holding the lock all the while.
. "$(dirname "$0")/lib_fake_qemu.sh"
fake_qemu 'echo $$ >"$FAKE_PID"; exec sleep 60'
lock=$tmp/vm.lock

# Is process pid gone (or a zombie)?
gone() { # pid
	st=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null) || return 0
	[ "${st%% *}" = Z ]
}

wait_until() { # tries command...: poll every 0.1 s
	tries=$1
	shift
	while [ "$tries" -gt 0 ]; do
		"$@" && return 0
		sleep 0.1
		tries=$((tries - 1))
	done
	return 1
}

lock_free() { flock -n "$lock" true; }

# The pid a caller has is scripts/vm's, or with FNBLK_VM_LOCK set that of
# the flock process holding the lock for it (scripts/vm-lock).
for how in "TERM locked" "KILL locked" "TERM unlocked" "KILL unlocked"; do
	sig=${how% *}
	rm -f "$tmp/qemu.pid"
	if [ "${how#* }" = locked ]; then
		export FNBLK_VM_LOCK="$lock"
	else
		unset FNBLK_VM_LOCK
	fi
	FAKE_PID=$tmp/qemu.pid PATH=$tmp/bin:$PATH \
		"$src/scripts/vm" -a tcg -t 120 -o "$tmp/out" -- true \
		>"$tmp/stdout" 2>"$tmp/stderr" &
	vm=$!
	# The initramfs is built first: allow for a loaded host.
	if ! wait_until 600 test -s "$tmp/qemu.pid"; then
		check "$how: the fake guest started" false
		kill -KILL "$vm" 2>/dev/null
		continue
	fi
	qemu=$(cat "$tmp/qemu.pid")
	kill "-$sig" "$vm"
	wait "$vm" 2>/dev/null
	check "$how: the guest ends with scripts/vm" wait_until 100 gone "$qemu"
	check "$how: the VM lock is free again" wait_until 100 lock_free
	gone "$qemu" || kill -KILL "$qemu" 2>/dev/null
	wait_until 100 lock_free
done
unset FNBLK_VM_LOCK
echo "1..$n"
[ "$failed" -eq 0 ]
