#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of "make check": run the installed fnblk kselftests with the
# kernel's own runner, showing the TAP output and keeping it in
# /results/kselftest.tap.
# usage: selftests.sh [FNBLK_NAME=VALUE...] [TEST...]
#        (default: every test in the list; the settings are exported)
# Exits 1 if any test failed.
#
# On a kernel with kmemleak (the debug kernel, "make check-debug") leaks
# suspected before the tests are set aside first; after them fnblk is
# unloaded (its teardown counts too) and kmemleak's report goes to
# /results/kmemleak.txt, lockdep's state to /results/lockdep_stats.

kmemleak=/sys/kernel/debug/kmemleak
if [ -w $kmemleak ]; then
	echo scan >$kmemleak
	echo clear >$kmemleak
fi

cd /opt/kselftest || { echo "no /opt/kselftest in this guest"; exit 1; }
# A debug kernel runs everything about ten times slower: each test program
# gets that much longer (the harness tests scale their own deadlines,
# fnblk_test.h).
if [ -e /proc/lockdep ] || [ -e $kmemleak ]; then
	t=$(sed -n 's/^timeout=//p' fnblk/settings)
	[ -z "$t" ] || sed -i "s/^timeout=.*/timeout=$((t * ${FNBLK_TIMEOUT_SCALE:-10}))/" fnblk/settings
fi
# Arguments: tests to run, and settings for them (FNBLK_NAME=VALUE, e.g.
# FNBLK_STRESS_CYCLES=100), exported to every test.
for t in "$@"; do
	shift
	case $t in
	FNBLK_*=*) export "${t?}" ;;
	*) set -- "$@" -t "fnblk:$t" ;;
	esac
done

# A program still running 15 s before the runner's timeout kills it gets
# the guest's state dumped to the console while it is still stuck.
limit=$(sed -n 's/^timeout=//p' fnblk/settings)
./run_kselftest.sh "$@" 2>&1 | /sbin/fnblk-deadline --watch "${limit:-0}" |
	tee /results/kselftest.tap
rc=0
grep -q '^not ok' /results/kselftest.tap && rc=1

if [ -w $kmemleak ]; then
	if [ -e /sys/module/fnblk ] && ! rmmod fnblk; then
		echo "FNBLK-VM: fnblk cannot be unloaded after the tests"
		rc=1
	fi
	# An object is reported once unreferenced for 5 s and two scans.
	sleep 6
	echo scan >$kmemleak
	sleep 6
	echo scan >$kmemleak
	cat $kmemleak >/results/kmemleak.txt
	echo "FNBLK-VM: kmemleak: $(grep -c '^unreferenced object' /results/kmemleak.txt) suspected leaks"
fi
[ -r /proc/lockdep_stats ] && cp /proc/lockdep_stats /results/lockdep_stats
exit $rc
