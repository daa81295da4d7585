#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# fnblk-replay on the host, a regular file standing for the device
# (--buffered: the checks here are the ones that do not depend on a
# throttled device): the events it writes read back, every job ends, its
# failure draws are the simulator's to the attempt, and bad input is
# refused. The VM selftest replay_test.sh checks timing on fnblk. TAP.
set -u
here=$(cd "$(dirname "$0")" && pwd)
replay=$here/../fnblk-replay
sim=$here/../../sim/fnblk-sim
dev=$here/dev.img
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_replay.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0

check() { # description command...
	d=$1
	shift
	n=$((n + 1))
	if "$@"; then echo "ok $n - $d"; else echo "not ok $n - $d"; failed=1; fi
}

# compare_value FILE GROUP METRIC COLUMN(2 emulated, 3 predicted)
compare_value() {
	awk -v g="$2" -v m="$3" -v c="$4" '
		/^[a-z]/ { on = ($0 ~ "^" g ":") }
		on && $1 == m { print $c; exit }' "$1"
}

[ -f "$dev" ] || truncate -s 16M "$dev"
cat >"$tmp/r.csv" <<'CSV'
pandaid,creationtime,computingsite,cpuconsumptiontime,corecount,inputfilebytes,outputfilebytes,ninputdatafiles,transfertype,jobstatus
1,2025-01-01 00:00:00,A,2,1,65536,8192,2,direct,finished
2,2025-01-01 00:00:00,A,2,1,65536,8192,1,copy,finished
3,2025-01-01 00:00:01,A,1,1,0,4096,0,,failed
4,2025-01-01 00:00:01,A,1,1,4096,4096,1,copy,finished
5,2025-01-01 00:00:02,A,2,2,8192,0,1,direct,finished
6,2025-01-01 00:00:02,A,1,1,4096,4096,1,copy,finished
CSV
args="--buffered --time-scale 20 --byte-scale 1 --bs 4KiB --attempts 3 --backoff 10ms --fail-stageout 40% --seed 7"
"$replay" $args --site A="$dev",slots=2 -o "$tmp/ev.csv" "$tmp/r.csv" >"$tmp/kpi.txt" 2>"$tmp/err"
rc=$?
check "six jobs replay on a file" [ $rc -eq 0 ]
[ $rc -eq 0 ] || sed 's/^/#   /' "$tmp/err"
check "a job row for each" [ "$(grep -c ',job,' "$tmp/ev.csv")" -eq 6 ]
check "the recorded failure fails every attempt" \
	[ "$(grep -c '^3,.*,payload,.*,error$' "$tmp/ev.csv")" -eq 3 ]
"$sim" replay --site A,slots=2,bw=unlimited --compare "$tmp/ev.csv" "$tmp/r.csv" \
	>"$tmp/cmp.txt" 2>"$tmp/err"
check "fnblk-sim replay --compare reads the events" [ $? -eq 0 ]
for m in attempt_error_rate error_rate remote_fraction; do
	e=$(compare_value "$tmp/cmp.txt" all $m 2)
	p=$(compare_value "$tmp/cmp.txt" all $m 3)
	check "$m: emulated $e = predicted $p (the same draws)" [ -n "$e" ] && [ "$e" = "$p" ]
done
att=$(awk -F, '$5 == "job" { s += $3 } END { print s }' "$tmp/ev.csv")
check "attempts drawn as the seed says ($att > 6)" [ "${att:-0}" -gt 6 ]

analyze=$here/../../analyze/fnblk-analyze
"$analyze" "$tmp/ev.csv" >"$tmp/an.txt" 2>"$tmp/err"
check "fnblk-analyze reads the replay events" [ $? -eq 0 ]
peak=$(awk '$1 == "site" && $2 == "peak_running" { on = 1; next } on && $1 == "A" { print $2 }' "$tmp/an.txt")
check "at most 2 jobs ran at once on 2 slots (peak $peak)" [ "${peak:-9}" -ge 1 ] && [ "${peak:-9}" -le 2 ]
jobs=$(awk '$1 == "all" { print $2; exit }' "$tmp/an.txt")
check "its KPI table counts the 6 jobs" [ "$jobs" = 6 ]
"$analyze" -j "$tmp/ev.csv" | "$here/../../lib/tests/json_check" >/dev/null 2>&1
check "fnblk-analyze -j prints JSON for a replay" [ $? -eq 0 ]
if command -v gnuplot >/dev/null; then
	"$analyze" --plot "$tmp/plots" "$tmp/ev.csv" >/dev/null 2>"$tmp/err"
	check "--plot draws the per-site series and the queue-time CDF" \
		[ -s "$tmp/plots/site-0.png" ] && [ -s "$tmp/plots/queue-cdf.png" ]
fi

