# SPDX-License-Identifier: GPL-2.0
#
# Experiment 1: two identical jobs whose write is shorter than their
# compute keep their phase gap cycle after cycle (the return map of the
# gap is the identity) under f = constant and f = linear:2. Gaps from
# "writes overlap most of the way" to "writes never overlap".
# (linear:1 is constant by the module's definition: f(n) = min(n, 1).)

SUMMARY=$RESULTS/1-pair-identity.summary
BW=32		# MiB/s: an 8 MiB checkpoint takes 250 ms alone
{
	echo "# experiment 1: phase-gap return map of two identical jobs"
	echo "# T = 1s, S = 8MiB, B = ${BW}MiB/s (solo write 250ms), 10 cycles, cycle 0 skipped"
	echo "# gap0: planned gap as measured in cycle 1; steps g(c+1) - g(c) in ms"
	printf '%-9s %7s %9s %13s %12s %12s %9s\n' fn gap_ms gap0_ms mean_step_ms \
		rms_step_ms max_step_ms changed
} >"$SUMMARY"

for fn in constant linear:2; do
	# store=none: no page allocation on a first write, no data copies.
	load_fnblk bw_mbps=$BW fn=$fn policy=anon key=tgid store=none
	for gap in 0 50 100 200 400; do
		name=pair-${fn%%:*}${fn#*:}-gap$gap
		[ "$fn" = constant ] && name=pair-constant-gap$gap
		phase_file /tmp/phases 2 $gap
		ANALYZE_ARGS="--skip-cycles 1" run_fleet $name --jobs 2 --compute 1s --size 8MiB --cycles 10 \
			--phases file:/tmp/phases || exit 1
		line=$(grep -A1 '^ *pair ' "$RESULTS/$name.txt" | tail -1)
		order=$(pick "$RESULTS/$name.txt" '^firing order' | awk '{ print $5 }')
		echo "$line" | awk -v fn=$fn -v gap=$gap -v ch="$order" \
			'{ printf "%-9s %7d %9.3f %13.3f %12.3f %12.3f %9s\n", fn, gap, $2, $3, $4, $5, ch }' \
			>>"$SUMMARY"
	done
done
# Pooled over the gaps of one f (fnblk-analyze --pool: least squares of
# the step g(c+1) - g(c) on the gap g(c), cycle 0 left out, with standard
# errors): a coupling toward (or away from) synchrony is a step that
# depends on the gap, a nonzero slope. Once over every gap, once over the
# gaps where the writes overlap (0-200 ms of a 250 ms write).
for fn in constant linear2; do
	for gaps in all overlap; do
		files=$(ls "$RESULTS"/pair-$fn-gap*.csv)
		[ $gaps = overlap ] && files=$(ls "$RESULTS"/pair-$fn-gap*.csv | grep -v gap400)
		printf '# pooled, f = %s, %s gaps: ' $fn $gaps
		fnblk-analyze --pool --skip-cycles 1 $files | tail -1
	done
done >>"$SUMMARY"
cat "$SUMMARY"
