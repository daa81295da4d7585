# SPDX-License-Identifier: GPL-2.0
#
# Cluster experiment 3: experiment 3's overlap claim with hosts as the
# users. N = 3, 4, 5 client hosts (network namespaces in one guest, one
# job each in its own slice of the device, lib_cluster.sh) start their
# first writes STEP ms apart with every write window overlapping; anonymous
# sharing predicts that the intervals a_k between write starts map as
# a_k -> ((N-k)/k) a_k. B is low for the hosts' path (cluster experiment
# 1): 1 MiB checkpoints in 64 KiB requests at 2 MiB/s, 0.5 s alone.
# Documentation/experiments/cluster.rst.

SUMMARY=$RESULTS/cluster-3-overlap.summary
BW=2
STEP=${STEP:-60}
COUNTS=${COUNTS:-3 4 5}
FLEET="--compute 1s --size 1MiB --bs 64KiB --cycles 4"
. /opt/kselftest/fnblk/lib_cluster.sh
load_fnblk bw_mbps=$BW fn=constant policy=anon key=tgid store=none
modprobe -q veth || { echo "cannot load veth"; exit 1; }
fnblkctl -j dev show fnblk0 >"$RESULTS/dev.json" || exit 1
DEV_PARAMS=$(cluster_fleet_params "$RESULTS/dev.json") || exit 1
{
	echo "# cluster experiment 3: start-interval ratios with hosts as users (namespaces, nbd sync export)"
	echo "# $FLEET, B = ${BW}MiB/s (solo write 0.5 s), starts ${STEP}ms apart"
	echo "# first = a_k(1)/a_k(0); median/geomean over every qualifying transition; expected (N-k)/k"
	overlap_header
} >"$SUMMARY"
CLUSTER_DIR=/tmp/cluster
cluster_storage_start /dev/fnblk0 || exit 1
for n in $COUNTS; do
	name=hosts$n
	phase_file /tmp/phases $n $STEP
	i=0
	while [ $i -lt $n ]; do
		sed -n "$((i + 1))p" /tmp/phases >/tmp/phase.$i
		i=$((i + 1))
	done
	cluster_clients_up $n || exit 1
	say "fleet $name: $n hosts, $FLEET, starts ${STEP}ms apart"
	fnblkctl stats reset fnblk0
	# One time 0 for every host (one clock in all namespaces): started one
	# after another, the fleets would count their phases from their own
	# starts, up to 0.6 s apart on a loaded host; their start-up took
	# 3.1-3.4 s for 4 and 5 hosts at load 4.7: 2 s and 1 s a host.
	at=$(awk -v n=$n '{ printf "%.0f", ($1 + 2 + n) * 1e9 }' /proc/uptime)
	# shellcheck disable=SC2086 # FLEET and DEV_PARAMS are lists of words
	cluster_run_fleets $n "$RESULTS/$name" $FLEET --jobs 1 --part %h/$n \
		--phases file:/tmp/phase.%h --start-at ${at}ns $DEV_PARAMS ||
		{ cat "$RESULTS/$name"/host*/fleet.err; exit 1; }
	cluster_storage_collect fnblk0 "$RESULTS/$name"
	cluster_writers "$RESULTS/$name/users.json" >"$RESULTS/$name/writers"
	say "$name: $(wc -l <"$RESULTS/$name/writers") users wrote, peak n $(fnblkctl json \
		peak_active <"$RESULTS/$name/stats.json")"
	fnblk-analyze --hosts --merged "$RESULTS/$name.csv" \
		"$RESULTS/$name"/host[0-9]*/events.csv >"$RESULTS/$name.txt" || exit 1
	overlap_rows $n "$RESULTS/$name" $BW >>"$SUMMARY"
	cluster_clients_remove
done
cluster_teardown
cat "$SUMMARY"
