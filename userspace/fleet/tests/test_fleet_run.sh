#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# fnblk-fleet end to end on the host, against a regular file: events well
# formed, cycles counted, phases honoured, the power cap slowing compute.
set -u
FLEET=${1:-./fnblk-fleet}
JSON_CHECK=${JSON_CHECK:-$(dirname "$0")/../../lib/tests/json_check}
TMP=$(mktemp -d /tmp/fleet-test.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
n=0 failed=0

ok() { # status name
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=$((failed + 1)); fi
}

param() { # file name
	sed -n "s/^# param $2=//p" "$1"
}

# Rows of a CSV event file: every one has five unsigned fields, end >= start.
rows_well_formed() {
	awk -F, '/^#/ || /^job,/ { next }
		NF != 5 { bad = 1 }
		{ for (i = 1; i <= 5; i++) if ($i !~ /^[0-9]+$/) bad = 1; if ($4 + 0 < $3 + 0) bad = 1 }
		END { exit bad }' "$1"
}

# 1. buffered writes, 3 jobs x 4 cycles
"$FLEET" -q --jobs 3 --compute 50ms --size 64KiB --cycles 4 --path buffered \
	-o "$TMP/a.csv" --jsonl "$TMP/a.jsonl" "$TMP/target" 2>"$TMP/err"
ok $? "3 jobs x 4 cycles run"
ok "$(head -1 "$TMP/a.csv" | grep -qx '# fnblk-events v1'; echo $?)" "CSV starts with the magic line"
ok "$(grep -qx 'job,cycle,start_ns,end_ns,bytes' "$TMP/a.csv"; echo $?)" "CSV has the column header"
ok "$(rows_well_formed "$TMP/a.csv"; echo $?)" "every row has five unsigned fields, end >= start"
rows=$(grep -c '^[0-9]' "$TMP/a.csv")
[ "$rows" -eq 12 ]; ok $? "12 writes recorded (saw $rows)"
cyc=$(awk -F, '/^[0-9]/ { print $1 "," $2 }' "$TMP/a.csv" | sort -t, -k1,1n -k2,2n | tr '\n' ' ')
[ "$cyc" = "0,0 0,1 0,2 0,3 1,0 1,1 1,2 1,3 2,0 2,1 2,2 2,3 " ]
ok $? "each job wrote cycles 0..3 once"
ok "$(awk -F, '/^[0-9]/ && $5 != 65536 { bad = 1 } END { exit bad }' "$TMP/a.csv"; echo $?)" "each write is S bytes"
[ "$(param "$TMP/a.csv" jobs)" = 3 ] && [ "$(param "$TMP/a.csv" path)" = buffered ] &&
	[ -n "$(param "$TMP/a.csv" start_ns)" ] && [ -n "$(param "$TMP/a.csv" plan.2)" ]
ok $? "parameters recorded as # param lines"
[ "$(grep -c '^{"job":' "$TMP/a.jsonl")" -eq 12 ] && head -1 "$TMP/a.jsonl" | grep -q '"fnblk_events":1'
ok $? "JSON lines: a header object and 12 write objects"

# 2. stagger phases: job j's first write starts at t0 + j*period/N + T
"$FLEET" -q --jobs 3 --compute 100ms --size 4KiB --cycles 1 --phases stagger \
	--period 300ms --path buffered -o "$TMP/b.csv" "$TMP/target"
t0=$(param "$TMP/b.csv" start_ns)
ok "$(awk -F, -v t0="$t0" '/^[0-9]/ { d = ($3 - t0) / 1e6; want = $1 * 100 + 100;
	if (d < want || d > want + 150) { printf "# job %d started at %.1fms, expected %dms\n", $1, d, want; bad = 1 } }
	END { exit bad }' "$TMP/b.csv"; echo $?)" "stagger: job j starts at j*period/N + T"

# 2b. --start-at: two fleets given one time 0 on CLOCK_MONOTONIC share it,
# whenever each was started; one given a time 0 already past says so.
at=$(awk '{ printf "%.0f", ($1 + 1) * 1e9 }' /proc/uptime)
"$FLEET" -q --jobs 1 --compute 100ms --size 4KiB --cycles 1 --path buffered \
	--start-at ${at}ns -o "$TMP/s1.csv" "$TMP/t1" &
sleep 0.3
"$FLEET" -q --jobs 1 --compute 100ms --size 4KiB --cycles 1 --path buffered \
	--start-at ${at}ns -o "$TMP/s2.csv" "$TMP/t2"
