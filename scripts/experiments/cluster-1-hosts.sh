# SPDX-License-Identifier: GPL-2.0
#
# Cluster experiment 1: six client hosts as the anonymous users of one
# fnblk device exported by nbd-server (network namespaces in one guest,
# each on its own veth link with its own nbd connection and serving
# process: lib_cluster.sh), one checkpointing job per host, against the
# same six jobs as processes on the storage host. The phases are the ones
# fnblk-sim draws for 6 jobs with seed 1 (host I gets job I's). Claims of
# experiment 2 with hosts as users: the firing order stays frozen and the
# upper tail of concurrent writers stays above the independent-phase
# baseline; then what the network path adds (write time, slowdown), also
# with 2 ms one-way netem delay per link; fnblk-sim's prediction of the
# merged multi-host run (hosts as users, the network's delay as latency).
# Each host writes its own slice of the device (fnblk-fleet --part).
# A variant sets HOSTS, SEED, DELAYS (or BW, SIZE, BS) first and includes this file
# (cluster-1-hosts-*.sh: the repeats of Documentation/experiments/cluster.rst).
# HOSTS may be a list of host counts, run one after the other in this boot
# (cluster-2-path.sh); the local jobs then run for the first count only and
# each count's runs are named hostsN-delayD instead of hosts-delayD.

SUMMARY=${SUMMARY:-$RESULTS/cluster-1-hosts.summary}
HOSTS=${HOSTS:-6}
SEED=${SEED:-1}
DELAYS=${DELAYS:-0 2ms}	# one-way netem delay per link, a run each
# B well below what the guest's network path carries for 6 hosts under
# TCG (at B = 16 MiB/s with 2 MiB checkpoints the path, not the store,
# limited the hosts: 4.6 MiB/s in all, writes 11x their solo time).
# A variant may set BW, SIZE and BS too (cluster-1-hosts-bw16.sh: the
# first run's 16 MiB/s); SIZE / BW must stay 125 ms (the summary says so).
BW=${BW:-2}		# MiB/s: a 256 KiB checkpoint takes 125 ms alone
SIZE=${SIZE:-256KiB}
BS=${BS:-64KiB}
FLEET="--compute 1s --size $SIZE --cycles 12 --bs $BS"
. /opt/kselftest/fnblk/lib_cluster.sh
load_fnblk bw_mbps=$BW fn=constant policy=anon key=tgid store=none
modprobe -q veth || { echo "cannot load veth"; exit 1; }
# The device's settings for the hosts' events (a host reads /dev/nbdI,
# not the fnblk device) and the simulator.
fnblkctl -j dev show fnblk0 >"$RESULTS/dev.json" || exit 1
DEV_PARAMS=$(cluster_fleet_params "$RESULTS/dev.json") || exit 1
DEV_LAT=$(fnblkctl json 0.latency_ns <"$RESULTS/dev.json") || exit 1

# The seed's phases for N jobs: job J's first write in fnblk-sim's run,
# minus T, in /tmp/phases.N (one a line) and /tmp/phase.N.J.
draw_phases() { # N
	fnblk-sim run --jobs $1 --compute 1s --size $SIZE --bw ${BW}MiB/s --cycles 1 \
		--phases random --seed $SEED -o /tmp/seed.csv >/dev/null || return 1
	awk -F, '/^[0-9]/ && $2 == 0 { p[$1] = $3 - 1000000000 } END { for (j = 0; j < '$1'; j++) print p[j] "ns" }' \
		/tmp/seed.csv >/tmp/phases.$1
	j=0
	while [ $j -lt $1 ]; do
		sed -n "$((j + 1))p" /tmp/phases.$1 >/tmp/phase.$1.$j
		j=$((j + 1))
	done
	say "seed-$SEED phases for $1: $(tr '\n' ' ' </tmp/phases.$1)"
}
for n in $HOSTS; do
	draw_phases $n || exit 1
done
FIRST=${HOSTS%% *}
MANY=1
[ "$FIRST" != "$HOSTS" ] || MANY=0

