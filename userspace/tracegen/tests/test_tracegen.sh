#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# fnblk-tracegen end to end on records made here: split halves by time,
# fit, generate (deterministic for a seed), and fidelity: a synthetic
# trace of the model is close to its own training records and a trace of
# other records is not. TAP.
set -u
tg=$(dirname "$0")/../fnblk-tracegen
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_tracegen.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0
check() {
	d=$1
	shift
	n=$((n + 1))
	if "$@"; then echo "ok $n - $d"; else echo "not ok $n - $d"; failed=1; fi
}
# records DAYS CPU: a batch of 2 at 03:00 and 15:00 each day
records() {
	echo "pandaid,creationtime,computingsite,cpuconsumptiontime,corecount,inputfilebytes,outputfilebytes,ninputdatafiles,transfertype,jobname"
	i=0
	d=1
	while [ $d -le "$1" ]; do
		for h in 03 15; do
			for k in 0 1; do
				i=$((i + 1))
				printf '%d,2025-01-%02d %s:00:0%d,X,%d,1,%d,4096,1,direct,user.u.data18_x\n' \
					$i $d $h $k $(($2 + 7 * k + d)) $((1048576 * (k + 1)))
			done
		done
		d=$((d + 1))
	done
}
records 20 100 >"$tmp/r.csv"
records 20 5000 >"$tmp/other.csv"
"$tg" split --train "$tmp/a.csv" --test "$tmp/b.csv" "$tmp/r.csv"
check "split writes two halves" [ "$(grep -c '^[0-9]' "$tmp/a.csv")" -eq 40 ] && \
	[ "$(grep -c '^[0-9]' "$tmp/b.csv")" -eq 40 ]
check "the training half is the earlier" [ "$(sed -n 2p "$tmp/a.csv" | cut -d, -f2)" = "2025-01-01 03:00:00" ]
"$tg" fit -o "$tmp/m.json" "$tmp/a.csv"
check "fit writes a model" grep -q '"format": "fnblk-tracemodel 1"' "$tmp/m.json"
"$tg" generate --jobs 400 --seed 4 -o "$tmp/s1.csv" "$tmp/m.json"
"$tg" generate --jobs 400 --seed 4 -o "$tmp/s2.csv" "$tmp/m.json"
check "generate: 400 jobs" [ "$(grep -c '^[0-9]' "$tmp/s1.csv")" -eq 400 ]
check "the same seed writes the same trace" cmp -s "$tmp/s1.csv" "$tmp/s2.csv"
"$tg" fidelity "$tmp/a.csv" "$tmp/s1.csv" >"$tmp/f.txt"
check "fidelity runs" [ $? -eq 0 ]
ks=$(awk '$1 == "cpu_s" { print $2 }' "$tmp/f.txt")
check "CPU time close to the training records (KS $ks < 0.3)" awk -v k="$ks" 'BEGIN { exit !(k < 0.3) }'
"$tg" fidelity "$tmp/other.csv" "$tmp/s1.csv" >"$tmp/f2.txt"
ks2=$(awk '$1 == "cpu_s" { print $2 }' "$tmp/f2.txt")
check "and far from other records (KS $ks2 = 1)" awk -v k="$ks2" 'BEGIN { exit !(k > 0.99) }'
hours=$(cut -d, -f2 "$tmp/s1.csv" | grep -c ' 03:\| 15:')
check "arrivals keep the hours of day ($hours of 400 at 03h or 15h)" [ "$hours" -ge 280 ]
"$tg" fit "$tmp/nothing.csv" >/dev/null 2>"$tmp/err"
check "fit of a missing file: exit 1" [ $? -eq 1 ]
echo '{"format": "other"}' >"$tmp/bad.json"
"$tg" generate "$tmp/bad.json" >/dev/null 2>"$tmp/err"
check "generate refuses what is not a model" [ $? -eq 1 ] && grep -q "not a trace model" "$tmp/err"
echo "1..$n"
exit $failed