wait
[ "$(param "$TMP/s1.csv" start_ns)" = "$at" ] && [ "$(param "$TMP/s2.csv" start_ns)" = "$at" ]
ok $? "--start-at: both fleets' time 0 is the one given"
"$FLEET" -q --jobs 1 --compute 10ms --size 4KiB --cycles 1 --path buffered \
	--start-at 1ns -o "$TMP/s3.csv" "$TMP/t3" 2>"$TMP/err"
[ $? -eq 0 ] && grep -q 'overran --start-at' "$TMP/err"
ok $? "--start-at in the past: the fleet runs and warns"

# 3. the power cap: 2 jobs computing 200ms under P=1 take twice as long.
# 400ms of compute at a total rate of 1 cannot end before t0 + 400ms,
# whenever each job started; a job that started late may have computed
# alone for a while, so only the last end is bound to 2T, each end to T.
"$FLEET" -q --jobs 2 --compute 200ms --size 4KiB --cycles 1 --power-cap 1 \
	--power-step 2ms --path buffered -o "$TMP/c.csv" "$TMP/target"
t0=$(param "$TMP/c.csv" start_ns)
ok "$(awk -F, -v t0="$t0" '/^[0-9]/ { d = ($3 - t0) / 1e6; if (d > last) last = d;
	if (d < 199) { printf "# job %d computed for %.1fms, expected >= 200ms\n", $1, d; bad = 1 } }
	END { if (last < 396) { printf "# the last job ended its compute at %.1fms, expected >= 400ms\n", last; bad = 1 }
	exit bad }' "$TMP/c.csv"; echo $?)" "power cap 1 with 2 jobs: compute takes 2T"
"$FLEET" -q --jobs 2 --compute 200ms --size 4KiB --cycles 1 --power-cap 2 \
	--path buffered -o "$TMP/d.csv" "$TMP/target"
t0=$(param "$TMP/d.csv" start_ns)
ok "$(awk -F, -v t0="$t0" '/^[0-9]/ { d = ($3 - t0) / 1e6;
	if (d < 199 || d > 380) { printf "# job %d computed for %.1fms, expected 200ms\n", $1, d; bad = 1 } }
	END { exit bad }' "$TMP/d.csv"; echo $?)" "power cap 2 with 2 jobs does not bind"

# 4. duration instead of cycles
"$FLEET" -q --jobs 2 --compute 100ms --size 4KiB --cycles 0 --duration 450ms \
	--path dsync -o "$TMP/e.csv" "$TMP/target"
ok $? "dsync run bounded by --duration"
ok "$(awk -F, '/^[0-9]/ { c[$1]++ } END { for (j in c) if (c[j] < 2 || c[j] > 4) bad = 1; exit bad || length(c) != 2 }' "$TMP/e.csv"; echo $?)" \
	"duration 450ms at T=100ms: 2..4 writes per job"

# Engine and queue depth are recorded only where they apply: a buffered,
# dsync or mmap run has neither (compare used to simulate qd=4 for them).
has_param() { grep -q "^# param $2=" "$1"; }
! has_param "$TMP/a.csv" engine && ! has_param "$TMP/a.csv" qd &&
	! has_param "$TMP/e.csv" engine && ! has_param "$TMP/e.csv" qd
ok $? "buffered and dsync runs record no engine and no qd"
"$FLEET" -q --jobs 1 --compute 10ms --size 8KiB --cycles 1 --engine psync \
	-o "$TMP/p.csv" "$TMP/target" 2>/dev/null
if [ -s "$TMP/p.csv" ]; then
	[ "$(param "$TMP/p.csv" engine)" = psync ] && ! has_param "$TMP/p.csv" qd
	ok $? "a psync run records its engine and no qd"
else
	n=$((n + 1)); echo "ok $n - psync params # SKIP no O_DIRECT here"
fi
# A regular file is on no fnblk device: nothing about one is recorded.
! has_param "$TMP/a.csv" device && ! has_param "$TMP/a.csv" bw
ok $? "a target off fnblk records no device settings"

# 5. mmap into a regular file; files per job with rotation
"$FLEET" -q --jobs 2 --compute 10ms --size 32KiB --cycles 2 --path mmap \
	-o "$TMP/f.csv" "$TMP/target"
ok $? "mmap path"
mkdir "$TMP/dir"
"$FLEET" -q --jobs 2 --compute 10ms --size 32KiB --cycles 3 --path buffered \
	--dir "$TMP/dir" --rotate -o "$TMP/g.csv"
ok $? "dir with rotation"
ls "$TMP/dir" | sort | tr '\n' ' ' | grep -qx 'job-0000.000002.ckpt job-0001.000002.ckpt '
ok $? "rotation keeps only the last checkpoint of each job"

