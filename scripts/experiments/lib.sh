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
