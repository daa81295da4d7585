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

# A check of a JSON report in Python (read from stdin, the file as argv[1]).
json_ok() { # name file
	if command -v python3 >/dev/null; then
		python3 - "$2"
		ok $? "$1"
	else
		cat >/dev/null
		n=$((n + 1)); echo "ok $n - $1 # SKIP no python3"
	fi
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
grep -Eq '^ +0 +5 +10.000 +10.000 +10.000 +10.000 +5.000 +2.000$' "$TMP/out.txt"
ok $? "slowdown 2 from the solo_ns param"

"$ANALYZE" --json "$TMP/run.jsonl" >"$TMP/out.json"
ok $? "JSON report from JSON lines input"
json_ok "JSON carries the same numbers" "$TMP/out.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
c = r["cycles"]
assert r["jobs"] == 2 and r["writes"] == 10
assert c["firing_order"]["changed"] == 0
assert c["return_maps"][0]["mean_step_ns"] == 0
# n = 1 for 20 of every 100ms, window 0 .. 440ms
assert abs(r["concurrency"]["measured"][1] - 100 / 440) < 1e-12
PY

"$ANALYZE" --plot "$TMP/plots" "$TMP/run.csv" >/dev/null
ok $? "plots drawn"
for f in n_t n_hist n_tail return_map kuramoto; do
	[ -s "$TMP/plots/$f.png" ] || { echo "# missing $f.png"; false; }
done
ok $? "five PNG figures"

# --skip-cycles reaches every figure: cycle 0 is one synchronous burst
# (both jobs write 0..10ms), cycles 1..4 are 50ms apart and never overlap.
{
	echo '# fnblk-events v1'
	echo '# param jobs=2'
	echo 'job,cycle,start_ns,end_ns,bytes'
	echo '0,0,0,10000000,4096'
	echo '1,0,0,10000000,4096'
	for c in 1 2 3 4; do
		s=$((c * 100000000))
		echo "0,$c,$s,$((s + 10000000)),4096"
		echo "1,$c,$((s + 50000000)),$((s + 60000000)),4096"
	done
} >"$TMP/burst.csv"
"$ANALYZE" --json --skip-cycles 1 "$TMP/burst.csv" >"$TMP/skip.json"
ok $? "--skip-cycles 1 on a start-up burst"
json_ok "skipped cycles leave concurrency, duty, baseline and cost" "$TMP/skip.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
c = r["concurrency"]
# Window 100ms .. 460ms: n = 1 for 4 x 20ms, never 2.
assert c["from_ns"] == 100000000 and c["to_ns"] == 460000000, (c["from_ns"], c["to_ns"])
assert c["measured"][2] == 0 and c["measured_tail"][2] == 0, c["measured"]
assert abs(c["measured"][1] - 80 / 360) < 1e-12, c["measured"]
assert abs(c["duty"][0] - 40 / 360) < 1e-12 and abs(c["duty"][1] - 40 / 360) < 1e-12, c["duty"]
assert all(j["writes"] == 4 for j in r["write_cost"]), r["write_cost"]
s = r["skip"]
assert s["cycles"] == 1 and s["writes_left_out"] == 2 and s["window_from_ns"] == 100000000, s
PY
"$ANALYZE" --skip-cycles 1 "$TMP/burst.csv" >"$TMP/skip.txt"
grep -q '^skip-cycles 1: ' "$TMP/skip.txt"
ok $? "the table report states what --skip-cycles left out"

# A simulator-sized fleet: 10,000 jobs x 20 cycles, phases spread over a
# 60 s period. All pairs would be 5e7 return maps; the analysis must stay
# within 1 GB of address space and two minutes.
awk 'BEGIN { print "# fnblk-events v1"; print "# param jobs=10000"
	print "job,cycle,start_ns,end_ns,bytes"
	for (c = 0; c < 20; c++) for (j = 0; j < 10000; j++) {
		s = (j * 7919 % 10000) * 6000000 + c * 60000000000
		printf "%d,%d,%.0f,%.0f,4096\n", j, c, s, s + 3000000000 + (j % 7) * 100000000 } }' \
	>"$TMP/big.csv"
(ulimit -v 1000000; timeout 120 "$ANALYZE" --json "$TMP/big.csv" >"$TMP/big.json")
ok $? "10,000 jobs analysed in under 1 GB and 2 minutes"
json_ok "neighbour pairs only, order frozen, shares add up, no bootstrap by default" "$TMP/big.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
c = r["cycles"]
assert r["writes"] == 200000 and c["complete"] == 20
assert c["pairs"] == "neighbours" and len(c["return_maps"]) == 9999
assert c["firing_order"]["changed"] == 0
assert abs(sum(r["concurrency"]["measured"]) - 1) < 1e-9
# Each write lasts 3.0-3.6 s of a 60 s period.
assert abs(r["concurrency"]["mean_n"] - sum(r["concurrency"]["duty"])) < 1e-6
assert "none" in r["concurrency"]["tail_ratio_ci"]
PY

# --pool: one point (gap, step) per file, the five points of the least-
# squares example worked by hand (x 0..4 ms, y 1 3 2 5 4 ms): slope 0.8,
# intercept 1.4 ms, s.e. sqrt(0.12) and sqrt(0.72) ms, residual rms
# sqrt(0.72) ms.
k=0
for xy in "0 1" "1 3" "2 2" "3 5" "4 4"; do
	set -- $xy
	{
		echo 'job,cycle,start_ns,end_ns,bytes'
		echo "0,0,0,1000,4096"
		echo "1,0,$(($1 * 1000000)),$(($1 * 1000000 + 1000)),4096"
		echo "0,1,100000000,100001000,4096"
		echo "1,1,$((100000000 + ($1 + $2) * 1000000)),$((100001000 + ($1 + $2) * 1000000)),4096"
	} >"$TMP/pool$k.csv"
	k=$((k + 1))