"$replay" --buffered --time-scale 20 --byte-scale 1 --bs 4KiB --attempts 2 \
	--site A="$dev",slots=2,fail-stageout=100% -o "$tmp/ev2.csv" "$tmp/r.csv" >/dev/null 2>&1
check "a site's own fail-stageout=100% fails every job that writes output (5 of 6)" \
	[ "$(grep -c ',job,.*,failed$' "$tmp/ev2.csv")" -eq 5 ]
check "... and is recorded with the site" grep -q "^# param site.A=slots=2,fail-stageout=1.0" "$tmp/ev2.csv"

printf '# category sites\nprod.other B\n' >"$tmp/loc.txt"
"$replay" --buffered --time-scale 20 --byte-scale 1 --bs 4KiB --assign data-local \
	--locality "$tmp/loc.txt" --site A="$dev" --site B="$dev",slots=2 \
	-o "$tmp/ev3.csv" "$tmp/r.csv" >/dev/null 2>"$tmp/err"
check "data-local with a locality map runs" [ $? -eq 0 ]
check "... every job where its data are (B)" [ "$(grep -c ',queue,' "$tmp/ev3.csv")" -eq \
	"$(grep -c ',B,queue,' "$tmp/ev3.csv")" ]
check "... and the map is recorded" grep -q "^# param locality.prod.other=B" "$tmp/ev3.csv"
"$sim" replay --site A,bw=unlimited --site B,slots=2,bw=unlimited --compare "$tmp/ev3.csv" \
	"$tmp/r.csv" >"$tmp/cmp3.txt" 2>"$tmp/err"
e=$(compare_value "$tmp/cmp3.txt" all remote_fraction 2)
p=$(compare_value "$tmp/cmp3.txt" all remote_fraction 3)
check "the prediction takes the map from the events: remote fraction $e = $p" [ -n "$e" ] && [ "$e" = "$p" ]
"$replay" --locality "$tmp/loc.txt" --site A="$dev" "$tmp/r.csv" >/dev/null 2>"$tmp/err"
check "a map naming a site nobody gives: usage error" [ $? -eq 2 ] && grep -q "site 'B' is not one of the sites" "$tmp/err"

# A job starts in a process that has already made its ring and buffer:
# with 512 MiB requests that set-up takes a first touch of 512 MiB (300+
# ms here before spare processes), which must not fall between a job's
# slot and its first phase. What remains there is the parent's and the
# process's wake-ups (under 1 ms on a quiet host, 10-90 ms at load 9 with
# the next spare touching its 512 MiB meanwhile), which the job's compute
# catches up.
truncate -s 1G "$tmp/big.img"
cat >"$tmp/r2.csv" <<'CSV'
pandaid,creationtime,computingsite,cpuconsumptiontime,corecount,inputfilebytes,outputfilebytes,ninputdatafiles,transfertype,jobstatus
1,2025-01-01 00:00:00,A,20,1,409600,204800,2,direct,finished
2,2025-01-01 00:00:00,A,10,2,204800,409600,1,copy,finished
CSV
"$replay" --buffered --time-scale 100 --byte-scale 10 --bs 512MiB \
	--site A="$tmp/big.img",slots=2 -o "$tmp/ev4.csv" "$tmp/r2.csv" >/dev/null 2>"$tmp/err"
check "512 MiB requests: two jobs replay" [ $? -eq 0 ]
gap=$(awk -F, '!/^#/ && $5 == "queue" { q[$1] = $7 }
	!/^#/ && $5 != "queue" && $5 != "job" && $1 != "id" && !($1 in f) {
		f[$1] = 1; g = ($6 - q[$1]) / 1e6; if (g > m) m = g }
	END { printf "%.1f", m }' "$tmp/ev4.csv")
check "the set-up is not the job's time: slot to first phase ${gap} ms < 150 ms" \
	awk -v g="$gap" 'BEGIN { exit !(g != "" && g < 150) }'
rm -f "$tmp/big.img"

# A job's compute adds up to its planned time however late each sleep
# wakes: 1024 pieces of 250 us (a direct job reading 1024 files) woke
# about 80 us late each here when every sleep was timed from its own
# start (332-336 ms of compute for 256 ms planned); each compute now
# sleeps until the job's deadline chain, so lateness is caught up.
cat >"$tmp/r3.csv" <<'CSV'
pandaid,creationtime,computingsite,cpuconsumptiontime,corecount,inputfilebytes,outputfilebytes,ninputdatafiles,transfertype,jobstatus
1,2025-01-01 00:00:00,A,256,1,4194304,0,1024,direct,finished
CSV
"$replay" --buffered --time-scale 1000 --byte-scale 1 --bs 4KiB --chunks 1024 \
	--site A="$dev" -o "$tmp/ev5.csv" "$tmp/r3.csv" >/dev/null 2>"$tmp/err"
