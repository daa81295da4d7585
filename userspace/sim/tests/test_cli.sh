#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# fnblk-sim as a program: exit codes, output files, and a simulated run
# compared with itself (every relative error exactly 0). TAP on stdout.
set -u
SIM=${SIM:-$(dirname "$0")/../fnblk-sim}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
n=0
failed=0

check() { # name, then a command that must succeed
	name=$1
	shift
	n=$((n + 1))
	if "$@" >"$TMP/out" 2>"$TMP/err"; then
		echo "ok $n - $name"
	else
		echo "not ok $n - $name"
		sed 's/^/# /' "$TMP/err" | head -5
		failed=1
	fi
}

exits() { # expected status, name, command...
	want=$1
	name=$2
	shift 2
	n=$((n + 1))
	"$@" >"$TMP/out" 2>"$TMP/err"
	got=$?
	if [ "$got" -eq "$want" ] && { [ "$want" -eq 0 ] || [ -s "$TMP/err" ]; }; then
		echo "ok $n - $name"
	else
		echo "not ok $n - $name"
		echo "# expected exit $want with a message, got $got"
		failed=1
	fi
}

# A compare report with more than 5 figures, every relative error 0.
all_zero() {
	[ "$(grep -c '"rel_error"' "$1")" -gt 5 ] &&
		! grep '"rel_error"' "$1" | grep -qv '"rel_error": 0.0,\?$'
}

exits 2 "no command is a usage error" "$SIM"
exits 2 "an unknown command is a usage error" "$SIM" frobnicate
exits 2 "a bandwidth below 1 KiB/s is a usage error" "$SIM" run --bw 10
exits 2 "an unknown option is a usage error" "$SIM" run --colour red
exits 2 "compare without a file is a usage error" "$SIM" compare
exits 1 "compare of a missing file is a runtime error" "$SIM" compare "$TMP/none.csv"
exits 0 "help exits 0" "$SIM" run --help

check "run writes CSV, JSON lines and n(t)" "$SIM" run -q --jobs 3 --cycles 2 \
	--compute 1s --size 8MiB --bw 16MiB/s --phases stagger \
	-o "$TMP/run.csv" --jsonl "$TMP/run.jsonl" --n-trace "$TMP/n.csv"
check "the CSV starts with the magic line" \
	sh -c "head -1 '$TMP/run.csv' | grep -qx '# fnblk-events v1'"
check "the CSV says source=sim and records bw" \
	sh -c "grep -qx '# source=sim' '$TMP/run.csv' && grep -qx '# param bw=16MiB/s' '$TMP/run.csv'"
check "3 jobs x 2 cycles are 6 rows" \
	sh -c "[ \$(grep -c '^[0-9]' '$TMP/run.csv') -eq 6 ]"
check "JSON lines hold the same 6 writes" \
	sh -c "[ \$(grep -c '\"cycle\"' '$TMP/run.jsonl') -eq 6 ]"
check "the n(t) record has its header and ends at n = 0" \
	sh -c "head -3 '$TMP/n.csv' | grep -qx 't_ns,n' && tail -1 '$TMP/n.csv' | grep -q ',0\$'"
check "compare --json of a simulated run" \
	sh -c "'$SIM' compare --json '$TMP/run.csv' >'$TMP/cmp.json'"
check "a simulated run compared with itself: every relative error is 0" \
	all_zero "$TMP/cmp.json"
check "compare reads JSON lines as well" \
	sh -c "'$SIM' compare --json '$TMP/run.jsonl' >'$TMP/cmp-jsonl.json'"
check "from JSON lines too every relative error is 0" \
	all_zero "$TMP/cmp-jsonl.json"
check "compare --replay-compute of a simulated run" \
	sh -c "'$SIM' compare --json --replay-compute '$TMP/run.csv' >'$TMP/cmp-replay.json'"
check "with replayed compute times every relative error is 0 too" \
	all_zero "$TMP/cmp-replay.json"
check "compare -o writes the prediction as an event file" \
	"$SIM" compare -o "$TMP/pred.csv" "$TMP/run.csv"
check "the prediction of a simulated run is that run, write for write" \
	sh -c "grep '^[0-9]' '$TMP/pred.csv' | sort >'$TMP/a' && grep '^[0-9]' '$TMP/run.csv' | sort >'$TMP/b' && cmp -s '$TMP/a' '$TMP/b'"
# A kernel run recorded by fnblk-fleet (experiment 3, N = 4, in a TCG guest).
FLEET=$(dirname "$0")/data/fleet-overlap-n4.csv
check "compare takes a fnblk-fleet file as it is" \
	sh -c "'$SIM' compare '$FLEET' >'$TMP/fleet.txt' 2>'$TMP/fleet.err' && [ ! -s '$TMP/fleet.err' ]"
check "and compares its 20 writes of 4 jobs" \
	grep -q "20 writes compared, 4 jobs" "$TMP/fleet.txt"
exits 2 "compare --jobs 2 on a 4-job run: the writes of jobs 2 and 3 are reported, not dropped" \
	"$SIM" compare --jobs 2 "$FLEET"
