# SPDX-License-Identifier: GPL-2.0
#
# Cluster experiment 0: whom the device sees. N client hosts (network
# namespaces in one guest, each on its own veth link: lib_cluster.sh) write
# SIZE MiB each with O_DIRECT at once to one fnblk device (B, f constant,
# key tgid, anon), exported three ways: nbd-server's sync export (a
# serving process per host, which fsyncs every write), nbd-server's
# default export (through the storage host's page cache) and the kernel's
# NVMe/TCP target (nvmet-tcp, one subsystem per host). Per export and N:
# each host's MiB/s against f(N)B/N, the device's peak n, the users that
# wrote and how many were kernel threads, the share of the bytes the
# device had when the hosts' writes completed, and after a sync the share
# that came from kernel threads.

SUMMARY=$RESULTS/cluster-0-users.summary
BW=6		# MiB/s: TCG copies every byte several times on this path
SIZE=6		# MiB per host
. /opt/kselftest/fnblk/lib_cluster.sh
[ -d /sys/module/fnblk ] || modprobe fnblk nr_devices=0 || exit 1
modprobe -q nbd nbds_max=64 && modprobe -q veth && modprobe -q nvmet-tcp &&
	modprobe -q nvme-tcp || { echo "cluster modules missing"; exit 1; }
head -c $((SIZE << 20)) /dev/urandom >/tmp/pattern
# The buffered export's pages go out within a second or two, not 30 s.
echo 100 >/proc/sys/vm/dirty_expire_centisecs
echo 50 >/proc/sys/vm/dirty_writeback_centisecs

{
	echo "# cluster experiment 0: N hosts (namespaces) each write ${SIZE} MiB (O_DIRECT, dd bs=1M) at once"
	echo "# device: B = ${BW} MiB/s, f constant, key tgid, policy anon; f(N)B/N = B/N"
	echo "# MiB/s: each host's (mean min max); n: the device's peak; users: that wrote (kernel threads);"
	echo "# done%: bytes at the device when the writes completed; kthr%: bytes from kernel threads once all arrived"
	printf '%-9s %2s %6s %6s %6s %6s %3s %6s %6s %6s\n' export N 'B/N' mean min max n users done% kthr%
} >"$SUMMARY"

# One run: EXPORT (sync, buffered, nvmet) with N hosts.
measure() { # export hosts
	exp=$1
	nh=$2
	out=$RESULTS/$exp-$nh
	mkdir -p "$out"
	CLUSTER_DIR=$out/cluster
	dev=$(fnblkctl dev add size $((nh * SIZE + 16))MiB bw ${BW}MiB/s fn constant key tgid \
		policy anon) || return 1
	fnblkctl -j dev show "$dev" >"$out/dev.json"
	i=0
	while [ $i -lt "$nh" ]; do
		cluster_client_add $i || return 1
		i=$((i + 1))
	done
	if [ "$exp" = nvmet ]; then
		cluster_nvmet_export "/dev/$dev" "$nh" || return 1
		i=0
		while [ $i -lt "$nh" ]; do
			cluster_nvmet_connect $i || return 1
			i=$((i + 1))
		done
		i=0
		while [ "$(cluster_nvmet_devs | wc -l)" -lt "$nh" ] && [ $i -lt 100 ]; do
			sleep 0.2
			i=$((i + 1))
		done
		cluster_nvmet_devs >"$out/devs"
	else
		CLUSTER_EXPORT=$exp cluster_storage_start "/dev/$dev" || return 1
		: >"$out/devs"
		i=0
		while [ $i -lt "$nh" ]; do
			cluster_client_connect $i || return 1
			echo "$i /dev/nbd$i" >>"$out/devs"
			i=$((i + 1))
		done
	fi
	[ "$(wc -l <"$out/devs")" -eq "$nh" ] || { say "$exp: only $(wc -l <"$out/devs") hosts"; return 1; }
	say "$exp, $nh hosts: $(tr '\n' ' ' <"$out/devs")"
	fnblkctl stats reset "$dev"
	while read -r h d; do
		cluster_timed_write "$h" /tmp/pattern $((h * SIZE)) "$out/write.$h" "$d" &
	done <"$out/devs"
	wait
	fnblkctl -j stats "$dev" >"$out/stats.json"
	fnblkctl -j users "$dev" >"$out/users.json"
	# What is still in the page cache goes out with the flusher (sync(2)
	# would write part of it from this shell).
	total=$((nh * SIZE << 20))
	i=0
	while [ "$(fnblkctl -j stats "$dev" | fnblkctl json write_bytes)" -lt $total ] &&
		[ $i -lt 300 ]; do
		sleep 0.2
		i=$((i + 1))
	done
	fnblkctl -j stats "$dev" >"$out/stats-synced.json"
	cluster_writers "$out/users.json" >"$out/writers"
	: >"$out/writes"
	i=0
	while [ $i -lt "$nh" ]; do
		cat "$out/write.$i" >>"$out/writes"
		i=$((i + 1))
	done
	awk '$1 != 0 { bad = 1 } END { exit bad }' "$out/writes" ||
		{ say "$exp: a host's write failed"; cat "$out"/write.*.dd; return 1; }
	done_b=$(fnblkctl json write_bytes <"$out/stats.json")
	kth=$(fnblkctl json kthread_bytes <"$out/stats-synced.json")
	all=$(fnblkctl json write_bytes <"$out/stats-synced.json")
	awk -v e="$exp" -v n="$nh" -v b=$BW -v m=$SIZE \
		-v peak="$(fnblkctl json peak_active <"$out/stats.json")" \
		-v users="$(wc -l <"$out/writers")($(awk '$2 == "true"' "$out/writers" | wc -l))" \
		-v done_b="$done_b" -v total=$total -v kth="$kth" -v all="$all" '
		{ r = m / $2; s += r; if (NR == 1 || r < lo) lo = r; if (r > hi) hi = r }
		END { printf "%-9s %2d %6.2f %6.2f %6.2f %6.2f %3d %6s %6.0f %6.0f\n", e, n, b / n,
			s / NR, lo, hi, peak, users, 100 * done_b / total, all ? 100 * kth / all : 0 }' \
		"$out/writes" >>"$SUMMARY"
	tail -1 "$SUMMARY"
	[ "$exp" = nvmet ] && cluster_nvmet_teardown
	cluster_teardown
	# nbd-server's processes may still be closing the device.
	i=0
	until fnblkctl dev del "$dev" 2>/dev/null; do
		i=$((i + 1))
		[ $i -lt 50 ] || { say "cannot delete $dev"; return 1; }
		sleep 0.1
	done
}

for nh in 3 6; do
	for exp in sync buffered nvmet; do
		measure $exp $nh || { say "$exp with $nh hosts failed"; exit 1; }
	done
done
cat "$SUMMARY"