check "1024 pieces of compute: the job replays" [ $? -eq 0 ]
# compute = the payload minus its I/O; slot = from the slot to the payload's end
read -r comp slot io <<EOF
$(awk -F, '!/^#/ && $5 == "queue" { q = $7 }
	!/^#/ && $5 == "payload" { printf "%.3f %.3f %.3f", ($7 - $6 - $8) / 1e6,
		($7 - q) / 1e6, $8 / 1e6 }' "$tmp/ev5.csv")
EOF
check "... its compute adds up to the plan: ${comp:-?} ms <= 256 + 25 ms" \
	awk -v c="${comp:-}" 'BEGIN { exit !(c != "" && c <= 281) }'
check "... and never ends early: slot to payload end ${slot:-?} ms >= 256 ms + I/O ${io:-?} ms" \
	awk -v s="${slot:-}" -v io="${io:-}" 'BEGIN { exit !(s != "" && s >= 256 + io - 0.002) }'

# A slot changes hands when its job ends, not when the parent notices
# (a ppoll wake-up, 2-3 ms in the TCG guest), and a job that finds a free
# slot has it from its arrival: the simulator's hand-overs, exactly.
cat >"$tmp/r4.csv" <<'CSV'
pandaid,creationtime,computingsite,cpuconsumptiontime,corecount,inputfilebytes,outputfilebytes,ninputdatafiles,transfertype,jobstatus
1,2025-01-01 00:00:00,A,10,1,8192,4096,1,copy,finished
2,2025-01-01 00:00:00,A,10,1,8192,4096,1,copy,finished
CSV
"$replay" --buffered --time-scale 1000 --byte-scale 1 --bs 4KiB --site A="$dev" \
	-o "$tmp/ev6.csv" "$tmp/r4.csv" >/dev/null 2>"$tmp/err"
check "two jobs, one slot: they replay" [ $? -eq 0 ]
t() { # job what field: an event's start_ns (6) or end_ns (7)
	awk -F, -v j="$1" -v w="$2" -v f="$3" '!/^#/ && $1 == j && $5 == w { print $f }' "$tmp/ev6.csv"
}
check "... the first has the free slot from its arrival (queue $(t 1 queue 6)-$(t 1 queue 7) ns)" \
	[ "$(t 1 queue 7)" = "$(t 1 queue 6)" ]
check "... it ends when its stage-out does ($(t 1 stageout 7), job row $(t 1 job 7))" \
	[ "$(t 1 job 7)" = "$(t 1 stageout 7)" ]
check "... and the second has the slot from then ($(t 2 queue 7))" \
	[ "$(t 2 queue 7)" = "$(t 1 stageout 7)" ]

# A burst as large as the slots finds every process prepared: one spare
# per slot (it was one per slot up to 16: with 32 slots, 16 jobs started
# in fresh processes, 8 MiB requests: 25-60 ms from slot to first phase
# on average, up to 150 ms, against 10-19 ms now).
{
	echo "pandaid,creationtime,computingsite,cpuconsumptiontime,corecount,inputfilebytes,outputfilebytes,ninputdatafiles,transfertype,jobstatus"
	i=1
	while [ $i -le 32 ]; do
		echo "$i,2025-01-01 00:00:00,A,1,1,4096,4096,1,copy,finished"
		i=$((i + 1))
	done
} >"$tmp/r5.csv"
"$replay" --buffered --time-scale 1000 --byte-scale 1 --bs 4KiB --site A="$dev",slots=32 \
	-o "$tmp/ev7.csv" "$tmp/r5.csv" >"$tmp/kpi7.txt" 2>"$tmp/err"
check "32 jobs at once on 32 slots: they replay" [ $? -eq 0 ]
check "... none waited for its process to prepare ($(grep attempts "$tmp/kpi7.txt"))" \
	grep -q "^32 attempts (0 died unreported, 0 waited for their process to prepare)" "$tmp/kpi7.txt"

"$replay" $args --site B="$dev" "$tmp/r.csv" >/dev/null 2>"$tmp/err"
check "a record's site that no --site names: exit 1" [ $? -eq 1 ]
check "... and the message says which" grep -q "job 1 ran at site 'A'" "$tmp/err"
"$replay" --site A="$dev",slots=0 "$tmp/r.csv" >/dev/null 2>"$tmp/err"
check "slots=0 is a usage error" [ $? -eq 2 ]
"$replay" --site A=/nonexistent "$tmp/r.csv" >/dev/null 2>"$tmp/err"
check "a missing device: exit 1 naming it" [ $? -eq 1 ] && grep -q nonexistent "$tmp/err"
printf 'pandaid,creationtime,computingsite,cpuconsumptiontime\n1,2025-01-01 00:00:00,A,1\n' >"$tmp/bad.csv"
"$replay" --site A="$dev" "$tmp/bad.csv" >/dev/null 2>"$tmp/err"
check "a record file without corecount is refused with its line" \
	grep -q "bad.csv:1: required column 'corecount'" "$tmp/err"
echo "1..$n"
exit $failed
