#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Two comparisons of the variants at once in the same tree (as when a make
# check runs the host tests while someone runs make test by hand) must both
# pass: when the outputs were shared files under obj/, one run compared the
# native output with the other run's half-written one (1 to 3 failures in
# 15 rounds on a loaded host). Exits 1, with both runs' output, if either
# failed in ROUNDS rounds.
# Usage: test_parallel_runs.sh ROUNDS "VARIANTS" "TESTS"
rounds=$1
log=$(mktemp -d) || exit 1
trap 'rm -rf "$log"' EXIT

i=0
while [ $i -lt "$rounds" ]; do
	i=$((i + 1))
	./compare_variants.sh 1 "$2" "$3" >"$log/a" 2>&1 &
	a=$!
	./compare_variants.sh 1 "$2" "$3" >"$log/b" 2>&1
	rb=$?
	wait $a
	ra=$?
	if [ $ra -ne 0 ] || [ $rb -ne 0 ]; then
		echo "round $i: runs exited $ra and $rb"
		grep -h '^not ok\|^# [<>-]' "$log/a" "$log/b"
		exit 1
	fi
done