done
"$ANALYZE" --pool "$TMP"/pool[0-4].csv >"$TMP/pool.txt"
ok $? "--pool over five files"
grep -q 'over 5 points: step = 1.400 ms +0.80000 \* gap (slope s.e. 0.34641, intercept s.e. 0.849 ms), residual rms 0.849 ms' "$TMP/pool.txt"
ok $? "pooled regression: the known line and its standard errors"
"$ANALYZE" --pool --json "$TMP"/pool[0-4].csv >"$TMP/pool.json"
json_ok "the same in JSON" "$TMP/pool.json" <<'PY'
import json, math, sys
p = json.load(open(sys.argv[1]))["pooled"]
assert p["points"] == 5
assert abs(p["slope"] - 0.8) < 1e-12 and abs(p["intercept_ns"] - 1.4e6) < 1e-3
assert abs(p["slope_se"] - math.sqrt(0.12)) < 1e-12
assert abs(p["intercept_se_ns"] - math.sqrt(0.72) * 1e6) < 1e-3
PY
"$ANALYZE" "$TMP"/pool0.csv "$TMP"/pool1.csv 2>/dev/null; [ $? -eq 2 ]
ok $? "several files without --pool exit 2"

# --hosts: run.csv split into two hosts (job 1 alone on host 1, whose
# clock is 5 s ahead) analyses as run.csv itself, plus the hosts' view.
{
	sed -n '1,/^job,/{/^job,/!p}' "$TMP/run.csv" | sed 's/jobs=2/jobs=1/'
	echo 'job,cycle,start_ns,end_ns,bytes'
	grep '^0,' "$TMP/run.csv"
} >"$TMP/host0.csv"
{
	echo '# fnblk-events v1'
	echo '# source=sim'
	echo '# param jobs=1'
	echo '# param clock_offset_ns=-5000000000'
	echo 'job,cycle,start_ns,end_ns,bytes'
	awk -F, '$1 == 1 { printf "0,%s,%.0f,%.0f,%s\n", $2, $3 + 5e9, $4 + 5e9, $5 }' "$TMP/run.csv"
} >"$TMP/host1.csv"
"$ANALYZE" --hosts --merged "$TMP/merged.csv" "$TMP/host0.csv" "$TMP/host1.csv" >"$TMP/hosts.txt"
ok $? "--hosts merges two hosts' files"
grep -q 'firing order: 4 transitions, 0 changed' "$TMP/hosts.txt" &&
	grep -q '0-1 *30.000 *0.000 *0.000' "$TMP/hosts.txt"
ok $? "the merged run analyses as the run before the split (clock offset applied)"
grep -q '^hosts: 2, writing at once .* 0: 77.3% 1: 22.7% 2: 0.0%' "$TMP/hosts.txt" &&
	grep -Eq '^1 +1 +5 +0.0 +10.000 ' "$TMP/hosts.txt"
ok $? "hosts' view: never two at once; host 1's five 10 ms writes"
diff <(grep '^[0-9]' "$TMP/run.csv" | sort) <(grep '^[0-9]' "$TMP/merged.csv" | sort) >/dev/null &&
	grep -q '^# param host_jobs=1,1$' "$TMP/merged.csv"
ok $? "--merged writes the run's rows back, with host_jobs"
"$ANALYZE" "$TMP/merged.csv" | grep -q '^hosts: 2,'
ok $? "a merged file read alone still has its hosts"
"$ANALYZE" --hosts --json "$TMP/host0.csv" "$TMP/host1.csv" >"$TMP/hosts.json"
json_ok "the hosts' view in JSON" "$TMP/hosts.json" <<'PY'
import json, sys
h = json.load(open(sys.argv[1]))["hosts"]
assert h["hosts"] == 2 and h["writing_at_once_s"][2] == 0
assert [r["writes"] for r in h["per_host"]] == [5, 5]
PY
sed 's/clock_offset_ns=.*/clock_offset_ns=-9000000000/' "$TMP/host1.csv" >"$TMP/host1-bad.csv"
"$ANALYZE" --hosts "$TMP/host0.csv" "$TMP/host1-bad.csv" 2>"$TMP/err" >/dev/null
[ $? -eq 1 ] && grep -q 'host1-bad.csv: clock_offset_ns=-9000000000 moves a time out of range' "$TMP/err"
ok $? "an offset before the clock's 0 exits 1 naming the host"
"$ANALYZE" --merged "$TMP/m.csv" "$TMP/run.csv" 2>/dev/null; [ $? -eq 2 ]
ok $? "--merged without --hosts exits 2"

printf 'job,cycle,start_ns,end_ns,bytes\n0,0,5,3,1\n' >"$TMP/bad.csv"
"$ANALYZE" "$TMP/bad.csv" 2>"$TMP/err"; [ $? -eq 1 ] && grep -q 'bad.csv:2:' "$TMP/err"
ok $? "bad input exits 1 naming the line"
"$ANALYZE" --skip-cycles x "$TMP/run.csv" 2>/dev/null; [ $? -eq 2 ]
ok $? "bad option exits 2"
"$ANALYZE" 2>/dev/null; [ $? -eq 2 ]
ok $? "no file exits 2"
"$ANALYZE" --jobs 1 "$TMP/run.csv" 2>"$TMP/err" >/dev/null; [ $? -eq 2 ] &&
	grep -q "^fnblk-analyze: --jobs 1: .*run.csv has writes of job 1, beyond job 0" "$TMP/err"
ok $? "--jobs below a job of the file is reported, not dropped"

echo "1..$n"
[ "$failed" -eq 0 ]
