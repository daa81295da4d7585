# SPDX-License-Identifier: GPL-2.0
#
# Experiment 2: a fleet of 16 identical jobs launched at random phases.
# Expected under anonymous sharing: no locking (Kuramoto r stays near its
# random-phase value, about 1/sqrt(N)), a firing order that never changes,
# and yet an upper tail of concurrent writers above the independent-phase
# (Poisson-binomial) baseline. Three seeds.

SUMMARY=$RESULTS/2-random-fleet.summary
BW=32		# MiB/s: a 4 MiB checkpoint takes 125 ms alone
load_fnblk bw_mbps=$BW fn=constant policy=anon key=tgid store=none
{
	echo "# experiment 2: 16 identical jobs, random phases"
	echo "# T = 2s, S = 4MiB, B = ${BW}MiB/s (solo write 125ms), 15 cycles, first 2 skipped"
	echo "# changed: cycle-to-cycle firing-order changes (of 12); swap_ms: widest"
	echo "# start gap of a pair that swapped (near-coincident pairs swap on noise)"
	echo "# ratio_k: P(n>=k) measured over independent, with its 95% block-bootstrap CI"
	printf '%5s %8s %8s %8s %9s %8s %8s %10s %10s %16s %10s %10s %16s\n' seed r_first r_mean \
		r_last 1/sqrt16 changed swap_ms "P(n>=3)" "indep" "ratio_3 CI" "P(n>=4)" "indep" \
		"ratio_4 CI"
} >"$SUMMARY"
for seed in 1 2 3; do
	name=random16-seed$seed
	ANALYZE_ARGS="--skip-cycles 2" run_fleet $name --jobs 16 --compute 2s \
		--size 4MiB --cycles 15 --phases random --seed $seed || exit 1
	t=$RESULTS/$name.txt
	r_first=$(pick "$t" '^  r:' | awk '{ print $2 }')
	r_last=$(pick "$t" '^  r:' | awk '{ print $NF }')
	r_mean=$(pick "$t" '^Kuramoto' | awk '{ print $6 }')
	changed=$(pick "$t" '^firing order' | awk '{ print $5 }')
	swap=$(pick "$t" '^firing order' | sed -n 's/.*at most \([0-9.]*\) ms apart/\1/p')
	# Rows of the concurrency table: n measured indep tail_meas tail_indep ratio CI
	tail3=$(awk '$1 == "3" && NF >= 6 { print $4, $5, $6 "(" ($7 ? $7 : "-") ")"; exit }' "$t")
	tail4=$(awk '$1 == "4" && NF >= 6 { print $4, $5, $6 "(" ($7 ? $7 : "-") ")"; exit }' "$t")
	printf '%5s %8s %8s %8s %9s %8s %8s %10s %10s %16s %10s %10s %16s\n' $seed $r_first \
		$r_mean $r_last 0.25 $changed "${swap:--}" $tail3 $tail4 >>"$SUMMARY"
	# The whole tail, k = 3..8: measured over independent (CI).
	# (rows of the concurrency table only: the write-cost table follows)
	awk '/^concurrent writers/ { on = 1; next } on && !NF { on = 0 }
		on && $1 ~ /^[3-8]$/ && NF >= 6 { printf " k=%s %s(%s)", $1, $6, $7 ? $7 : "-" }
		END { printf "\n" }' "$t" | sed "s/^/#   seed $seed tail:/" >>"$SUMMARY"
done
cat "$SUMMARY"
