#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# fnblkctl against a live fnblk device: every command, text and JSON, and
# the JSON agreeing with what was configured and with what the writers
# did (bytes per user keyed by their pids). JSON is read back with
# "fnblkctl json" (the guest has no jq or python). Prints TAP.

# TAP helpers; a copy run alone in the test VM finds the installed ones.
lib=$(dirname "$0")/lib_tap.sh
[ -f "$lib" ] || lib=/opt/kselftest/fnblk/lib_tap.sh
. "$lib"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# JSON value at PATH of the output of a read command: jget PATH CMD...
jget() { p=$1; shift; fnblkctl -j "$@" | fnblkctl json "$p"; }

command -v fnblkctl >/dev/null || { echo "1..0 # SKIP fnblkctl not installed"; exit $KSFT_SKIP; }
[ -d /sys/module/fnblk ] || modprobe fnblk 2>/dev/null ||
	{ echo "1..0 # SKIP cannot load fnblk"; exit $KSFT_SKIP; }

# The users' checks read the table well after the writers' I/O: on the
# debug kernel (lockdep, KASAN; TCG, niced beside other guests) more than
# the 60 s an idle user keeps its record, and both writers had joined the
# "retired" bucket ("users: one user per writer process" got 1, want 2).
# Retention is users_test's subject, not this test's: an hour here.
retain=/sys/module/fnblk/parameters/user_retain_s
old_retain=$(cat $retain)
echo 3600 >$retain
trap 'echo "$old_retain" >$retain; rm -rf "$tmp"' EXIT

echo "TAP version 13"

# --- dev add / show --------------------------------------------------------
dev=$(fnblkctl dev add size 64MiB bw 20MiB/s fn linear:2 latency 200us \
	overhead 4k grace 1ms key tgid policy anon users all store memory)
rc=$?
case "$rc:$dev" in
0:fnblk[0-9]*) ok "dev add prints the new device's name ($dev)" ;;
*) not_ok "dev add prints the new device's name" "exit $rc, output '$dev'"
   echo "1..$n"; exit 1 ;;
esac
i=0
while [ ! -b /dev/$dev ] && [ $i -lt 20 ]; do sleep 0.1; i=$((i + 1)); done
check "/dev/$dev is a block device" test -b /dev/$dev

fnblkctl -j dev show $dev >$tmp/show.json
check "dev show -j parses" fnblkctl json <$tmp/show.json
for kv in name=$dev size=67108864 bw=20971520 fn=linear:2 \
	  latency_ns=200000 overhead=4096 grace_ns=1000000 key=tgid \
	  policy=anon users=all store=memory nr_active=0 'fn_table#=2' \
	  fn_table.1=2.0; do
	k=${kv%%=*}
	check_eq "dev show -j: $k" "$(fnblkctl json "0.$k" <$tmp/show.json)" \
		"${kv#*=}"
done
text=$(fnblkctl dev show $dev)
case $text in
*"size 64MiB bw 20MiB/s fn linear:2 latency 200us overhead 4KiB grace 1ms"*)
	ok "dev show prints the settings in units" ;;
*) not_ok "dev show prints the settings in units" "$text" ;;
esac
check "dev show (all) lists $dev" sh -c "fnblkctl dev show | grep -q '^$dev: n 0'"

# --- errors quote the kernel ----------------------------------------------
err=$(fnblkctl dev add $dev size 4k 2>&1 >/dev/null)
rc=$?
case "$rc:$err" in
"1:fnblkctl: kernel: "?*) ok "adding an existing device fails with the kernel's message ($err)" ;;
*) not_ok "adding an existing device fails with the kernel's message" "exit $rc: $err" ;;
esac
err=$(fnblkctl dev add size 3Q 2>&1 >/dev/null)
check_eq "bad units are refused before the kernel (exit 2)" "$?" 2

# --- dev set -----------------------------------------------------------------
check "dev set bw 10MiB/s latency 1ms" fnblkctl dev set $dev bw 10MiB/s latency 1ms
check_eq "dev set took bw" "$(jget 0.bw dev show $dev)" 10485760
check_eq "dev set took latency" "$(jget 0.latency_ns dev show $dev)" 1000000
check_eq "dev set left fn alone" "$(jget 0.fn dev show $dev)" linear:2

# --- I/O: stats and users agree with the writers ---------------------------
check "stats reset" fnblkctl stats reset $dev
dd if=/dev/zero of=/dev/$dev bs=64k count=32 oflag=direct 2>/dev/null &
w1=$!
dd if=/dev/zero of=/dev/$dev bs=64k count=32 seek=64 oflag=direct 2>/dev/null &
w2=$!
wait $w1 $w2
sleep 0.1

