#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The guest's watchdog, scripts/guest/fnblk-deadline (the guest's /init runs its
# command under it), run here under busybox sh, the guest's shell, and
# dash: a command's status comes back; a command out of time gets its
# state dumped and its whole session killed, even one that ignores TERM;
# and one that cannot be killed at all (a task stuck in the kernel; played
# here by a kill that does nothing) is given up on within bounded time
# instead of being waited for, as coreutils timeout would.
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
. "$src/selftests/fnblk/lib_tap.sh"
deadline=$src/scripts/guest/fnblk-deadline

tmp=$(mktemp -d)
# The dumps' sysrq commands go here, not to this host's kernel.
export FNBLK_DEADLINE_SYSRQ="$tmp/sysrq" FNBLK_DEADLINE_KMSG="$tmp/kmsg"
leftover=
cleanup() {
	[ -n "$leftover" ] && kill -KILL "-$leftover" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

# No process of session sid is left (zombies aside)?
session_gone() { # sid
	sid=$1
	for d in /proc/[0-9]*; do
		# After "comm) ": state ppid pgrp session ...
		s=$(sed 's/.*) //' "$d/stat" 2>/dev/null) || continue
		# shellcheck disable=SC2086 # split into fields
		set -- $s
		[ "$4" = "$sid" ] && [ "$1" != Z ] && return 1
	done
	return 0
}

for shell in "busybox sh" dash; do
	command -v "${shell%% *}" >/dev/null || { skip "$shell" "not installed"; continue; }
	# shellcheck disable=SC2086 # the shell and its argument
	set -- $shell

	"$@" "$deadline" 5 sh -c 'exit 7' >"$tmp/out" 2>&1
	check_eq "$shell: the command's status comes back" "$?" 7
	check "$shell: no dump when in time" sh -c "! grep -q dump '$tmp/out'"

	# A command whose child outlives it: the whole session must go.
	: >"$tmp/sysrq"
	: >"$tmp/kmsg"
	t0=$(date +%s)
	"$@" "$deadline" 2 sh -c 'echo $$ >"$1"; sleep 60 & sleep 60' sh "$tmp/pid" \
		>"$tmp/out" 2>&1
	rc=$?
	t=$(($(date +%s) - t0))
	check_eq "$shell: out of time: status 124" "$rc" 124
	check "$shell: says it timed out" grep -q 'FNBLK-VM: command timed out after 2 s' "$tmp/out"
	check "$shell: dumps the processes' states, marked in the kernel's log" \
		grep -q '^<3>FNBLK-VM: dump begin: the command ran out of its 2 s' "$tmp/kmsg"
	check "$shell: the dump ends" grep -q '^<3>FNBLK-VM: dump end' "$tmp/kmsg"
	check_eq "$shell: the dump asks sysrq for the blocked tasks, then every task" \
		"$(tr '\n' ' ' <"$tmp/sysrq")" "w t "
	rm -f "$tmp/sysrq" "$tmp/kmsg"	# from here on, marks on stdout
	check "$shell: the dump lists the command with its state" \
		grep -qE "^FNBLK-VM: ps $(cat "$tmp/pid") S .*sleep 60" "$tmp/out"
	sleep 0.5
	check "$shell: the command and its child are gone" \
		session_gone "$(cat "$tmp/pid")"
	# Not waited for: its command would take 60 s. The dump reads every
	# process of /proc, a few in the guest but a hundred or more on a
	# host, starting a program for each (tr), so the bound is loose.
	check "$shell: ends long before its command would ($t s)" [ "$t" -le 30 ]

	# A test in a process group of its own (the runner's inner timeout
	# makes one, its outer one relays signals to it) out of time while
	# its last line is still held by the runner's prefixing sed (busybox
	# sed passes a pipe's output on 4 KiB at a time): the line must
	# come out before the command is killed, and nothing be left.
	"$@" "$deadline" 2 sh -c 'echo $$ >"$1"; /usr/bin/timeout --foreground 100 \
		/usr/bin/timeout 100 sh -c "echo ok 1 - before the hang; exec sleep 120" 2>&1 |
		busybox sed "s/^/# /" | cat' sh "$tmp/pid" >"$tmp/out" 2>&1
	check_eq "$shell: out of time: a test's last line passes the runner's pipeline first" \
		"$(grep -c '^# ok 1 - before the hang$' "$tmp/out")" 1
	sleep 0.5
	check "$shell: out of time: the test and its pipeline are gone" \
		session_gone "$(cat "$tmp/pid")"

	# TERM ignored: KILL 5 s later.
	"$@" "$deadline" 1 sh -c 'trap "" TERM; echo $$ >"$1"; sleep 60' sh "$tmp/pid" \
		>"$tmp/out" 2>&1
	check_eq "$shell: TERM ignored: status 124" "$?" 124
	sleep 0.5
	check "$shell: TERM ignored: killed anyway" \
		session_gone "$(cat "$tmp/pid")"

	"$@" "$deadline" >"$tmp/out" 2>&1
	check_eq "$shell: no command: usage error" "$?" 2
	"$@" "$deadline" 0 true >"$tmp/out" 2>&1
	check_eq "$shell: a limit of 0 s: usage error" "$?" 2
done

# --watch: the runner's lines pass unchanged, each result followed by the
# program's time in seconds; a program still running 15 s
# before the runner's timeout (17 s here) gets a dump, one ending sooner
# none. A process whose command line holds newlines (sh -c SCRIPT; here
# one whose script has a line like a dump's) is listed on one line.
sh -c 'sleep 60
: FNBLK-VM: dump begin: not a dump, a line of a script' &
scripted=$!
for shell in "busybox sh" dash; do
	command -v "${shell%% *}" >/dev/null || continue
	# shellcheck disable=SC2086 # the shell and its argument
	set -- $shell
	rm -f "$tmp/console" "$tmp/sysrq"
	{
		echo "# selftests: fnblk: slow_test"
		sleep 3
		echo "not ok 1 selftests: fnblk: slow_test # TIMEOUT 17 seconds"
		echo "# selftests: fnblk: quick_test"
		sleep 1
		echo "ok 2 selftests: fnblk: quick_test"
		sleep 2
	} | FNBLK_DEADLINE_CONSOLE=$tmp/console "$@" "$deadline" --watch 17 >"$tmp/out"
	check_eq "$shell: --watch passes the runner's lines on, each result followed by its time" \
		"$(sed 's/: [0-9]* s$/: T s/' "$tmp/out")" \
		"$(printf '%s\n' '# selftests: fnblk: slow_test' \
			'not ok 1 selftests: fnblk: slow_test # TIMEOUT 17 seconds' \
			'# fnblk: slow_test: T s' \
			'# selftests: fnblk: quick_test' 'ok 2 selftests: fnblk: quick_test' \
			'# fnblk: quick_test: T s')"
	slow=$(sed -n 's/^# fnblk: slow_test: \([0-9]*\) s$/\1/p' "$tmp/out")
	quick=$(sed -n 's/^# fnblk: quick_test: \([0-9]*\) s$/\1/p' "$tmp/out")
	# The slow one's lines came 3 s apart: at least 2 whole seconds
	# between them by the clock, whatever the load.
	check "$shell: --watch times the programs (3 s: $slow s, 1 s: $quick s)" \
		test "${slow:-0}" -ge 2 -a "$slow" -le 60 -a "${quick:-99}" -le 60
	check "$shell: --watch dumps the state of a program near its timeout" \
		grep -q '^FNBLK-VM: dump begin: fnblk: slow_test still running after 2 s' "$tmp/console"
	# Only the dump's own first lines count: its process list shows this
	# host's command lines, which may hold the words (scripts/vm's awk
	# while a VM runs).
	check_eq "$shell: --watch dumps once, not for the quick program" \
		"$(grep -c '^FNBLK-VM: dump begin: ' "$tmp/console")" 1
	check "$shell: a command line's newlines do not start lines of the dump" \
		sh -c "! grep -q '^: FNBLK-VM' '$tmp/console'"

	# The runner's output read through a pipe, as selftests.sh's tee
	# does: it must end when the runner does, not when a watcher's
	# sleep (45 s here) would have.
	t0=$(date +%s)
	{
		echo "# selftests: fnblk: quick_test"
		echo "ok 1 selftests: fnblk: quick_test"
	} | FNBLK_DEADLINE_CONSOLE=$tmp/console "$@" "$deadline" --watch 60 | cat >/dev/null
	t=$(($(date +%s) - t0))
	check "$shell: --watch's reader sees the end at once ($t s)" [ "$t" -le 5 ]
done
kill "$scripted" 2>/dev/null

# A command no signal ends (the guest's task in D state): given up on
# 5 s after its KILL, not waited for. Only in the guest's shell. The
# bound holds on a loaded machine because the deadline's waits are by
# the clock and its dumps start at most one program a process: before,
# each wait was 50 looks of 0.1 s that started three programs each, and
# each dump six a process, so at nice 19 on this host at load 5.6 the
# case took 72 s (27 s since).
t0=$(date +%s)
FNBLK_DEADLINE_KILL=true busybox sh "$deadline" 2 \
	sh -c 'echo $$ >"$1"; exec sleep 120' sh "$tmp/pid" >"$tmp/out" 2>&1
rc=$?
t=$(($(date +%s) - t0))
leftover=$(cat "$tmp/pid")
check_eq "unkillable: status 124" "$rc" 124
check "unkillable: says it goes on without it" \
	grep -q "FNBLK-VM: the command (pid $leftover, state S) cannot be killed: going on without it" "$tmp/out"
check "unkillable: dumps the state again" \
	grep -q 'FNBLK-VM: dump begin: the command cannot be killed' "$tmp/out"
check "unkillable: returns long before the command would end (2 + 5 + 5 s and its dumps: $t s)" [ "$t" -le 60 ]
check "unkillable: it was still running" kill -0 "$leftover"

echo "1..$n"
[ "$failed" -eq 0 ]
