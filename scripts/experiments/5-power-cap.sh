# SPDX-License-Identifier: GPL-2.0
#
# Experiment 5: a shared power cap on compute. Computing jobs progress at
# min(1, P/m), m the number computing (anonymous, like the storage). For
# identical jobs the cap changes every job's compute the same way, so the
# phase gap should stay put (return map = identity); for heterogeneous
# jobs behind a binding cap the gap's step depends on the gap itself:
# a genuine pairwise coupling. Writes are small so compute dominates.

SUMMARY=$RESULTS/5-power-cap.summary
BW=64
load_fnblk bw_mbps=$BW fn=constant policy=anon key=tgid store=none
{
	echo "# experiment 5: two jobs, small writes (1MiB at ${BW}MiB/s), 12 cycles, start gap 300ms"
	echo "# step = g(c+1) - g(c) of the gap g between the jobs' write starts"
	printf '%-26s %10s %12s %12s %12s %8s\n' case compute cap mean_step_ms rms_dev_ms slope
} >"$SUMMARY"
phase_file /tmp/phases 2 300
for spec in "identical 1s 0" "identical 1s 1" "hetero 1s,1.2s 0" "hetero 1s,1.2s 1" \
	    "hetero 1s,1.2s 1.5"; do
	set -- $spec
	name=power-$1-cap$3
	run_fleet $name --jobs 2 --compute $2 --size 1MiB --cycles 12 --power-cap $3 \
		--power-step 2ms --phases file:/tmp/phases || exit 1
	# Gap series from the events: start of job 1 minus start of job 0, per cycle.
	awk -F, '/^[0-9]/ { s[$2, $1] = $3; if ($2 > m) m = $2 }
		END { for (c = 0; c <= m; c++) printf "%.3f\n", (s[c, 1] - s[c, 0]) / 1e6 }' \
		"$RESULTS/$name.csv" >"$RESULTS/$name.gaps"
	# Steps, their mean, and their spread around the mean (a constant
	# drift has none; a gap-dependent step has some).
	# (busybox awk has no math library: Newton for the square root.)
	stats=$(awk 'function root(v,  r, i) { if (v <= 0) return 0; r = v > 1 ? v : 1; for (i = 0; i < 100; i++) r = (r + v / r) / 2; return r }
		NR > 1 { d = $1 - p; s += d; ss += d * d; n++ } { p = $1 }
		END { m = s / n; v = ss / n - m * m; printf "%.3f %.3f", m, root(v) }' \
		"$RESULTS/$name.gaps")
	slope=$(grep -A1 '^ *pair ' "$RESULTS/$name.txt" | tail -1 | awk '{ print $6 }')
	printf '%-26s %10s %12s %12s %12s %8s\n' $name $2 $3 $stats $slope >>"$SUMMARY"
done
cat "$SUMMARY"
for f in "$RESULTS"/power-hetero-cap1.gaps "$RESULTS"/power-hetero-cap0.gaps; do
	echo "# $(basename $f): $(tr '\n' ' ' <"$f")"
done | tee -a "$SUMMARY"
