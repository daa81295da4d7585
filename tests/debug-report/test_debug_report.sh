#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# scripts/debug-report on sample logs (logs/): every kind of checker report
# is found once, with its trace and nothing after it; repeats are counted
# as one finding; a clean log (kernel messages that merely mention the
# checkers, test output that says WARNING) has none; a scanner that cannot
# read its input fails instead of passing. Prints TAP.

cd "$(dirname "$0")" || exit 1
. ../../selftests/fnblk/lib_tap.sh
report=../../scripts/debug-report
out=$(mktemp)
trap 'rm -f "$out"' EXIT

run() { # log [kmemleak]: the report in $out, the status in $rc
	$report "$@" >"$out" 2>&1
	rc=$?
}

# "kind count" lines of the findings in $out, sorted.
kinds() {
	sed -n 's/^--- finding [0-9]*: \([a-z-]*\).*/\1/p' "$out" | sort | uniq -c |
		awk '{ printf "%s %s ", $2, $1 }'
}

has() { grep -qF -- "$1" "$out"; }

run logs/clean.log
check_eq "clean log: exit 0" "$rc" 0
check_eq "clean log: no findings" "$(tail -n 1 "$out")" "debug-report: 0 findings"

run logs/lockdep.log
check_eq "lockdep: exit 1" "$rc" 1
check_eq "lockdep: one lockdep finding" "$(kinds)" "lockdep 1 "
check "lockdep: the report's trace is kept" has "fnblk_users_prune_locked+0x3c/0x100 [fnblk]"
check "lockdep: it ends with the trace" sh -c "! grep -q 'something normal' $out"

run logs/kasan_ubsan.log
check_eq "KASAN and UBSAN: kinds" "$(kinds)" "kasan 1 ubsan 1 "
check "KASAN: the free stack is kept" has "fnblk_dev_del+0x90/0x120 [fnblk]"
check "UBSAN: a repeated report is one finding, counted" has "finding 2: ubsan (2 times)"

run logs/misc.log
check_eq "sleep in atomic, debugobjects, WARN, hung task: kinds" "$(kinds)" \
	"atomic-sleep 1 debugobjects 1 hang 1 warning 1 "
check "debugobjects: the WARN that follows ODEBUG belongs to it" \
	has "WARNING: CPU: 0 PID: 600 at lib/debugobjects.c"

# A real lockup on the debug kernel as scripts/vm boots it (its stall
# settings; record-lockup.sh): the detectors still report it, and each
# report is a finding.
run logs/lockup.log
check "lockup: booted with the debug guests' stall settings" \
	grep -q 'watchdog_thresh=25 rcupdate.rcu_cpu_stall_timeout=60' logs/lockup.log
check_eq "lockup: the soft lockup and the RCU stall are findings" "$(kinds)" "hang 2 "
check "lockup: the soft lockup names the spinning module" \
	sh -c "grep -A 30 'soft lockup' $out | grep -q 'lockup_test_init'"
check "lockup: so does the RCU stall" \
	sh -c "grep -A 30 'detected stall' $out | grep -q 'lockup_test_init'"

run logs/clean.log logs/kmemleak.txt
check_eq "kmemleak: one finding per backtrace" "$(kinds)" "kmemleak 2 "
check "kmemleak: objects with the same backtrace are counted" has "kmemleak (2 objects)"
check_eq "kmemleak: exit 1" "$rc" 1

# A report cut off by the end of the log is still a finding.
head -n 20 logs/lockdep.log >"$out.log"
run "$out.log"
check_eq "a report cut off at the end of the log is found" "$(kinds)" "lockdep 1 "
rm -f "$out.log"

run /nonexistent/console.log
check_eq "an unreadable log fails with status 2" "$rc" 2

echo "1..$n"
[ $failed -eq 0 ]
