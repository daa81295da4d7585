#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of "make check": run the installed fnblk kselftests with the
# kernel's own runner, showing the TAP output and keeping it in
# /results/kselftest.tap.
# usage: selftests.sh [TEST...]   (default: every test in the list)
# Exits 1 if any test failed.

cd /opt/kselftest || { echo "no /opt/kselftest in this guest"; exit 1; }
for t in "$@"; do
	shift
	set -- "$@" -t "fnblk:$t"
done
./run_kselftest.sh "$@" 2>&1 | tee /results/kselftest.tap
! grep -q '^not ok' /results/kselftest.tap
