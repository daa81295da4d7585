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
	printf '%3s %3s %6s %10s %10s %10s %10s\n' N k trans expected first median geomean
} >"$SUMMARY"
for n in 3 4 5 6; do
	name=overlap-$POLICY-n$n
	phase_file /tmp/phases $n $STEP
	run_fleet $name --jobs $n --compute 1s --size 32MiB --bs $BS --cycles 5 \
		--phases file:/tmp/phases || exit 1
	t=$RESULTS/$name.txt
	tr=$(pick "$t" '^start intervals' | awk '{ print $5 }')
	# a_k of cycles 0 and 1 from the sorted write starts.
	awk -F, '/^[0-9]/ && $2 <= 1 { print $2, $3 }' "$RESULTS/$name.csv" | sort -k1,1n -k2,2n |
		awk 'BEGIN { c = -1 } { if ($1 != c) { k = 0; c = $1 } else { k++; a[c, k] = $2 - p } p = $2 }
		     END { for (i = 1; i <= k; i++) printf "%d %.4f\n", i, a[1, i] / a[0, i] }' \
		>/tmp/first
	# One line per k: the first ratio from the events, the others from the
	# report (absent when no transition qualified).
	awk -v n=$n -v tr=${tr:-0} 'FILENAME == "/tmp/first" { first[$1] = $2; next }
		/^start intervals/ { on = 1; next }
		on && /^ +k +expected/ { next }
		on && NF == 5 { med[$1] = $3; geo[$1] = $5; next }
		on { on = 0 }
		END { for (k = 1; k < n; k++)
			printf "%3d %3d %6s %10.4f %10.4f %10s %10s\n", n, k, tr, (n - k) / k,
				first[k], k in med ? med[k] : "-", k in geo ? geo[k] : "-" }' \
		/tmp/first "$t" >>"$SUMMARY"
	awk -v n=$n '{ p *= $2 } BEGIN { p = 1 } END { printf "#   N = %d: product of the first ratios %.4f (predicted 1)\n", n, p }' \
		/tmp/first >>"$SUMMARY"
	# How busy the device was from a cycle's first start to its last end
	# (1 = no bandwidth lost): a stalled guest loses bandwidth and skews
	# every finish time after the stall.
	awk -F, -v bw=$BW '/^[0-9]/ { c = $2; b[c] += $5; if (!(c in s) || $3 < s[c]) s[c] = $3; if ($4 > e[c]) e[c] = $4 }
		END { printf "#   device busy per cycle:"; for (c = 0; c in s; c++)
			printf " %.3f", b[c] / (bw * 1048576) / ((e[c] - s[c]) / 1e9); printf "\n" }' \
		"$RESULTS/$name.csv" >>"$SUMMARY"
done
cat "$SUMMARY"
