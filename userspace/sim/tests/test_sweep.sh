#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# fnblk-sim sweep ranks policies: with every record at site A and site B
# idle, spreading jobs (least-loaded) must queue less than keeping them
# where they were recorded, and a policy the records cannot follow is
# reported, not fatal. TAP.
set -u
sim=$(dirname "$0")/../fnblk-sim
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_sweep.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0
check() {
	d=$1
	shift
	n=$((n + 1))
	if "$@"; then echo "ok $n - $d"; else echo "not ok $n - $d"; failed=1; fi
}
{
	echo "pandaid,creationtime,computingsite,cpuconsumptiontime,corecount,inputfilebytes,outputfilebytes,ninputdatafiles,transfertype,jobstatus"
	for i in 1 2 3 4 5 6; do
		echo "$i,2025-01-01 00:00:0$i,A,4,1,1048576,1048576,1,copy,finished"
	done
} >"$tmp/r.csv"
"$sim" sweep --seeds 5 --time-scale 1 --byte-scale 1 --stageins copy \
	--site A,slots=1,bw=1MiB/s --site B,slots=1,bw=1MiB/s "$tmp/r.csv" >"$tmp/out" 2>&1
check "sweep runs" [ $? -eq 0 ]
check "least-loaded ranks first" [ "$(awk '$1 == "1" { print $2 }' "$tmp/out")" = least-loaded ]
check "recorded ranks last" [ "$(awk '$1 == "3" { print $2 }' "$tmp/out")" = recorded ]
check "the worst to check in emulation is recorded" \
	grep -q "^worst: fnblk-replay --assign recorded --stagein copy" "$tmp/out"
"$sim" sweep --seeds 2 --time-scale 1 --byte-scale 1 --site B,slots=1 "$tmp/r.csv" >"$tmp/out2" 2>&1
check "a site the records name but nobody gives: recorded is reported unusable" \
	grep -q "^-  *recorded .*job 1 ran at site 'A'" "$tmp/out2"
"$sim" sweep --by nothing --site A "$tmp/r.csv" >/dev/null 2>"$tmp/err"
check "--by an unknown figure is a usage error" [ $? -eq 2 ]
echo "1..$n"
exit $failed
