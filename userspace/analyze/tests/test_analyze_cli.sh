#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# fnblk-analyze as a command: reads both formats, reports what the
# constructed run holds, exits 1 on bad input and 2 on bad usage.
set -u
ANALYZE=${1:-./fnblk-analyze}
TMP=$(mktemp -d /tmp/analyze-test.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
n=0 failed=0

ok() { # status name
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=$((failed + 1)); fi
}

# Two jobs, period 100ms, gap 30ms held for 5 cycles, 10ms writes.
{
	echo '# fnblk-events v1'
	echo '# source=sim'
	echo '# param jobs=2'
	echo '# param solo_ns.0=5000000'
	echo 'job,cycle,start_ns,end_ns,bytes'
	for c in 0 1 2 3 4; do
		s=$((c * 100000000))
		echo "0,$c,$s,$((s + 10000000)),4096"
		echo "1,$c,$((s + 30000000)),$((s + 40000000)),4096"
	done
} >"$TMP/run.csv"
sed -n 's/^\([0-9]*\),\([0-9]*\),\([0-9]*\),\([0-9]*\),\([0-9]*\)$/{"job":\1,"cycle":\2,"start_ns":\3,"end_ns":\4,"bytes":\5}/p' \
	"$TMP/run.csv" >"$TMP/run.jsonl"

"$ANALYZE" "$TMP/run.csv" >"$TMP/out.txt"
ok $? "table report"
grep -q 'firing order: 4 transitions, 0 changed' "$TMP/out.txt"
ok $? "firing order never changes"
grep -q '0-1 *30.000 *0.000 *0.000' "$TMP/out.txt"
ok $? "pair 0-1: gap 30ms, no step"
grep -Eq '^ +0 +5 +10.000 +5.000 +2.000$' "$TMP/out.txt"
ok $? "slowdown 2 from the solo_ns param"

"$ANALYZE" --json "$TMP/run.jsonl" >"$TMP/out.json"
ok $? "JSON report from JSON lines input"
if command -v python3 >/dev/null; then
	python3 - "$TMP/out.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
c = r["cycles"]
assert r["jobs"] == 2 and r["writes"] == 10
assert c["firing_order"]["changed"] == 0
assert c["return_maps"][0]["mean_step_ns"] == 0
# n = 1 for 20 of every 100ms, window 0 .. 440ms
assert abs(r["concurrency"]["measured"][1] - 100 / 440) < 1e-12
PY
	ok $? "JSON carries the same numbers"
else
	n=$((n + 1)); echo "ok $n - JSON check # SKIP no python3"
fi

"$ANALYZE" --plot "$TMP/plots" "$TMP/run.csv" >/dev/null
ok $? "plots drawn"
for f in n_t n_hist n_tail return_map kuramoto; do
	[ -s "$TMP/plots/$f.png" ] || { echo "# missing $f.png"; false; }
done
ok $? "five PNG figures"

printf 'job,cycle,start_ns,end_ns,bytes\n0,0,5,3,1\n' >"$TMP/bad.csv"
"$ANALYZE" "$TMP/bad.csv" 2>"$TMP/err"; [ $? -eq 1 ] && grep -q 'bad.csv:2:' "$TMP/err"
ok $? "bad input exits 1 naming the line"
"$ANALYZE" --skip-cycles x "$TMP/run.csv" 2>/dev/null; [ $? -eq 2 ]
ok $? "bad option exits 2"
"$ANALYZE" 2>/dev/null; [ $? -eq 2 ]
ok $? "no file exits 2"

echo "1..$n"
[ "$failed" -eq 0 ]
