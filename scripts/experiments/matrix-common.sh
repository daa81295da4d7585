# SPDX-License-Identifier: GPL-2.0
#
# Shared by the matrix experiments (matrix-*.sh, which "#include" this):
# the emulated remote store, one fnblk-matrix run kept as JSON, and the
# figures the summaries print from it. Runs in the test VM after lib.sh.
#
# The store: every request pays STORE_LATENCY after its service and
# STORE_OVERHEAD of extra service demand, at STORE_BW (an RPC's round trip
# and per-request cost on a remote file system). 64 MiB/s rather than the
# 256 MiB/s of issue 12: under TCG a page fault costs the guest 100-300 us
# of CPU, which at 256 MiB/s would set the pace itself; each experiment
# measures its ceiling with the store off to show the device does.

STORE_BW=${STORE_BW:-64MiB/s}
STORE_LATENCY=${STORE_LATENCY:-200us}
STORE_OVERHEAD=${STORE_OVERHEAD:-16KiB}
KV=$(uname -r | sed 's/^\([0-9]*\.[0-9]*\).*/\1/')	# 6.1, 6.12
DEV=/dev/fnblk0

# Where threads wait needs delay accounting (off by default since 5.14).
echo 1 >/proc/sys/kernel/task_delayacct

store_on() {
	fnblkctl dev set fnblk0 bw "$STORE_BW" latency "$STORE_LATENCY" \
		overhead "$STORE_OVERHEAD" >/dev/null || { echo "cannot set the store"; exit 1; }
}

store_off() {
	fnblkctl dev set fnblk0 bw 0 latency 0 overhead 0 >/dev/null
}

# The conditions, for the head of a summary.
conditions() {
	echo "# kernel $(uname -r), $(nproc) cpus, store: bw $STORE_BW latency $STORE_LATENCY overhead $STORE_OVERHEAD"
	echo "# guest uptime at start: $(cut -d" " -f1 /proc/uptime) s; host load: host-load.summary and host-load.csv beside this file"
}

# mx NAME ARGS...: one "fnblk-matrix run ARGS", its report in NAME.json.
mx() {
	name=$1
	shift
	say "$name: fnblk-matrix run $*"
	rm -f "$RESULTS/$name.bound.json"	# a bound of an earlier run of this name
	fnblk-matrix run "$@" -j >"$RESULTS/$name.json" 2>"$RESULTS/$name.err"
	echo $? >"$RESULTS/$name.rc"
	[ -s "$RESULTS/$name.err" ] && sed 's/^/   /' "$RESULTS/$name.err"
	return 0
}

# v NAME KEY: a value of a run's report, or "-".
v() {
	fnblkctl json "$2" <"$RESULTS/$1.json" 2>/dev/null || echo -
}

# Formatting: MiB/s, ms, percent, KiB, with "-" passed through.
mibps() { awk -v x="$1" 'BEGIN { if (x == "-") print "-"; else printf "%.2f", x / 1048576 }'; }
ms() { awk -v x="$1" 'BEGIN { if (x == "-") print "-"; else printf "%.2f", x / 1e6 }'; }
sec() { awk -v x="$1" 'BEGIN { if (x == "-") print "-"; else printf "%.2f", x / 1e9 }'; }
pct() { awk -v x="$1" 'BEGIN { if (x == "-" || x == "null") print "-"; else printf "%.1f", 100 * x }'; }
kib() { awk -v x="$1" 'BEGIN { if (x == "-" || x == "null") print "-"; else printf "%.1f", x / 1024 }'; }
mib() { awk -v x="$1" 'BEGIN { if (x == "-" || x == "null") print "-"; else printf "%.1f", x / 1048576 }'; }

# sizes NAME read|write: the device's request sizes, "4K:98 128K:2" (%).
sizes() {
	v "$1" "device.io.$2_sizes" | tr '{}' '\n\n' |
		sed -n 's/.*"bytes":\([0-9]*\),"requests":\([0-9]*\).*/\1 \2/p' |
		awk '{ b[NR] = $1; n[NR] = $2; t += $2 }
		     END {
			if (!t) { print "-"; exit }
			for (i = 1; i <= NR; i++) {
				s = b[i] >= 1048576 ? (b[i] / 1048576) "M" : (b[i] / 1024) "K"
				if (100 * n[i] / t >= 0.5)
					printf "%s%s:%.0f", sep, s, 100 * n[i] / t
				sep = " "
			}
			print ""
		     }'
}

# wait_classes NAME: the workers' top wait classes, "page_io:80 mmap_lock:3" (%).
wait_classes() {
	v "$1" threads.workers.waiting_in | tr -d '{}"' | tr ',' '\n' |
		awk -F: '$2 + 0 >= 0.005 { printf "%s%s:%.0f", sep, $1, 100 * $2; sep = " " } END { print "" }'
}

# top_sites NAME N: the workers' N most sampled kernel wait sites.
top_sites() {
	v "$1" threads.worker_sites | tr '{}' '\n\n' |
		sed -n 's/.*"site":"\([^"]*\)","class":"\([^"]*\)","samples":\([0-9]*\).*/\1(\2):\3/p' |
		head -n "$2" | tr '\n' ' '
	echo
}
