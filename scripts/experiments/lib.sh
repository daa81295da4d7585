# SPDX-License-Identifier: GPL-2.0
#
# Guest-side helpers for the fleet experiments. scripts/experiments/run
# prepends this file to an experiment script and runs the result in the
# test VM (busybox sh), where fnblk-fleet, fnblk-analyze and fnblkctl are
# in PATH and /results comes back to the host.

RESULTS=${RESULTS:-/results}
mkdir -p "$RESULTS"

say() { echo "== $*"; }

# (Re)load fnblk with one device made from load-time parameters.
load_fnblk() { # param=value...
	if [ -e /sys/module/fnblk ]; then
		rmmod fnblk || { echo "cannot unload fnblk"; exit 1; }
	fi
	if [ -n "${FNBLK_KO:-}" ]; then
		insmod "$FNBLK_KO" nr_devices=1 size_mb=${SIZE_MB:-512} "$@"
	else
		modprobe fnblk nr_devices=1 size_mb=${SIZE_MB:-512} "$@"
	fi || { echo "cannot load fnblk $*"; exit 1; }
	i=0
	while [ ! -b /dev/fnblk0 ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	say "fnblk loaded: $*"
}

# run_fleet NAME [fnblk-fleet options...]: events in $RESULTS/NAME.csv, the
# analysis as a table (NAME.txt) and JSON (NAME.json). ANALYZE_ARGS are
# passed to fnblk-analyze.
run_fleet() {
	name=$1
	shift
	say "fleet $name: $*"
	if ! fnblk-fleet -q -o "$RESULTS/$name.csv" "$@" /dev/fnblk0; then
		echo "fnblk-fleet failed for $name"
		return 1
	fi
	fnblk-analyze ${ANALYZE_ARGS:-} "$RESULTS/$name.csv" >"$RESULTS/$name.txt" &&
	fnblk-analyze ${ANALYZE_ARGS:-} --json "$RESULTS/$name.csv" >"$RESULTS/$name.json"
}

# A phase file of N offsets: 0, step, 2*step, ... (in ms).
phase_file() { # path jobs step_ms
	: >"$1"
	k=0
	while [ $k -lt "$2" ]; do
		echo "$((k * $3))ms" >>"$1"
		k=$((k + 1))
	done
}

# One line of a report from a table: the first line matching a pattern.
pick() { # file pattern
	grep -m1 "$2" "$1"
}

# The header and the rows of an overlap-ratio summary (experiments 3 and 4,
# cluster-3-overlap): for N jobs started with all write windows
# overlapping, the first transition a_k(1)/a_k(0) of the intervals between
# write starts against (N-k)/k, the median and geometric mean of every
# qualifying transition (fnblk-analyze's "start intervals"), the product
# of the first ratios, and how busy a device of B MiB/s was per cycle.
overlap_header() {
	printf '%3s %3s %6s %10s %10s %10s %10s\n' N k trans expected first median geomean
}
overlap_rows() { # N RUN(.csv, .txt) B_MiB
	t=$2.txt
	tr=$(pick "$t" '^start intervals' | awk '{ print $5 }')
	# a_k of cycles 0 and 1 from the sorted write starts.
	awk -F, '/^[0-9]/ && $2 <= 1 { print $2, $3 }' "$2.csv" | sort -k1,1n -k2,2n |
		awk 'BEGIN { c = -1 } { if ($1 != c) { k = 0; c = $1 } else { k++; a[c, k] = $2 - p } p = $2 }
		     END { for (i = 1; i <= k; i++) printf "%d %.4f\n", i, a[1, i] / a[0, i] }' \
		>/tmp/first
	# One line per k: the first ratio from the events, the others from the
	# report (absent when no transition qualified).
	awk -v n=$1 -v tr=${tr:-0} 'FILENAME == "/tmp/first" { first[$1] = $2; next }
		/^start intervals/ { on = 1; next }
		on && /^ +k +expected/ { next }
		on && NF == 5 { med[$1] = $3; geo[$1] = $5; next }
		on { on = 0 }
		END { for (k = 1; k < n; k++)
			printf "%3d %3d %6s %10.4f %10.4f %10s %10s\n", n, k, tr, (n - k) / k,
				first[k], k in med ? med[k] : "-", k in geo ? geo[k] : "-" }' \
		/tmp/first "$t"
	awk -v n=$1 '{ p *= $2 } BEGIN { p = 1 } END { printf "#   N = %d: product of the first ratios %.4f (predicted 1)\n", n, p }' \
		/tmp/first
	# How busy the device was from a cycle's first start to its last end
	# (1 = no bandwidth lost): a stalled guest loses bandwidth and skews
	# every finish time after the stall.
	awk -F, -v bw=$3 '/^[0-9]/ { c = $2; b[c] += $5; if (!(c in s) || $3 < s[c]) s[c] = $3; if ($4 > e[c]) e[c] = $4 }
		END { printf "#   device busy per cycle:"; for (c = 0; c in s; c++)
			printf " %.3f", b[c] / (bw * 1048576) / ((e[c] - s[c]) / 1e9); printf "\n" }' \
		"$2.csv"
}
