# SPDX-License-Identifier: GPL-2.0
#
# Clock calibration: what the guest can do in the clock mode it runs under
# (scripts/experiments/run -c real, or -c icount:SHIFT). Under -icount the
# guest's time is its instruction count times 2^SHIFT ns, so a larger shift
# is a slower guest CPU: the guest must still keep up with the emulated
# bandwidth, or every timing it reports is the CPU's and not the device's.
#
#  1. one writer's rate against B: an O_DIRECT checkpoint of 32 MiB in 1 MiB
#     requests, one in flight (psync) and four (io_uring), store none and
#     memory, at B = 32, 64, 128, 256 MiB/s: the write's time over S/B;
#  2. timer accuracy: a 20 ms sleep between writes on an unthrottled
#     device, 40 times: how much later than 20 ms the next write starts;
#  3. the guest's seconds for the whole run (the host's are in
#     host-load.summary), so the ratio says how long an experiment takes.

SUMMARY=$RESULTS/clock-calibration.summary
{
	echo "# clock calibration: ${FNBLK_CLOCK:-real}"
	echo "# rate: S/B over the measured write time of a 32MiB checkpoint (1 = the device's"
	echo "# bandwidth reached), median of 3 writes; timer: lateness of a 20ms sleep, ms"
	printf '%-8s %6s %8s %8s\n' store bw_MiB psync uring_qd4
} >"$SUMMARY"
start=$(cut -d' ' -f1 /proc/uptime)

# Median over the cycles of S/B / (end - start).
rate() { # csv bw_mib
	awk -F, -v bw="$2" '/^[0-9]/ { t[n++] = ($4 - $3) / 1e9 }
		END { for (i = 0; i < n; i++) for (j = i + 1; j < n; j++) if (t[j] < t[i]) { x = t[i]; t[i] = t[j]; t[j] = x }
		      printf "%.4f", (32 / bw) / t[int(n / 2)] }' "$1"
}

# A first write, not measured: the first run after boot pays for the
# guest's own start-up (under icount, any guest CPU work is time).
load_fnblk bw_mbps=64 fn=constant store=none
fnblk-fleet -q --jobs 1 --compute 10ms --size 32MiB --bs 1MiB --engine psync --cycles 2 \
	-o "$RESULTS/warm-up.csv" /dev/fnblk0 || exit 1
echo "# warm-up (not in the table): rate $(rate "$RESULTS/warm-up.csv" 64) at 64MiB/s, psync" >>"$SUMMARY"

for store in none memory; do
	for bw in 32 64 128 256; do
		load_fnblk bw_mbps=$bw fn=constant store=$store
		line=$(printf '%-8s %6s' $store $bw)
		for eng in psync uring; do
			f=$RESULTS/rate-$store-$bw-$eng.csv
			qd=
			[ $eng = uring ] && qd="--qd 4"
			fnblk-fleet -q --jobs 1 --compute 10ms --size 32MiB --bs 1MiB \
				--engine $eng $qd --cycles 3 -o "$f" /dev/fnblk0 || exit 1
			line="$line $(printf '%8s' "$(rate "$f" $bw)")"
		done
		echo "$line" >>"$SUMMARY"
	done
done

load_fnblk bw_mbps=0 fn=constant store=none
fnblk-fleet -q --jobs 1 --compute 20ms --size 4KiB --cycles 40 \
	-o "$RESULTS/timer.csv" /dev/fnblk0 || exit 1
awk -F, '/^[0-9]/ { s[$2] = $3; e[$2] = $4; if ($2 > m) m = $2 }
	END { for (c = 1; c <= m; c++) { d = (s[c] - e[c - 1]) / 1e6 - 20; v[n++] = d; sum += d; if (d > mx) mx = d }
	      for (i = 0; i < n; i++) for (j = i + 1; j < n; j++) if (v[j] < v[i]) { x = v[i]; v[i] = v[j]; v[j] = x }
	      printf "# timer: 20ms sleep late by mean %.3f ms, median %.3f, max %.3f (%d sleeps)\n", sum / n, v[int(n / 2)], mx, n }' \
	"$RESULTS/timer.csv" >>"$SUMMARY"
echo "# guest seconds for the calibration: $(awk -v a="$start" -v b="$(cut -d' ' -f1 /proc/uptime)" 'BEGIN { printf "%.1f", b - a }')" >>"$SUMMARY"
cat "$SUMMARY"