# 6. O_DIRECT through io_uring where the file system and kernel allow it
if "$FLEET" -q --jobs 2 --compute 10ms --size 64KiB --bs 16KiB --qd 2 --cycles 2 \
	-o "$TMP/h.csv" "$TMP/target" 2>"$TMP/err"; then
	ok "$(awk -F, '/^[0-9]/ { c++ } END { exit c != 4 }' "$TMP/h.csv"; echo $?)" "direct io_uring: 4 writes"
	[ "$(param "$TMP/h.csv" engine)" = uring ] && [ "$(param "$TMP/h.csv" qd)" = 2 ]
	ok $? "direct io_uring records engine and qd"
else
	n=$((n + 1)); echo "ok $n - direct io_uring # SKIP $(head -1 "$TMP/err")"
fi

# 7. every --path the help lists (the table of paths), one small fleet each
paths=$("$FLEET" --help | sed -n '/^      --path PATH/,/^      --engine/p' |
	sed -nE 's/^ {28}([a-z]+) .*/\1/p')
[ -n "$paths" ]; ok $? "--help lists the paths ($(echo $paths))"
for p in $paths; do
	if "$FLEET" -q --jobs 2 --compute 10ms --size 16KiB --cycles 2 --path "$p" \
		-o "$TMP/p-$p.csv" "$TMP/target" 2>"$TMP/err"; then
		ok "$(awk -F, '/^[0-9]/ { c++ } END { exit c != 4 }' "$TMP/p-$p.csv"; echo $?)" \
			"--path $p: 2 jobs x 2 cycles written"
	elif grep -q 'Invalid argument' "$TMP/err"; then
		n=$((n + 1)); echo "ok $n - --path $p # SKIP $(head -1 "$TMP/err")"
	else
		ok 1 "--path $p: $(head -1 "$TMP/err")"
	fi
done
"$FLEET" -q --jobs 1 --compute 1ms --size 40KiB --cycles 1 --bs 0 --path buffered \
	-o "$TMP/bs0.csv" "$TMP/target" 2>"$TMP/err" &&
	[ "$(param "$TMP/bs0.csv" bs)" = 0 ] && grep -q '^0,0,.*,40960$' "$TMP/bs0.csv"
ok $? "--bs 0 writes the whole checkpoint in one call (as fnblk-sim)"
"$FLEET" --bs 1000 "$TMP/target" 2>"$TMP/err"; [ $? -eq 2 ] &&
	grep -q "^fnblk-fleet: --bs '1000': not a multiple of 4KiB" "$TMP/err"
ok $? "--bs must be a multiple of 4KiB"

# 8. outputs: kept or not, and what goes to standard output
"$FLEET" --jobs 1 --compute 1ms --size 4KiB --cycles 1 --path buffered \
	"$TMP/target" >"$TMP/out" 2>"$TMP/err"
[ $? -eq 0 ] && grep -qx 'fnblk-fleet: warning: no -o or --jsonl: the events of this run are not kept' "$TMP/err"
ok $? "without -o or --jsonl: a warning that the events are not kept"
grep -q '^   0       1 ' "$TMP/out"
ok $? "the summary table on stdout"
"$FLEET" -j --jobs 2 --compute 1ms --size 4KiB --cycles 3 --path buffered \
	-o "$TMP/j.csv" "$TMP/target" >"$TMP/out" 2>"$TMP/err" &&
	"$JSON_CHECK" <"$TMP/out" && [ "$(grep -c '"writes": 3' "$TMP/out")" -eq 2 ] &&
	[ "$(grep -c '"mean_ns"' "$TMP/out")" -eq 2 ]
ok $? "-j: the summary as JSON, a record per job"
"$FLEET" --jobs 2 --compute 1ms --size 4KiB --cycles 2 --path buffered \
	--jsonl - "$TMP/target" >"$TMP/out" 2>"$TMP/err" && "$JSON_CHECK" <"$TMP/out" &&
	[ "$(grep -c '"cycle"' "$TMP/out")" -eq 4 ] && grep -q '^ *job  *writes' "$TMP/err"
ok $? "--jsonl -: stdout holds only the events, the summary goes to stderr"
"$FLEET" -o - --jsonl - "$TMP/target" 2>"$TMP/err"; [ $? -eq 2 ] &&
	grep -q 'cannot both write to standard output' "$TMP/err"
ok $? "-o - and --jsonl - together are refused"

# 9. errors
"$FLEET" --jobs 0 "$TMP/target" 2>/dev/null; [ $? -eq 2 ]; ok $? "bad option value exits 2"
"$FLEET" 2>/dev/null; [ $? -eq 2 ]; ok $? "missing target exits 2"
"$FLEET" -q --dir "$TMP/nope" 2>"$TMP/err"; [ $? -eq 1 ] && grep -q 'not a directory' "$TMP/err"
ok $? "missing directory exits 1 and says why"

