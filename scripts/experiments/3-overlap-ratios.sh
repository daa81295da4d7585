# SPDX-License-Identifier: GPL-2.0
#
# Experiment 3: N = 3..6 identical jobs started with all write windows
# overlapping. Anonymous sharing predicts that the intervals a_k between
# consecutive write starts map as a_k -> ((N-k)/k) a_k (f constant; for
# another f: (N-k) f(k) / (k f(N-k))), with unit product: synchrony is a
# fixed point with expanding directions, not an attractor.
# Run with POLICY=fifo for experiment 4 (see 4-fifo.sh).

POLICY=${POLICY:-anon}
EXP=${EXP:-3-overlap-ratios}
SUMMARY=$RESULTS/$EXP.summary
BW=32		# MiB/s: a 32 MiB checkpoint takes 1 s alone
STEP=${STEP:-60}	# ms between the first write starts
BS=${BS:-256KiB}	# request size
# store=none: no data copies, so the guest CPU adds no timing noise; small
# requests (bs 256KiB, 8 ms alone, 4 in flight) keep each job's progress
# close to fluid.
load_fnblk bw_mbps=$BW fn=constant policy=$POLICY key=tgid store=none
{
	echo "# experiment ${EXP%%-*}: start-interval ratios, policy $POLICY"
	echo "# T = 1s, S = 32MiB, B = ${BW}MiB/s (solo write 1s), bs $BS, starts ${STEP}ms apart, 5 cycles"
	echo "# first = a_k(1)/a_k(0), the transition from the planned starts;"
	echo "# median/geomean over every transition whose writes all overlap one another"
	echo "# and no other cycle's (trans: how many); expected: (N-k)/k for f constant"
	overlap_header
} >"$SUMMARY"
for n in 3 4 5 6; do
	name=overlap-$POLICY-n$n
	phase_file /tmp/phases $n $STEP
	run_fleet $name --jobs $n --compute 1s --size 32MiB --bs $BS --cycles 5 \
		--phases file:/tmp/phases || exit 1
	overlap_rows $n "$RESULTS/$name" $BW >>"$SUMMARY"
done
cat "$SUMMARY"
