#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of "make demo": a short checkpoint fleet on one fnblk device,
# what the device saw, what the analysis makes of it, and what the
# simulator, running the module's own scheduler, predicted for the same run.
# Everything it prints is also left in /results.

BW_MBPS=32
FN=linear:2
JOBS=6

modprobe fnblk bw_mbps=$BW_MBPS fn=$FN grace_us=20000 ||
	{ echo "demo: cannot load fnblk"; exit 1; }
i=0
while [ ! -b /dev/fnblk0 ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
[ -b /dev/fnblk0 ] || { echo "demo: /dev/fnblk0 did not appear"; exit 1; }

echo "== fnblk demo: /dev/fnblk0, B = $BW_MBPS MiB/s, f(n) = $FN (n writers get min(n,2)*B)"
echo "== $JOBS checkpointing jobs, random phases: compute 1 s, write 8 MiB, 6 cycles"
fnblkctl monitor fnblk0 --csv >/results/n.csv &
monitor=$!
# The fleet's progress line is for terminals; the console log keeps errors.
fnblk-fleet --jobs $JOBS --compute 1s --size 8MiB --cycles 6 --phases random \
	--seed 7 -o /results/events.csv /dev/fnblk0 >/results/fleet.txt \
	2>/results/fleet.err || { cat /results/fleet.err; echo "demo: fnblk-fleet failed"; exit 1; }
cat /results/fleet.txt
sleep 0.1
kill $monitor

echo
echo "== what the device saw (fnblkctl stats fnblk0)"
fnblkctl stats fnblk0 | tee /results/stats.txt || exit 1

echo
echo "== the analysis (fnblk-analyze): concurrent writers against independent phases"
fnblk-analyze --skip-cycles 1 /results/events.csv >/results/analysis.txt || exit 1
sed -n '/^concurrent writers/,/^$/p' /results/analysis.txt
grep -iE '^(firing order|kuramoto)' /results/analysis.txt
echo "(all of it, with phase-gap return maps: /results/analysis.txt)"

echo
echo "== the model's prediction of the same run (fnblk-sim compare)"
fnblk-sim compare --replay-compute /results/events.csv | tee /results/compare.txt
echo
echo "== n(t) from the event stream: $(grep -c ',' /results/n.csv) rows in /results/n.csv"