mkdir -p "$TMP/blocked/job-0001.ckpt"	# job 1 cannot open its file
"$FLEET" -q --jobs 2 --compute 10ms --cycles 1 --path buffered --dir "$TMP/blocked" \
	-o "$TMP/i.csv" 2>"$TMP/err"; [ $? -eq 1 ] && grep -q 'job 1: .*job-0001.ckpt' "$TMP/err" &&
	grep -q 'a job failed to start' "$TMP/err"
ok $? "a job that cannot start fails the run with its reason"

# 10. --part I/N: fleets sharing one target write disjoint slices of it.
# Two fleets of 2 jobs x 512 KiB at once on a 4 MiB file: part 0 owns
# [0, 2 MiB), part 1 [2 MiB, 4 MiB); without --part both wrote [0, 1 MiB).
# stamped FILE FROM TO: 4 KiB blocks in [FROM, TO) KiB that carry a
# checkpoint stamp (every written block starts with one).
stamped() {
	python3 -c 'import sys
f = open(sys.argv[1], "rb"); f.seek(int(sys.argv[2]) * 1024)
print(sum(f.read(4096)[:8] == b"FNBLKCKP" for _ in range((int(sys.argv[3]) - int(sys.argv[2])) // 4)))' "$@"
}
rm -f "$TMP/shared"
truncate -s 4M "$TMP/shared"
for i in 0 1; do
	"$FLEET" -q --jobs 2 --compute 20ms --size 512KiB --cycles 3 --path buffered \
		--part $i/2 -o "$TMP/part$i.csv" "$TMP/shared" 2>"$TMP/part$i.err" &
done
wait
[ -s "$TMP/part0.csv" ] && [ -s "$TMP/part1.csv" ] && ! [ -s "$TMP/part0.err" ] && ! [ -s "$TMP/part1.err" ]
ok $? "two fleets with --part 0/2 and 1/2 run at once on one target"
s=$(stamped "$TMP/shared" 0 1024) t=$(stamped "$TMP/shared" 1024 2048)
[ "$s" -eq 256 ] && [ "$t" -eq 0 ]
ok $? "part 0's 2 jobs filled [0, 1 MiB) of its half and nothing more (stamped blocks: $s, $t)"
s=$(stamped "$TMP/shared" 2048 3072) t=$(stamped "$TMP/shared" 3072 4096)
[ "$s" -eq 256 ] && [ "$t" -eq 0 ]
ok $? "part 1's went to [2 MiB, 3 MiB), its own half (stamped blocks: $s, $t)"
[ "$(stat -c %s "$TMP/shared")" -eq 4194304 ]
ok $? "the target keeps its size"
[ "$(param "$TMP/part1.csv" part)" = 1/2 ] && [ "$(param "$TMP/part1.csv" region_base)" = 2097152 ] &&
	[ -z "$(param "$TMP/a.csv" part)" ]
ok $? "part and region_base recorded (only with --part)"
"$FLEET" -q --jobs 3 --size 512KiB --cycles 1 --part 1/3 "$TMP/shared" 2>"$TMP/err"
[ $? -eq 1 ] && grep -q 'part 1/3 is 1396736 bytes (1/3 of 4194304), 3 jobs of 524288 need 1572864' "$TMP/err"
ok $? "a part too small for its jobs: exit 1, the sizes named"
: >"$TMP/empty"
"$FLEET" -q --jobs 1 --size 4KiB --cycles 1 --part 0/2 "$TMP/empty" 2>"$TMP/err"
[ $? -eq 1 ] && grep -q 'is empty: --part 0/2' "$TMP/err" && [ ! -s "$TMP/empty" ]
ok $? "an empty file with --part: exit 1, not grown"
accepted=
for bad in 2/2 0/0 1 a/2 -1/2 1/-2 '%h/3' 1/4097 1/2x; do
	"$FLEET" -q --jobs 1 --part "$bad" "$TMP/shared" 2>"$TMP/err"
	[ $? -eq 2 ] && grep -q -- "--part" "$TMP/err" || accepted="$accepted $bad"
done
[ -z "$accepted" ]
ok $? "bad --part values refused with exit 2 naming the option (not:${accepted:- none})"
"$FLEET" -q --jobs 1 --part 0/2 --dir "$TMP" 2>"$TMP/err"
[ $? -eq 2 ] && grep -q -- '--part needs a TARGET' "$TMP/err"
ok $? "--part with --dir refused"

echo "1..$n"
[ "$failed" -eq 0 ]
