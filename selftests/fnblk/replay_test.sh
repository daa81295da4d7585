#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Job records replayed on /dev/fnblk0 (fnblk-replay) and predicted from
# the same records and the device's own settings (fnblk-sim replay
# --compare): the device really throttles the jobs' reads and writes, the
# emulation draws the same failures as the prediction, and queue and wall
# times agree within what a loaded 2-core host under TCG allows. The
# accuracy itself is a benchmark (Documentation/replay.rst). TAP; exits 1
# on failure, 4 to skip.

lib=$(dirname "$0")/lib_tap.sh
[ -f "$lib" ] || lib=/opt/kselftest/fnblk/lib_tap.sh
. "$lib"

BW_MIB=16
TMP=$(mktemp -d /tmp/replay_test.XXXXXX)

cleanup() {
	if [ $failed -ne 0 ] && [ -d /results ]; then
		mkdir -p /results/replay_test && cp "$TMP"/* /results/replay_test/
	fi
	rmmod fnblk 2>/dev/null
	rm -rf "$TMP"
}

# compare_value FILE GROUP METRIC COLUMN (2 emulated, 3 predicted)
compare_value() {
	awk -v g="$2" -v m="$3" -v c="$4" '
		/^[a-z]/ { on = ($0 ~ "^" g ":") }
		on && $1 == m { print $c; exit }' "$1"
}

# within A B REL: |A - B| <= REL * B
within() {
	awk -v a="$1" -v b="$2" -v r="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= r * b) }'
}

for tool in fnblk-replay fnblk-sim; do
	command -v $tool >/dev/null || skip_all "$tool not installed"
done
load_fnblk nr_devices=1 size_mb=128 bw_mbps=$BW_MIB fn=constant policy=anon key=tgid
trap cleanup EXIT

# Eight jobs on two slots: 2 MiB of input each (1/8 s alone at 16 MiB/s),
# copy and direct, a recorded failure, drawn stage-out failures.
cat >"$TMP/jobs.csv" <<'CSV'
pandaid,creationtime,computingsite,cpuconsumptiontime,corecount,inputfilebytes,outputfilebytes,ninputdatafiles,transfertype,jobstatus
1,2025-01-01 00:00:00,SITE,2,1,2097152,524288,4,direct,finished
2,2025-01-01 00:00:00,SITE,2,1,2097152,524288,1,copy,finished
3,2025-01-01 00:00:01,SITE,1,1,2097152,524288,2,direct,finished
4,2025-01-01 00:00:01,SITE,1,1,2097152,0,1,copy,failed
5,2025-01-01 00:00:02,SITE,4,2,2097152,524288,1,copy,finished
6,2025-01-01 00:00:02,SITE,1,1,2097152,524288,8,direct,finished
7,2025-01-01 00:00:03,SITE,1,1,2097152,524288,1,,finished
8,2025-01-01 00:00:03,SITE,2,1,2097152,524288,2,direct,finished
CSV
opts="--time-scale 4 --byte-scale 1 --attempts 2 --backoff 50ms --fail-stageout 30% --seed 5"
fnblk-replay $opts --site SITE=/dev/fnblk0,slots=2 -o "$TMP/ev.csv" "$TMP/jobs.csv" \
	>"$TMP/kpi.txt" 2>"$TMP/replay.err"
rc=$?
# What it said on stderr, even when it succeeded (a warning explains a
# later failed check), and its attempts and lateness.
sed 's/^/# /' "$TMP/replay.err"
grep -E '^[0-9]+ attempts|^ends noticed' "$TMP/kpi.txt" | sed 's/^/# /'
check "eight jobs replay on /dev/fnblk0" [ $rc -eq 0 ]
check "every job ends with its job row" [ "$(grep -c ',job,' "$TMP/ev.csv")" -eq 8 ]
check "the device's settings are recorded" grep -q "^# param site.SITE=slots=2,bw=${BW_MIB}MiB/s," "$TMP/ev.csv"

# The device throttles: a copy job's stage-in of 2 MiB takes >= 1/8 s.
min_in=$(awk -F, '$5 == "stagein" && $9 == 2097152 { d = $7 - $6; if (!m || d < m) m = d } END { print m + 0 }' "$TMP/ev.csv")
echo "# shortest 2 MiB stage-in: ${min_in} ns"
check "a 2 MiB stage-in takes at least 2 MiB / B" [ "$min_in" -ge 120000000 ]

fnblk-sim replay --compare "$TMP/ev.csv" "$TMP/jobs.csv" >"$TMP/cmp.txt" 2>"$TMP/sim.err"
rc=$?
[ $rc -eq 0 ] || sed 's/^/# /' "$TMP/sim.err"
check "fnblk-sim replay --compare simulates the run from its events" [ $rc -eq 0 ]
sed 's/^/# /' "$TMP/cmp.txt" | head -14
for m in error_rate attempt_error_rate remote_fraction; do
	e=$(compare_value "$TMP/cmp.txt" all $m 2)
	p=$(compare_value "$TMP/cmp.txt" all $m 3)
	same=0
	[ -n "$e" ] && [ "$e" = "$p" ] && same=1
	check "$m: emulated $e = predicted $p" [ $same -eq 1 ]
done
for m in wall_mean_s queue_mean_s; do
	e=$(compare_value "$TMP/cmp.txt" all $m 2)
	p=$(compare_value "$TMP/cmp.txt" all $m 3)
	# The guest adds process start-up and timer slack; never less than the model.
	check_timing "$m: emulated $e within 40% of predicted $p" within "$e" "$p" 0.4
done
echo "1..$n"
[ $failed -eq 0 ]