# One summary row from an analysis table: order changes, Kuramoto mean,
# the pooled gap step's slope (coupling: 0 = gaps kept) with its s.e.,
# P(n>=3) measured/independent and its ratio, the all-jobs write cost and
# the mean slowdown (the write cost table only: the hosts' table follows).
row() { # label analysis.txt
	t=$2
	changed=$(pick "$t" '^firing order' | awk '{ print $5 }')
	r=$(pick "$t" '^Kuramoto' | awk '{ print $6 }')
	slope=$(pick "$t" '^pooled step on gap' | awk '{ sub(/,$/, "", $17); print $12 "+-" $17 }')
	tail3=$(awk '$1 == "3" && NF >= 6 { print $4, $5, $6; exit }' "$t")
	cost=$(awk '/^write cost per job/ { on = 1; next } on && $1 == "all" { print $3, $5; exit }' "$t")
	slow=$(awk '/^write cost per job/ { on = 1; next } on && !NF { exit }
		on && $1 ~ /^[0-9]+$/ && $8 != "-" { s += $8; k++ }
		END { if (k) printf "%.3f", s / k; else print "-" }' "$t")
	printf '%-22s %7s %6s %18s %9s %9s %7s %8s %8s %8s\n' "$1" "$changed" "$r" "$slope" $tail3 \
		$cost "$slow" >>"$SUMMARY"
}
{
	echo "# cluster experiment 1: $HOSTS hosts (namespaces, nbd) vs $FIRST local jobs, seed-$SEED phases"
	echo "# $FLEET, B = ${BW}MiB/s (solo 125 ms), first 2 cycles skipped"
	echo "# changed: firing-order changes (of 9); r: Kuramoto mean (random phases ~ 1/sqrt(N));"
	echo "# slope: pooled gap step on gap (+- s.e.); P(n>=3) measured, independent and their ratio;"
	echo "# write ms mean and p99; mean slowdown"
	printf '%-22s %7s %6s %18s %9s %9s %7s %8s %8s %8s\n' run changed r slope "P(n>=3)" indep \
		ratio mean_ms p99_ms slowdown
} >"$SUMMARY"

# Local: six processes on the storage host (as many as the first count).
ANALYZE_ARGS="--skip-cycles 2" run_fleet local $FLEET --jobs $FIRST --phases file:/tmp/phases.$FIRST \
	--solo-baseline || exit 1
row "local jobs" "$RESULTS/local.txt"
fnblk-sim compare --replay-compute -o "$RESULTS/local.predicted.csv" "$RESULTS/local.csv" \
	>"$RESULTS/local.compare.txt" 2>&1
grep -E 'write time (mean|p99)|mean concurrent' "$RESULTS/local.compare.txt" |
	sed "s/^/#   local sim: /" >>"$SUMMARY"
solo=$(sed -n 's/^# param solo_ns.0=//p' "$RESULTS/local.csv")

# Hosts: one job each, with and without 2 ms one-way delay per link.
CLUSTER_DIR=/tmp/cluster
cluster_storage_start /dev/fnblk0 || exit 1
for hosts in $HOSTS; do
for delay in $DELAYS; do
	name=hosts-delay$delay
	[ $MANY = 0 ] || name=hosts$hosts-delay$delay
	cluster_clients_up $hosts $delay || exit 1
	say "fleet $name: $hosts hosts, $FLEET"
	fnblkctl stats reset fnblk0
	# One time 0 for every host, 2 + N s ahead for the fleets' start-up
	# (cluster-3-overlap.sh): the phases are then between the hosts.
	at=$(awk -v n=$hosts '{ printf "%.0f", ($1 + 2 + n) * 1e9 }' /proc/uptime)
	# shellcheck disable=SC2086 # FLEET and DEV_PARAMS are lists of words
	cluster_run_fleets $hosts "$RESULTS/$name" $FLEET --jobs 1 --part %h/$hosts \
		--phases file:/tmp/phase.$hosts.%h --start-at ${at}ns --solo-time ${solo}ns \
		$DEV_PARAMS ||
		{ cat "$RESULTS/$name"/host*/fleet.err; exit 1; }
	# Whom the device saw: one serving process per host, and the bytes.
	cluster_storage_collect fnblk0 "$RESULTS/$name"
	cluster_writers "$RESULTS/$name/users.json" >"$RESULTS/$name/writers"
	say "$name: $(wc -l <"$RESULTS/$name/writers") users wrote, $(fnblkctl json write_bytes \
		<"$RESULTS/$name/stats.json") bytes, peak n $(fnblkctl json peak_active \
		<"$RESULTS/$name/stats.json")"
	fnblk-analyze --skip-cycles 2 --hosts --merged "$RESULTS/$name.csv" \
		"$RESULTS/$name"/host[0-9]*/events.csv >"$RESULTS/$name.txt" || exit 1
	row "$hosts hosts, delay $delay" "$RESULTS/$name.txt"
	# The simulator: hosts as users, the network's round trip added to
	# the device's latency.
	lat=$DEV_LAT
	[ $delay = 0 ] || lat=$((DEV_LAT + 4000000))
	fnblk-sim compare --replay-compute --latency ${lat}ns -o "$RESULTS/$name.predicted.csv" \
		"$RESULTS/$name.csv" >"$RESULTS/$name.compare.txt" 2>&1
	grep -E 'write time (mean|p99)|mean concurrent' "$RESULTS/$name.compare.txt" |
		sed "s/^/#   $name sim: /" >>"$SUMMARY"
	cluster_clients_remove
done
done
cluster_teardown
cat "$SUMMARY"
