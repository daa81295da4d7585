#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# fnblkctl monitor --csv reconstructs n(t): over a run of staggered fio
# writers, the time the CSV spends at each n must match the device's own
# n histogram, its active rows the activation counter, its largest n the
# peak; and a monitor stopped through a burst of events loses none, with
# the system's default receive buffer, each event's skb sized to it.
# Prints TAP.

# TAP helpers; a copy run alone in the test VM finds the installed ones.
lib=$(dirname "$0")/lib_tap.sh
[ -f "$lib" ] || lib=/opt/kselftest/fnblk/lib_tap.sh
. "$lib"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

command -v fnblkctl >/dev/null || { echo "1..0 # SKIP fnblkctl not installed"; exit $KSFT_SKIP; }
command -v fio >/dev/null || { echo "1..0 # SKIP fio not installed"; exit $KSFT_SKIP; }
[ -d /sys/module/fnblk ] || modprobe fnblk 2>/dev/null ||
	{ echo "1..0 # SKIP cannot load fnblk"; exit $KSFT_SKIP; }

echo "TAP version 13"
dev=$(fnblkctl dev add size 64MiB bw 16MiB/s fn linear:2 grace 2ms) ||
	{ not_ok "dev add"; echo "1..$n"; exit 1; }
i=0
while [ ! -b /dev/$dev ] && [ $i -lt 20 ]; do sleep 0.1; i=$((i + 1)); done

# fio's global section: direct 64 KiB writes of SIZE per job, one at a time.
fio_global() { # size
	printf '[global]\nfilename=/dev/%s\nrw=write\nbs=64k\ndirect=1\nioengine=psync\nsize=%s\n' \
		"$dev" "$1"
}

# Six writers of 2MiB, started 40ms apart: n climbs, overlaps, falls.
fio_global 2m >$tmp/fleet.fio
for j in 0 1 2 3 4 5; do
	printf '[w%d]\noffset=%dm\nstartdelay=%dms\n' $j $((j * 4)) $((j * 40)) >>$tmp/fleet.fio
done

fnblkctl stats reset $dev
start_monitor $tmp/n.csv $tmp/mon.err monitor $dev --csv
fio --eta=never --output=$tmp/fio.out $tmp/fleet.fio
check_eq "fio ran" "$?" 0
sleep 0.5	# every writer past its grace period: n is 0 again
fnblkctl -j stats $dev >$tmp/stats.json
kill -TERM $mon
wait $mon
check_eq "monitor exits 0 on SIGTERM" "$?" 0
check_eq "no events lost" "$(cat $tmp/mon.err)" ""

j() { fnblkctl json "$1" <$tmp/stats.json; }
check_eq "the run is over: n is 0" "$(j nr_active)" 0
rows=$(grep -c ",active," $tmp/n.csv)
check_eq "one active row per activation" "$rows" "$(j activations)"
check "the writers overlapped (peak n >= 2)" test "$(j peak_active)" -ge 2
maxn=$(awk -F, 'NR > 1 && $3 > m { m = $3 } END { print m + 0 }' $tmp/n.csv)
check_eq "largest n in the CSV is the peak" "$maxn" "$(j peak_active)"

# Time at each n from the CSV: each row's n holds until the next row, the
# last until the snapshot. The time before the first active row is at
# n = 0 and partly before the monitor started, so bin 0 is not compared.
j n_hist_ns | tr -d '[]' | tr ',' '\n' >$tmp/hist
awk -F, -v end="$(j time_ns)" -v histfile=$tmp/hist '
	BEGIN { while ((getline h < histfile) > 0) hist[k++] = h }
	NR > 1 { if (started) t[prev_n] += $1 - prev_t; prev_t = $1; prev_n = $3; started = 1 }
	END {
		t[prev_n] += end - prev_t
		bad = 0
		for (i = 1; i < 64; i++) {
			if (!(i in t) && hist[i] == 0) continue
			d = t[i] - hist[i]; if (d < 0) d = -d
			# Same clock on both sides: a microsecond is plenty.
			ok = d <= 1000
			printf "# n=%d csv %.0f ns, histogram %.0f ns\n", i, t[i], hist[i]
			if (!ok) bad++
		}
		print bad
	}
