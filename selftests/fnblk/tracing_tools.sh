#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The recipes of Documentation/tracing.rst, run as written there: trace-cmd,
# perf record/script, perf trace and the bpftrace per-user latency
# histogram on the fnblk tracepoints, and blktrace/blkparse on a fnblk
# device. Checks that what each tool reports agrees with the I/O done and
# with the device's own counters. Needs the tracing tools in the guest
# (scripts/vm -T; scripts/check passes it for tracing_* tests); skips
# without them. Prints TAP.

# TAP helpers; a copy run alone in the test VM finds the installed ones.
lib=$(dirname "$0")/lib_tap.sh
[ -f "$lib" ] || lib=/opt/kselftest/fnblk/lib_tap.sh
. "$lib"

for tool in fnblkctl fio trace-cmd perf bpftrace blktrace blkparse; do
	command -v $tool >/dev/null ||
		skip_all "$tool not in this guest (boot it with scripts/vm -T)"
done
[ -d /sys/module/fnblk ] || modprobe fnblk 2>/dev/null ||
	skip_all "cannot load fnblk"
[ -d /sys/kernel/tracing/events/fnblk ] ||
	skip_all "no fnblk events in /sys/kernel/tracing (tracefs)"

tmp=$(mktemp -d)
devs=
ref=/sys/kernel/tracing/instances/fnblk_tools_$$
cleanup() {
	# Keep the evidence of a failure where the host can read it.
	if [ $failed -ne 0 ] && [ -d /results ]; then
		mkdir -p /results/tracing_tools && cp -r "$tmp"/* /results/tracing_tools/
	fi
	trace-cmd reset >/dev/null 2>&1
	for d in $devs; do fnblkctl dev del $d; done
	[ -d "$ref" ] && rmdir "$ref"
	rm -rf "$tmp" ${kheaders:+"$kheaders"}
}
trap cleanup EXIT
cd "$tmp" || exit 1

echo "TAP version 13"

# A fresh device: 32 MiB/s shared, so the two writers below overlap.
new_dev() {
	d=$(fnblkctl dev add size 64MiB bw 32MiB/s latency 200us) ||
		{ not_ok "fnblkctl dev add"; echo "1..$n"; exit 1; }
	devs="$devs $d"
	i=0
	while [ ! -b /dev/$d ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	DEV=/dev/$d
}

# The load of every recipe: two writer processes (two users under key
# tgid), 1 MiB each in 64 KiB direct writes: 32 requests in all.
NR=32
load() {
	fio --name=ckpt --filename=$DEV --rw=write --bs=64k --size=1m \
		--direct=1 --numjobs=2 --output=/dev/null
}

# Count of lines of FILE whose field FIELD (awk's $N) is WORD.
count() { # file field word
	awk -v f="$2" -v w="$3" '$f == w { c++ } END { print c + 0 }' "$1"
}

# Wait (up to 10 s) until no user of device $1 is active: its last
# writers' grace has run out, and their idle events are raised. Fails if
# one still is.
wait_idle() { # device
	i=0
	until [ "$(fnblkctl -j dev show $1 | fnblkctl json 0.nr_active)" = 0 ]; do
		[ $i -lt 100 ] || return 1
		sleep 0.1
		i=$((i + 1))
	done
}

# --- trace-cmd -------------------------------------------------------------
# trace_cmd_around EVENTS FILE COMMAND...: tracing of EVENTS on, COMMAND,
# tracing off, then the ring buffers read whole into FILE and tracing
# reset (not "trace-cmd record COMMAND", which can lose a CPU's events
# when COMMAND ends before its recorders start: Documentation/tracing.rst).
# Everything printed goes to trace-cmd.log.
trace_cmd_around() { # events file command...
	tc_ev=$1 tc_out=$2
	shift 2
	{
		trace-cmd start -e "$tc_ev" && "$@" && trace-cmd stop &&
			trace-cmd extract -o "$tc_out"
	} >>trace-cmd.log 2>&1
	tc_rc=$?
	trace-cmd reset >>trace-cmd.log 2>&1
	return $tc_rc
}

load_until_idle() { load && wait_idle $d; }

new_dev
d=${DEV#/dev/}
trace_cmd_around fnblk fnblk.dat load_until_idle
check "trace-cmd start -e fnblk, fio, the device idle, stop, extract" [ $? -eq 0 ]
trace-cmd report -i fnblk.dat >report.txt 2>report.err
check "trace-cmd report reads it" [ $? -eq 0 ]
for ev in submit service_start depart complete; do
	check_eq "trace-cmd: one fnblk_$ev per request" \
		"$(count report.txt 4 fnblk_$ev:)" $NR
done
# Every submit is followed by the completion of the same request (rq=),
# none completes unsubmitted, and latency covers the queueing delay.
awk '$4 == "fnblk_submit:" || $4 == "fnblk_complete:" {
	rq = ""; lat = -1; q = -1
	for (i = 5; i <= NF; i++) {
		if ($i ~ /^rq=/) rq = substr($i, 4)
		if ($i ~ /^latency_ns=/) lat = substr($i, 12) + 0
		if ($i ~ /^queue_ns=/) q = substr($i, 10) + 0
	}
	if ($4 == "fnblk_submit:") { if (open[rq]++) bad++ }
	else if (!open[rq]--) bad++
	else if (lat < q || lat <= 0) bad++
}
END {
	for (rq in open) if (open[rq]) bad++
	exit bad > 0
}' report.txt
check "trace-cmd: submit/complete pairs per request, latency >= queueing delay" \
	[ $? -eq 0 ]
act=$(count report.txt 4 fnblk_user_active:)
check_eq "trace-cmd: as many users go idle as become active" \
	"$(count report.txt 4 fnblk_user_idle:)" "$act"
check "trace-cmd: both writers became active" [ "$act" -ge 2 ]
check "trace-cmd: n reached 2 (both writers at once)" \
	grep -q 'fnblk_user_active:.* n=2' report.txt

trace_cmd_around fnblk:fnblk_config config.dat \
	fnblkctl dev set $d latency 500us &&
	trace-cmd report -i config.dat >config.txt 2>/dev/null
check "trace-cmd: fnblk_config shows a change with its new settings" \
	grep -q "fnblk_config: *$d changed .*latency_ns=500000 " config.txt

# --- perf record / perf script ---------------------------------------------
new_dev
perf record -e 'fnblk:*' -a -o perf.data -- fio --name=ckpt --filename=$DEV \
	--rw=write --bs=64k --size=1m --direct=1 --numjobs=2 \
	--output=/dev/null >perf-record.log 2>&1
check "perf record -e 'fnblk:*' -a around fio" [ $? -eq 0 ]
perf script -i perf.data >perf-script.txt 2>perf-script.err
check "perf script reads it" [ $? -eq 0 ]
for ev in submit complete; do
	check_eq "perf script: one fnblk:fnblk_$ev per request" \
		"$(grep -c " fnblk:fnblk_$ev: " perf-script.txt)" $NR
done

# --- perf trace ------------------------------------------------------------
# The kernel's own record of the same run, to hold perf trace against: an
# ftrace instance of this test ($ref) on the fnblk events (read after the
# run, no filter).
ref_start() {
	mkdir $ref && echo 1 >$ref/events/fnblk/fnblk_submit/enable &&
		echo 1 >$ref/events/fnblk/fnblk_complete/enable
}
ref_stop() { # file
	echo 0 >$ref/tracing_on
	cat $ref/trace >"$1"
	rmdir $ref
}

# "TID KEY SECTOR BYTES" of each fnblk_submit in FILE, one event a line:
# perf trace prints "comm/tid fnblk:fnblk_submit(key: K, ...)" leaving out
# fields that are zero; ftrace "comm-tid ... fnblk_submit: ... key=K ...".
submits() { # file
	awk '/ fnblk:fnblk_submit\(/ { n = split($2, a, "/"); tid = a[n] }
	     / fnblk_submit: / { n = split($1, a, "-"); tid = a[n] }
	     / fnblk:fnblk_submit\(| fnblk_submit: / {
		k = 0; s = 0; b = 0
		if (match($0, /key[:=] ?[0-9]+/)) k = substr($0, RSTART, RLENGTH)
		if (match($0, /sector[:=] ?[0-9]+/)) s = substr($0, RSTART, RLENGTH)
		if (match($0, /bytes[:=] ?[0-9]+/)) b = substr($0, RSTART, RLENGTH)
		gsub(/[^0-9]/, "", k); gsub(/[^0-9]/, "", s); gsub(/[^0-9]/, "", b)
		print tid, k + 0, s + 0, b + 0
	     }' "$1" | sort
}

# Lines of FILE1 that FILE2 lacks (both sorted; a line counts once each).
lacking() { # file1 file2
	awk 'NR == FNR { have[$0]++; next } !have[$0]-- { print }' "$2" "$1"
}

# Checks that perf trace's submissions (perf-trace FILE) are submissions
# the kernel raised in the run (ftrace FILE), each printed once.
check_printed_real() { # what perf-file ftrace-file
	submits "$2" >printed.set
	submits "$3" >raised.set
	check_eq "$1: every submission it prints is one the kernel raised (writer, key, sector, bytes)" \
		"$(lacking printed.set raised.set | wc -l)" 0
	check_eq "$1: no submission printed twice" "$(uniq -d printed.set | wc -l)" 0
}

# Live, as the recipe watches: what perf trace prints is exact, but it can
# miss events (Documentation/tracing.rst says why), so it is held to what
# it prints; the ones it missed are listed.
new_dev
ref_start
perf trace -a --no-syscalls -e 'fnblk:fnblk_submit' -o perf-trace.txt -- \
	fio --name=ckpt --filename=$DEV --rw=write --bs=64k --size=1m \
	--direct=1 --numjobs=2 --output=/dev/null >perf-trace.log 2>&1
check "perf trace -a --no-syscalls -e fnblk:fnblk_submit around fio" [ $? -eq 0 ]
ref_stop perf-trace-ref.txt
check_eq "perf trace's run: the kernel raised one fnblk_submit per request" \
	"$(grep -c ' fnblk_submit: ' perf-trace-ref.txt)" $NR
echo "# $(grep -m 1 ' fnblk:fnblk_submit(' perf-trace.txt)"
check_printed_real "perf trace" perf-trace.txt perf-trace-ref.txt
echo "# perf trace printed $(wc -l <printed.set) of the $(wc -l <raised.set) submissions"
lacking raised.set printed.set | sed 's/^/# missed (tid key sector bytes): /'

# Read after the writers: perf trace stopped while they run misses nothing,
# completions included (perf is then no CPU's current task). The workload
# ends only once perf sleeps again, having read everything: its exit would
# otherwise interrupt perf before it reads, and perf ends when interrupted.
new_dev
ref_start
perf trace -a --no-syscalls -e 'fnblk:fnblk_submit,fnblk:fnblk_complete' \
	-o perf-trace-after.txt -- sh -c '
	state() { awk "/^State:/ { print \$2 }" /proc/$PPID/status; }
	kill -STOP $PPID; until [ "$(state)" = T ]; do sleep 0.1; done
	fio --name=ckpt --filename='$DEV' --rw=write --bs=64k --size=1m \
		--direct=1 --numjobs=2 --output=/dev/null
	r=$?; kill -CONT $PPID; until [ "$(state)" = S ]; do sleep 0.1; done
	exit $r' >perf-trace-after.log 2>&1
check "perf trace stopped while fio runs, continued after" [ $? -eq 0 ]
ref_stop perf-trace-after-ref.txt
for ev in submit complete; do
	check_eq "perf trace reading after the writers: one fnblk:fnblk_$ev per request" \
		"$(grep -c " fnblk:fnblk_$ev(" perf-trace-after.txt)" $NR
done
check_printed_real "perf trace reading after the writers" \
	perf-trace-after.txt perf-trace-after-ref.txt

# --- bpftrace: per-user latency histogram --------------------------------------
bpftrace_histograms() {
	new_dev
	bpftrace -e 'tracepoint:fnblk:fnblk_complete { @lat_us[args->key] = hist(args->latency_ns / 1000); }' \
		-c "fio --name=ckpt --filename=$DEV --rw=write --bs=64k --size=1m --direct=1 --numjobs=2 --output=/dev/null" \
		>bpftrace.txt 2>bpftrace.err
	check "bpftrace per-user latency histogram around fio" [ $? -eq 0 ]
	# "@lat_us[KEY]:" then bins "[lo, hi)  COUNT |@@@|": KEY COUNT per user.
	awk '/^@lat_us\[/ { k = $1; gsub(/[^0-9]/, "", k); next }
	     k != "" && /^\[/ { sum[k] += $3 }
	     END { for (k in sum) print k, sum[k] }' bpftrace.txt | sort >hist.txt
	check_eq "bpftrace: a histogram per writer process" "$(wc -l <hist.txt)" 2
	check_eq "bpftrace: the histograms count every request" \
		"$(awk '{ s += $2 } END { print s + 0 }' hist.txt)" $NR
	fnblkctl -j users ${DEV#/dev/} >users.json
	nr=$(fnblkctl json '#' <users.json)
	i=0
	: >users.txt
	while [ $i -lt "$nr" ]; do
		echo "$(fnblkctl json $i.key <users.json)" \
			"$(($(fnblkctl json $i.write_ops <users.json) + \
			    $(fnblkctl json $i.read_ops <users.json)))" >>users.txt
		i=$((i + 1))
	done
	# Each histogram's count is its user's operations, as the device counts
	# them: both writers are found, and agree.
	agree=$(awk 'NR == FNR { ops[$1] = $2; next }
		     ($1 in ops) && ops[$1] == $2 { c++ } END { print c + 0 }' \
		users.txt hist.txt)
	check_eq "bpftrace: each user's histogram counts its operations (fnblkctl users)" \
		"$agree" 2
}
# bpftrace needs the bpf() system call, which a kernel built without
# CONFIG_BPF_SYSCALL lacks (its sysctl is then missing too), and the
# types of the tracepoint's arguments: from the kernel's BTF, or from its
# headers, installed or built in (CONFIG_IKHEADERS: the fnblk debug
# kernel's). bpftrace unpacks built-in headers itself with "tar xf",
# which busybox's tar cannot do to an .xz archive, so they are unpacked
# here and named in BPFTRACE_KERNEL_SOURCE. Without any of them the checks
# would test the kernel's configuration, not the recipe.
no_bpftrace=
kheaders=
if [ ! -e /proc/sys/kernel/unprivileged_bpf_disabled ]; then
	no_bpftrace="this kernel has no bpf() system call (CONFIG_BPF_SYSCALL)"
elif [ ! -e /sys/kernel/btf/vmlinux ] &&
	[ ! -d "/lib/modules/$(uname -r)/build/include" ]; then
	if [ -e /sys/kernel/kheaders.tar.xz ]; then
		kheaders=$(mktemp -d)
		if tar -xJf /sys/kernel/kheaders.tar.xz -C "$kheaders"; then
			export BPFTRACE_KERNEL_SOURCE="$kheaders"
			echo "# bpftrace: the kernel's built-in headers, unpacked"
		else
			no_bpftrace="this kernel's built-in headers (/sys/kernel/kheaders.tar.xz) could not be unpacked"
		fi
	else
		no_bpftrace="this kernel has neither BTF (CONFIG_DEBUG_INFO_BTF) nor headers (CONFIG_IKHEADERS) for bpftrace"
	fi
fi
if [ -z "$no_bpftrace" ]; then
	bpftrace_histograms
else
	for what in "per-user latency histogram around fio" "a histogram per writer process" \
		"the histograms count every request" "each user's histogram counts its operations"; do
		skip "bpftrace: $what" "$no_bpftrace"
	done
fi

# --- blktrace / blkparse ---------------------------------------------------
new_dev
d=${DEV#/dev/}
blktrace -d $DEV -D blk >blktrace.log 2>&1 &
bt=$!
# Tracing has started once the relay files are there.
i=0
while [ ! -e /sys/kernel/debug/block/$d/trace0 ] && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
sleep 0.5
load
kill -INT $bt
wait $bt
check "blktrace -d $DEV ran" [ $? -eq 0 ]
blkparse -i $d -D blk >blkparse.txt 2>blkparse.err
check "blkparse reads it" [ $? -eq 0 ]
# A bio-based device: blktrace sees each bio queued (Q) and completed (C);
# nothing is inserted, dispatched or merged by a request queue.
check_eq "blktrace: one Q (queued) per request" \
	"$(awk '$6 == "Q" && $7 ~ /W/' blkparse.txt | wc -l)" $NR
check_eq "blktrace: one C (completed) per request" \
	"$(awk '$6 == "C" && $7 ~ /W/' blkparse.txt | wc -l)" $NR
check_eq "blktrace: no request-queue events (G, I, D, M)" \
	"$(awk '$6 ~ /^[GIDM]$/' blkparse.txt | wc -l)" 0

echo "1..$n"
[ $failed -eq 0 ]
