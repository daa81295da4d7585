# SPDX-License-Identifier: GPL-2.0
#
# Experiment 5: a shared power cap on compute. Computing jobs progress at
# min(1, P/m), m the number computing (anonymous, like the storage). A job
# that is writing leaves the others more power, so how much of one job's
# write falls into the other's compute matters. For identical jobs this is
# symmetric and the phase gap should stay put (return map = identity); for
# heterogeneous jobs behind a binding cap the step of the gap should depend
# on the gap itself: a genuine pairwise coupling.

SUMMARY=$RESULTS/5-power-cap.summary
BW=32		# MiB/s: an 8 MiB checkpoint takes 250 ms alone
load_fnblk bw_mbps=$BW fn=constant policy=anon key=tgid store=none
{
	echo "# experiment 5: two jobs, S = 8MiB at ${BW}MiB/s (250ms alone), 30 s each, start gap 300ms (near: 100ms)"
	echo "# step = g(c+1) - g(c) of the gap g between the jobs' write starts; the last"
	echo "# two cycles are left out (one job may stop computing before the other)"
	echo "# period ratio: mean period of job 1 over job 0 (locking would pull it to 1)"
	printf '%-26s %10s %5s %7s %12s %12s %12s %8s\n' case compute cap steps mean_step_ms sd_step_ms range_ms ratio
} >"$SUMMARY"
# Under the cap a job gains power only while the other writes and it does
# not, so the coupling lives where the write windows partly overlap: the
# "near" cases start there (gap 100ms) with a small detuning (2%).
for spec in "identical 1s 0 300" "identical 1s 1 300" "hetero 1s,1.25s 0 300" \
	    "hetero 1s,1.25s 1 300" "hetero 1s,1.05s 0 300" "hetero 1s,1.05s 1 300" \
	    "near 1s,1.02s 0 100" "near 1s,1.02s 1 100"; do
	set -- $spec
	phase_file /tmp/phases 2 $4
	name=power-$1-cap$3
	[ "$1" = hetero ] && name=power-hetero${2#1s,}-cap$3
	run_fleet $name --jobs 2 --compute $2 --size 8MiB --cycles 0 --duration 30s \
		--power-cap $3 --power-step 2ms --phases file:/tmp/phases || exit 1
	# Gap series: start of job 1 minus start of job 0, per cycle both ran.
	awk -F, '/^[0-9]/ { s[$2, $1] = $3; n[$1]++ }
		END { m = n[0] < n[1] ? n[0] : n[1]; for (c = 0; c < m; c++) printf "%.3f\n", (s[c, 1] - s[c, 0]) / 1e6 }' \
		"$RESULTS/$name.csv" >"$RESULTS/$name.gaps"
	# Steps without the last two: their mean, spread and range. A constant
	# drift has no spread beyond noise; a gap-dependent step has some.
	# (busybox awk has no math library: Newton for the square root.)
	stats=$(awk 'function root(v,  r, i) { if (v <= 0) return 0; r = v > 1 ? v : 1; for (i = 0; i < 100; i++) r = (r + v / r) / 2; return r }
		{ g[NR] = $1 }
		END { for (i = 2; i <= NR - 2; i++) { d = g[i] - g[i - 1]; s += d; ss += d * d; n++
			if (n == 1 || d < lo) lo = d; if (n == 1 || d > hi) hi = d }
		      m = s / n; printf "%d %.3f %.3f %.3f", n, m, root(ss / n - m * m), hi - lo }' \
		"$RESULTS/$name.gaps")
	ratio=$(awk -F, '/^[0-9]/ { n[$1]++; if (!($1 in f) || $3 < f[$1]) f[$1] = $3; if ($3 > l[$1]) l[$1] = $3 }
		END { printf "%.4f", ((l[1] - f[1]) / (n[1] - 1)) / ((l[0] - f[0]) / (n[0] - 1)) }' "$RESULTS/$name.csv")
	printf '%-26s %10s %5s %7s %12s %12s %12s %8s\n' $name $2 $3 $stats $ratio >>"$SUMMARY"
done
for f in "$RESULTS"/power-*.gaps; do
	echo "# $(basename $f .gaps) gaps (ms): $(tr '\n' ' ' <"$f")"
done >>"$SUMMARY"
cat "$SUMMARY"
