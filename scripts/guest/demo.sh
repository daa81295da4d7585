#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of "make demo": a small checkpoint fleet on one fnblk device.
# Four writers each dump an 8 MiB checkpoint at the same moment; with
# f(n) = linear:2 the device serves f(n)·B in total, split equally, so
# the per-writer bandwidth shows the sharing. Writes the fio results and
# device statistics to /results.

BW_MBPS=32
FN=linear:2
WRITERS=4
SIZE_MB=8

modprobe fnblk bw_mbps=$BW_MBPS fn=$FN || { echo "demo: cannot load fnblk"; exit 1; }
i=0
while [ ! -b /dev/fnblk0 ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
[ -b /dev/fnblk0 ] || { echo "demo: /dev/fnblk0 did not appear"; exit 1; }

echo "fnblk demo: /dev/fnblk0 with B = $BW_MBPS MiB/s, f(n) = $FN"
echo "  $WRITERS writers x $SIZE_MB MiB checkpoints, direct I/O, 1 MiB blocks, started together"

# One fio run, WRITERS jobs: fio forks a process per job (each one user to
# fnblk) and starts them together once all are set up.
fio --name=ckpt --filename=/dev/fnblk0 --rw=write --bs=1M --size=${SIZE_MB}M \
	--numjobs=$WRITERS --offset_increment=${SIZE_MB}M --direct=1 \
	--ioengine=psync --output-format=terse --output=/results/writers.terse ||
	{ echo "demo: fio failed"; cat /results/writers.terse; exit 1; }

# fio terse v3, one line per job: field 5 error, 47 KiB written, 48 KiB/s,
# 50 runtime in ms.
status=0
awk -F';' -v n=$WRITERS -v b=$BW_MBPS -v fn=$FN '
{
	w++
	if ($5 != 0) { printf "  writer %d: fio error %s\n", w, $5; bad = 1; next }
	printf "  writer %d: %5.1f MiB in %5.2f s = %5.1f MiB/s\n",
		w, $47 / 1024, $50 / 1000, $48 / 1024
	sum += $48 / 1024
}
END {
	printf "  sum of writer bandwidths: %.1f MiB/s\n", sum
	if (fn ~ /^linear:/) {
		k = substr(fn, 8) + 0
		f = n < k ? n : k
		printf "  expected: f(n) = min(n, %d), so with %d writers active f(%d)·B = %d MiB/s in total, %.1f MiB/s each\n",
			k, n, n, f * b, f * b / n
	}
	exit bad
}' /results/writers.terse || status=1

if command -v fnblkctl >/dev/null 2>&1; then
	echo
	echo "fnblkctl stats fnblk0:"
	fnblkctl stats fnblk0 | tee /results/stats.txt || status=1
else
	echo "(fnblkctl is not built yet: no device statistics)"
fi
exit $status