fnblkctl -j stats $dev >$tmp/stats.json
check "stats -j parses" fnblkctl json <$tmp/stats.json
j() { fnblkctl json "$1" <$tmp/stats.json; }
check_eq "stats: write_bytes is what dd wrote" "$(j write_bytes)" 4194304
check "stats: at least one write op per 64KiB" test "$(j write_ops)" -ge 64
check_eq "stats: name" "$(j name)" $dev
check_eq "stats: n histogram has every bin" "$(j 'n_hist_ns#')" 76
check_eq "stats: summary peak_n is the kernel's peak_active" \
	"$(j summary.peak_n)" "$(j peak_active)"
check "stats: the writers were active (peak n >= 1)" test "$(j peak_active)" -ge 1
hist_sum=$(j n_hist_ns | tr -d '[]' | tr ',' '\n' | awk '{ s += $1 } END { printf "%.0f", s }')
check_eq "stats: n histogram covers the elapsed time" "$hist_sum" "$(j elapsed_ns)"
busy=$(j n_hist_ns | tr -d '[]' | tr ',' '\n' | awk 'NR > 1 { s += (NR - 1) * $1 } END { printf "%.0f", s }')
check_eq "stats: sum of n x time over the histogram is n_time_sum" \
	"$busy" "$(j n_time_sum_ns)"
mean_ok=$(awk -v m="$(j summary.mean_n)" -v s="$(j n_time_sum_ns)" \
	-v e="$(j elapsed_ns)" 'BEGIN { d = m - s / e; print (d < 1e-9 && d > -1e-9) }')
check_eq "stats: mean n = n_time_sum / elapsed" "$mean_ok" 1
lat_nr=$(j lat_hist | tr -d '[]' | tr ',' '\n' | awk '{ s += $1 } END { printf "%.0f", s }')
check_eq "stats: the latency histogram counts every request" \
	"$lat_nr" "$(($(j read_ops) + $(j write_ops) + $(j flush_ops) + $(j discard_ops)))"
check "stats: max n <= peak and p99 n <= max n" \
	test "$(j summary.max_n)" -le "$(j peak_active)" -a \
	"$(j summary.p99_n)" -le "$(j summary.max_n)"
text=$(fnblkctl stats $dev)
case $text in
*"write    64 ops 4MiB"*"  n "*"time"*"share"*"summary: mean n "*"peak n "*)
	ok "stats text: counters, n table and summary" ;;
*) not_ok "stats text: counters, n table and summary" "$text" ;;
esac

fnblkctl -j users $dev >$tmp/users.json
check "users -j parses" fnblkctl json <$tmp/users.json
nr=$(fnblkctl json '#' <$tmp/users.json)
check_eq "users: one user per writer process" "$nr" 2
for w in $w1 $w2; do
	i=0; found=
	while [ $i -lt "$nr" ]; do
		[ "$(fnblkctl json $i.key <$tmp/users.json)" = $w ] && found=$i
		i=$((i + 1))
	done
	if [ -n "$found" ]; then
		check_eq "users: writer $w wrote 2MiB" \
			"$(fnblkctl json $found.write_bytes <$tmp/users.json)" 2097152
		check_eq "users: writer $w is not a kernel thread" \
			"$(fnblkctl json $found.kthread <$tmp/users.json)" false
	else
		not_ok "users: writer $w listed by its tgid" "$(cat $tmp/users.json)"
	fi
done
check "users text has the header and both writers" sh -c \
	"fnblkctl users $dev | grep -q '^KEY' && fnblkctl users $dev | grep -q '^$w1 ' && fnblkctl users $dev | grep -q '^$w2 '"

# --- weight --------------------------------------------------------------
check "dev set policy weighted" fnblkctl dev set $dev policy weighted
check "weight $dev $w1 5" fnblkctl weight $dev $w1 5
i=0; wt=
while [ $i -lt "$nr" ]; do
	[ "$(jget $i.key users $dev)" = $w1 ] && wt=$(jget $i.weight users $dev)
	i=$((i + 1))
done
check_eq "users shows the new weight" "$wt" 5
# A weight may be given before the user's first I/O.
check "weight of a user yet to come" fnblkctl weight $dev 4000000000 7
check "users lists it with that weight" sh -c \
	"fnblkctl users $dev | grep -Eq '^4000000000 +no +no +7 '"
err=$(fnblkctl weight fnblk999999 1 5 2>&1)
case "$?:$err" in
"1:fnblkctl: kernel: "?*) ok "weight on a missing device fails with the kernel's message ($err)" ;;
*) not_ok "weight on a missing device fails with the kernel's message" "$err" ;;
esac
check "dev set policy anon" fnblkctl dev set $dev policy anon