# What the model does not cover: a warning each, in --json too, and
# --strict fails on it. Variants of the fleet file above.
variant() { # name sed-expression
	sed "$2" "$FLEET" >"$TMP/$1.csv"
}
has_warning() { # json code kind
	tr -d ' \n' <"$1" | grep -q "{\"code\":\"$2\",\"kind\":\"$3\""
}
# A variant of the fleet file that compare must flag as unmodelled.
unmodelled() { # description name code sed-expression
	variant "$2" "$4"
	"$SIM" compare --json "$TMP/$2.csv" >"$TMP/$2.json" 2>/dev/null
	check "$1: a warning" has_warning "$TMP/$2.json" "$3" unmodelled
}
check "the fleet file as it is: no warning in the JSON" \
	sh -c "'$SIM' compare --json '$FLEET' >'$TMP/plain.json' && tr -d ' \n' <'$TMP/plain.json' | grep -q '\"warnings\":\[\]'"
exits 0 "--strict passes a run the model covers" sh -c "'$SIM' compare --strict '$FLEET' && echo covered >&2"
variant dsync 's/^# param path=direct$/# param path=dsync/'
check "dsync (recorded with qd=4) is simulated as QD1 direct" \
	sh -c "'$SIM' compare --json -o '$TMP/dsync-pred.csv' '$TMP/dsync.csv' >'$TMP/dsync.json' && grep -qx '# param qd=1' '$TMP/dsync-pred.csv'"
check "and says so as an adaptation, not a gap" has_warning "$TMP/dsync.json" path adapted
exits 0 "--strict accepts dsync" sh -c "'$SIM' compare --strict '$TMP/dsync.csv' && echo covered >&2"
variant psync 's/^# param engine=uring$/# param engine=psync/'
check "psync is simulated with one request in flight" \
	sh -c "'$SIM' compare -o '$TMP/psync-pred.csv' '$TMP/psync.csv' >/dev/null 2>&1 && grep -qx '# param qd=1' '$TMP/psync-pred.csv'"
variant buffered 's/^# param path=direct$/# param path=buffered/'
"$SIM" compare --json "$TMP/buffered.csv" >"$TMP/buffered.json" 2>/dev/null
check "buffered: a warning in the JSON" has_warning "$TMP/buffered.json" path unmodelled
exits 1 "--strict fails on buffered writes" \
	sh -c "'$SIM' compare --strict '$TMP/buffered.csv' >'$TMP/strict.txt'"
check "--strict still prints the report" grep -q "20 writes compared" "$TMP/strict.txt"
# A merged multi-host run (fnblk-analyze --hosts): the network path is
# a warning; several jobs on one host (one user to the device) a gap; the
# prediction keeps the hosts, for fnblk-analyze's hosts' view.
variant hosts1 's/^# param jobs=4$/# param jobs=4\n# param host_jobs=1,1,1,1/'
check "four hosts of one job: compared, with the network path as an adaptation" \
	sh -c "'$SIM' compare --json -o '$TMP/hosts1-pred.csv' '$TMP/hosts1.csv' >'$TMP/hosts1.json'"
check "and says so" has_warning "$TMP/hosts1.json" hosts adapted
check "the prediction keeps the run's hosts" grep -qx '# param host_jobs=1,1,1,1' "$TMP/hosts1-pred.csv"
exits 0 "--strict accepts one job per host" sh -c "'$SIM' compare --strict '$TMP/hosts1.csv' && echo covered >&2"
unmodelled "two hosts of two jobs" hosts2 host_jobs 's/^# param jobs=4$/# param jobs=4\n# param host_jobs=2,2/'
unmodelled "host_jobs that do not add up to the jobs" hosts3 host_jobs 's/^# param jobs=4$/# param jobs=4\n# param host_jobs=1,1/'
unmodelled "key=pid" pid key 's/^# param key=tgid$/# param key=pid/'
unmodelled "key=cgroup with every job in one cgroup" cg1 key 's/^# param key=tgid$/# param key=cgroup/'
variant cgjob 's/^# param key=tgid$/# param key=cgroup/; s/^# param cgroup=$/# param cgroup=exp/'
check "key=cgroup with a cgroup per job: counted as the model does" \
	sh -c "'$SIM' compare --json '$TMP/cgjob.csv' >'$TMP/cgjob.json' && tr -d ' \n' <'$TMP/cgjob.json' | grep -q '\"warnings\":\[\]'"
unmodelled "--dir" dir dir 's|^# param dir=$|# param dir=/mnt/ckpt|; s|^# param target=/dev/fnblk0$|# param target=|'
unmodelled "--rotate" rotate rotate 's|^# param dir=$|# param dir=/mnt/ckpt|; s|^# param rotate=0$|# param rotate=1|'
unmodelled "--memory-max" mem memory-max 's/^# param memory-max=0$/# param memory-max=67108864/; s/^# param cgroup=$/# param cgroup=exp/'
unmodelled "a device setting not recorded" nodev device '/^# param bw=/d'
check "warnings also go to standard error, as warnings" \
	sh -c "'$SIM' compare '$TMP/nodev.csv' 2>&1 >/dev/null | grep -q '^fnblk-sim: compare: warning: '"