' $tmp/n.csv >$tmp/compare
grep '^#' $tmp/compare
check_eq "time at each n >= 1 from the CSV matches the n histogram" \
	"$(grep -v '^#' $tmp/compare)" 0

# A monitor kept off the CPU through a burst (stopped here; a busy guest
# does it for a moment) finds every event waiting when it runs again,
# with the buffer any listener gets without asking (rmem_default, 208 KiB
# on Debian; fnblkctl's --rcvbuf is doubled by the kernel, so half of it):
# each event takes its skb's size of that buffer. Four writers pausing
# 5 ms between requests with a 2 ms grace: an activation and an idle
# event a request.
{ fio_global 1m; echo thinktime=5ms; } >$tmp/burst.fio
for j in 0 1 2 3; do
	printf '[b%d]\noffset=%dm\n' $j $((j * 4)) >>$tmp/burst.fio
done
rmem_default=$(cat /proc/sys/net/core/rmem_default)
fnblkctl stats reset $dev
start_monitor $tmp/burst.csv $tmp/burst.err monitor $dev --csv --rcvbuf $((rmem_default / 2))
kill -STOP $mon

# skb heads of 4 KiB or more the kernel allocates meanwhile (kmem:kmalloc
# from the skb allocator). An event is about 100 bytes of attributes: its
# skb must be sized to them, not NLMSG_DEFAULT_SIZE (an 8 KiB head with
# the headers, an order-1 atomic allocation in the scheduler, each).
tr=/sys/kernel/tracing
big_skbs_start() {
	echo 0 >$tr/tracing_on && echo >$tr/trace &&
		echo 'bytes_alloc >= 4096' >$tr/events/kmem/kmalloc/filter &&
		echo 1 >$tr/events/kmem/kmalloc/enable && echo 1 >$tr/tracing_on
}
big_skbs_stop() { # prints how many
	echo 0 >$tr/events/kmem/kmalloc/enable
	echo 0 >$tr/events/kmem/kmalloc/filter
	grep -cE 'kmalloc:.*call_site=(__alloc_skb|kmalloc_reserve)' $tr/trace
	echo >$tr/trace
}
traced=0
if [ -w $tr/events/kmem/kmalloc/enable ] && big_skbs_start; then
	traced=1
	# Control: the family lookup's reply is NLMSG_DEFAULT_SIZE (4 KiB).
	fnblkctl dev show $dev >/dev/null
	control=$(big_skbs_stop)
	big_skbs_start
fi
fio --eta=never --output=$tmp/burst.out $tmp/burst.fio
check_eq "burst: fio ran" "$?" 0
[ $traced = 0 ] || big=$(big_skbs_stop)
sleep 0.5
fnblkctl -j stats $dev >$tmp/stats.json
queued=$(awk '$2 == 16 { s += $5 } END { print s + 0 }' /proc/net/netlink)
kill -CONT $mon
sleep 1
kill -TERM $mon
wait $mon
events=$(($(j activations) * 2))
echo "# burst: $events events while the monitor was stopped, $queued bytes of" \
	"receive buffers queued: $((queued / (events > 0 ? events : 1))) an event (rmem_default $rmem_default)"
check "burst: 100 events or more" test "$events" -ge 100
check_eq "burst: no events lost while the monitor was stopped" "$(cat $tmp/burst.err)" ""
check_eq "burst: one active row per activation" "$(grep -c ",active," $tmp/burst.csv)" \
	"$(j activations)"
if [ $traced = 1 ]; then
	echo "# burst: skb heads of 4 KiB or more: $big during the burst," \
		"$control for one fnblkctl command (its family lookup)"
	check "burst: the trace sees a 4 KiB skb head (family lookup)" test "$control" -ge 1
	check_eq "burst: no event took an skb head of 4 KiB or more" "$big" 0
else
	skip "burst: event skbs sized to their attributes" "no kmem:kmalloc tracepoint"
fi

fnblkctl dev del $dev
echo "1..$n"
[ $failed -eq 0 ]