# --- top ------------------------------------------------------------------
out=$(fnblkctl -j top $dev 0.2 --once)
check "top -j --once parses" sh -c "echo '$out' | fnblkctl json >/dev/null"
check_eq "top -j: device" "$(echo "$out" | fnblkctl json dev)" $dev
check_eq "top -j: interval histogram" "$(echo "$out" | fnblkctl json 'n_hist_ns#')" 76
frames=$(fnblkctl top $dev 0.2 -n 2 | grep -c "^$dev  interval ")
check_eq "top -n 2 prints two frames" "$frames" 2
check "top output has no escape codes when not a terminal" sh -c \
	"! fnblkctl top $dev 0.1 --once | grep -q \"$(printf '\033')\""

# --- monitor -----------------------------------------------------------------
start_monitor $tmp/mon.csv $tmp/mon.err monitor $dev --csv --duration 3s
dd if=/dev/zero of=/dev/$dev bs=64k count=16 oflag=direct 2>/dev/null &
w3=$!
wait $w3
wait $mon
check_eq "monitor exits 0 after --duration" "$?" 0
check_eq "monitor --csv header" "$(head -n 1 $tmp/mon.csv)" "time_ns,dev,n,event,user"
check "monitor --csv starts from a snapshot of $dev" grep -q ",$dev,0,start,\$" $tmp/mon.csv
check "monitor --csv shows the writer becoming active" grep -q ",$dev,1,active,$w3\$" $tmp/mon.csv
check "monitor --csv shows the writer going idle" grep -q ",$dev,0,idle,$w3\$" $tmp/mon.csv
steps=$(awk -F, 'NR > 2 { d = $3 - prev; if (($4 == "active" && d != 1) || ($4 == "idle" && d != -1)) bad++ }
	NR > 1 { prev = $3 } END { print bad + 0 }' $tmp/mon.csv)
check_eq "monitor --csv: each active/idle moves n by one" "$steps" 0
check_eq "monitor --csv: nothing reported lost" "$(cat $tmp/mon.err)" ""

start_monitor $tmp/mon.txt $tmp/mon.err monitor $dev --count 1
dd if=/dev/zero of=/dev/$dev bs=64k count=1 oflag=direct 2>/dev/null &
w4=$!
wait $w4
wait $mon
check "monitor text: '[time] $dev active user $w4 n 1 seq N'" \
	grep -Eq "^\[[0-9]+\.[0-9]{9}\] $dev active user $w4 n 1 seq [0-9]+\$" $tmp/mon.txt
start_monitor $tmp/mon.jsonl $tmp/mon.err -j monitor $dev --count 1
dd if=/dev/zero of=/dev/$dev bs=64k count=1 oflag=direct 2>/dev/null
wait $mon
check_eq "monitor -j: JSON lines with event and n" \
	"$(fnblkctl json event <$tmp/mon.jsonl | tr '\n' ' ')" "start active "

# --- every device, device events ---------------------------------------------
check_eq "stats (all devices) -j includes $dev" \
	"$(fnblkctl -j stats | fnblkctl json '#' >/dev/null &&
	   fnblkctl -j stats | grep -c "\"name\": \"$dev\"")" 1
start_monitor $tmp/devmon.txt $tmp/mon.err monitor --count 3
dev2=$(fnblkctl dev add size 4MiB)
fnblkctl dev set $dev2 bw 1MiB/s
fnblkctl dev del $dev2
wait $mon
check_eq "monitor shows a device added, changed and removed" \
	"$(grep " $dev2 " $tmp/devmon.txt | cut -d' ' -f2,3 | tr '\n' ' ')" \
	"$dev2 added $dev2 changed $dev2 removed "
check "monitor started from a snapshot of every device" \
	grep -q "\] $dev start n 0 seq " $tmp/devmon.txt

# --- reset, del ---------------------------------------------------------------
check "stats reset" fnblkctl stats reset $dev
check_eq "stats reset zeroes write_bytes" "$(jget write_bytes stats $dev)" 0
check "dev del" fnblkctl dev del $dev
err=$(fnblkctl dev show $dev 2>&1)
case "$?:$err" in
"1:fnblkctl: kernel: "?*) ok "dev show of a deleted device fails with the kernel's message ($err)" ;;
*) not_ok "dev show of a deleted device fails with the kernel's message" "$err" ;;
esac
err=$(fnblkctl users $dev 2>&1)
case "$?:$err" in
"1:fnblkctl: kernel: "?*) ok "users of a deleted device fails (a failed dump) with the kernel's message" ;;
*) not_ok "users of a deleted device fails (a failed dump) with the kernel's message" "$err" ;;
esac
check "/dev/$dev is gone" test ! -e /dev/$dev

echo "1..$n"
[ $failed -eq 0 ]