ANALYZE=$(dirname "$0")/../../analyze/fnblk-analyze
n=$((n + 1))
if [ -x "$ANALYZE" ]; then
	if "$ANALYZE" "$TMP/run.csv" 2>/dev/null | grep -q "source sim"; then
		echo "ok $n - fnblk-analyze reads the simulator's events"
	else
		echo "not ok $n - fnblk-analyze reads the simulator's events"
		failed=1
	fi
else
	echo "ok $n - fnblk-analyze reads the simulator's events # SKIP not built"
fi
check "theory checks pass for N = 3..5 under constant f" \
	"$SIM" theory --jobs 3-5 --fn constant
exits 2 "theory rejects a bad f" "$SIM" theory --fn linear:0

# The options fnblk-fleet and fnblk-sim share have one default and one range.
defaults() { # help text on stdin: "--name default" per option with one
	awk '/^  (-., )?--|^      --/ { if (e != "") print e; e = $0; next }
	     /^                          / && e != "" { e = e " " $0; next }
	     { if (e != "") print e; e = "" }
	     END { if (e != "") print e }' |
		sed -nE 's/^ +(-., )?--([a-z-]+).*\(default: ([^)]*)\).*/\2|\3/p' | sort -t'|' -k1,1
}
FLEET_BIN=$(dirname "$0")/../../fleet/fnblk-fleet
n=$((n + 1))
if [ -x "$FLEET_BIN" ]; then
	"$FLEET_BIN" --help | defaults >"$TMP/fleet.defaults"
	"$SIM" run --help | defaults >"$TMP/sim.defaults"
	join -t"|" "$TMP/fleet.defaults" "$TMP/sim.defaults" | awk -F"|" '$2 != $3' >"$TMP/differ"
	shared=$(join -t"|" "$TMP/fleet.defaults" "$TMP/sim.defaults" | wc -l)
	if [ "$shared" -ge 13 ] && [ ! -s "$TMP/differ" ]; then
		echo "ok $n - the $shared options fnblk-fleet and fnblk-sim share have the same defaults"
	else
		echo "not ok $n - the options fnblk-fleet and fnblk-sim share have the same defaults"
		sed 's/^/# differ: /' "$TMP/differ"
		failed=1
	fi
else
	echo "ok $n - fleet and sim defaults # SKIP fnblk-fleet not built"
fi
"$SIM" bench --help | defaults >"$TMP/bench.defaults"
check "bench --help shows the benchmark's own defaults (10000 jobs, qd 1)" \
	sh -c "grep -qx 'jobs|10000' '$TMP/bench.defaults' && grep -qx 'qd|1' '$TMP/bench.defaults'"
check "run's summary goes to stdout when the events go to a file" \
	sh -c "'$SIM' run --jobs 2 --cycles 1 -o '$TMP/s.csv' 2>'$TMP/s.err' | grep -q '^2 writes of 2 jobs' && [ ! -s '$TMP/s.err' ]"
check "and to stderr when the events go to stdout" \
	sh -c "'$SIM' run --jobs 2 --cycles 1 2>'$TMP/s.err' | grep -q '^job,cycle' && grep -q '^2 writes of 2 jobs' '$TMP/s.err'"
exits 2 "-o - and --jsonl - together are refused" "$SIM" run -o - --jsonl -

# The path's capacity measured from one host alone (compare --path-from):
# a simulated host behind a 2 MiB/s path gives that capacity back, and the
# run compared with itself through it is exact; a run no slower than the
# device alone has no path to measure.
"$SIM" run -q --jobs 1 --cycles 3 --compute 1s --size 256KiB --bs 64KiB --qd 1 \
	--bw 2MiB/s --path-bw 2MiB/s -o "$TMP/solo.csv"
"$SIM" run -q --jobs 3 --cycles 3 --compute 1s --size 256KiB --bs 64KiB --qd 1 \
	--bw 2MiB/s --path-bw 2MiB/s --completion drain --phases random -o "$TMP/three.csv"
check "compare --path-from: the path's capacity from one host alone" \
	sh -c "'$SIM' compare -j --path-from '$TMP/solo.csv' '$TMP/three.csv' >'$TMP/pf.json' &&
		grep -q '\"path_bw\": 209715[0-9]' '$TMP/pf.json'"
check "a run with a path and drain, compared with itself through it: every relative error is 0" \
	all_zero "$TMP/pf.json"
"$SIM" run -q --jobs 1 --cycles 2 --compute 1s --size 256KiB --bs 64KiB --qd 1 \
	--bw 2MiB/s -o "$TMP/nopath.csv"
exits 1 "--path-from a run no slower than the device alone is refused" \
	"$SIM" compare --path-from "$TMP/nopath.csv" "$TMP/three.csv"

echo "1..$n"
exit $failed
