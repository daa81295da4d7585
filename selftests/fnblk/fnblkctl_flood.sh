#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# fnblkctl monitor under an event flood: a monitor with a tiny receive
# buffer is stopped while many writers make users come and go, so the
# kernel must drop events. The monitor must say so (ENOBUFS, or sequence
# gaps when overruns are not reported), resync n from a stats snapshot,
# print no stale event after it, and track the next writer exactly.
# Prints TAP.

# TAP helpers; a copy run alone in the test VM finds the installed ones.
lib=$(dirname "$0")/lib_tap.sh
[ -f "$lib" ] || lib=/opt/kselftest/fnblk/lib_tap.sh
. "$lib"

WRITERS=16
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

command -v fnblkctl >/dev/null || { echo "1..0 # SKIP fnblkctl not installed"; exit $KSFT_SKIP; }
[ -d /sys/module/fnblk ] || modprobe fnblk 2>/dev/null ||
	{ echo "1..0 # SKIP cannot load fnblk"; exit $KSFT_SKIP; }

# One flood against a monitor started with the given options; label names
# the case. Unthrottled, no grace: every request is an active/idle pair.
flood() { # label expected-stderr expected-after-resync monitor-options...
	label=$1 want_err=$2 want_after=$3
	shift 3
	before=$(fnblkctl -j stats $dev | fnblkctl json events)
	start_monitor $tmp/n.csv $tmp/err monitor $dev --csv --rcvbuf 1 "$@"
	storm
	sleep 1
	# One last writer after the storm: tracked exactly again.
	dd if=/dev/zero of=/dev/$dev bs=4k count=1 oflag=direct 2>/dev/null &
	last=$!
	wait $last
	sleep 1
	fnblkctl -j stats $dev >$tmp/stats.json
	kill -TERM $mon
	wait $mon
	check_eq "$label: monitor exits 0" "$?" 0

	events=$(($(fnblkctl json events <$tmp/stats.json) - before))
	rows=$(grep -c ',\(active\|idle\),' $tmp/n.csv)
	check "$label: the kernel sent more events ($events) than were printed ($rows)" \
		test "$rows" -lt "$events"
	check "$label: loss reported: $want_err" grep -q "$want_err" $tmp/err
	check "$label: summary on stderr" grep -q "resyncs" $tmp/err
	check "$label: a resync row follows" grep -q ",$dev,[0-9]*,resync,\$" $tmp/n.csv
	# Between resyncs each active/idle moves n by one: no wrong n printed.
	bad=$(awk -F, 'NR > 1 && $4 != "start" && $4 != "resync" {
			d = $3 - prev
			if (($4 == "active" && d != 1) || ($4 == "idle" && d != -1)) bad++
		}
		NR > 1 { prev = $3 } END { print bad + 0 }' $tmp/n.csv)
	check_eq "$label: every printed n follows from the one before" "$bad" 0
	# After the last resync, only the last writer's events: none stale.
	after=$(awk -F, '$4 == "resync" { a = ""; next }
		NR > 1 { a = a $4 ":" $5 ":" $3 " " }
		END { print a }' $tmp/n.csv)
	last_run="active:$last:1 idle:$last:0 "
	case $want_after in
	exact)
		check_eq "$label: after the resync only the last writer, n 1 then 0" \
			"$after" "$last_run" ;;
	*)
		# Silent drops show only when the next event comes: that is
		# the last writer's, so the resync may already cover it.
		case "$last_run" in
		*"$after") ok "$label: after the resync only (the end of) the last writer: '$after'" ;;
		*) not_ok "$label: after the resync only (the end of) the last writer" \
			"got '$after', want a suffix of '$last_run'" ;;
		esac ;;
	esac
	check_eq "$label: the monitor ends at the kernel's n" \
		"$(tail -n 1 $tmp/n.csv | cut -d, -f3)" \
		"$(fnblkctl json nr_active <$tmp/stats.json)"
}

wait_writers() {
	# Every dd of the flood; "wait" alone would also wait for the monitor.
	for p in $(jobs -p); do
		[ "$p" = "$mon" ] || wait "$p"
	done
}

# With the monitor stopped, WRITERS users come and go at once: far more
# events than its tiny buffer holds. Then the monitor runs again.
storm() {
	kill -STOP $mon
	i=0
	while [ $i -lt $WRITERS ]; do
		dd if=/dev/zero of=/dev/$dev bs=4k count=50 seek=$((i * 50)) \
			oflag=direct 2>/dev/null &
		i=$((i + 1))
	done
	wait_writers
	kill -CONT $mon
}

echo "TAP version 13"
dev=$(fnblkctl dev add size 64MiB bw 0 grace 0) ||
	{ not_ok "dev add"; echo "1..$n"; exit 1; }
i=0
while [ ! -b /dev/$dev ] && [ $i -lt 20 ]; do sleep 0.1; i=$((i + 1)); done

flood "overrun" "socket receive buffer overrun (ENOBUFS)" exact
flood "silent drops" "events lost (seq " suffix --no-enobufs

# The same loss as JSON lines: every line parses, loss and resync are
# records of their own.
start_monitor $tmp/n.jsonl $tmp/err -j monitor $dev --rcvbuf 1
storm
sleep 1
kill -TERM $mon
wait $mon
check "json: every line parses" fnblkctl json <$tmp/n.jsonl
check_eq "json: start, then lost, then resync" \
	"$(fnblkctl json event <$tmp/n.jsonl | uniq | tr '\n' ' ')" \
	"start lost resync "

fnblkctl dev del $dev
echo "1..$n"
[ $failed -eq 0 ]
