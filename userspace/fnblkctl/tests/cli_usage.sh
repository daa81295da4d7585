#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Host tests of fnblkctl's command line: usage errors exit 2 with a message
# naming the argument, -h exits 0 everywhere, and without the module a
# read command exits 1 saying so. Prints TAP. usage: cli_usage.sh FNBLKCTL
ctl=${1:-./fnblkctl}
n=0
fail=0

# expect STATUS MESSAGE-SUBSTRING ARGS... : exit status and stderr text.
expect() {
	want=$1 msg=$2
	shift 2
	n=$((n + 1))
	err=$("$ctl" "$@" 2>&1 >/dev/null)
	rc=$?
	case $err in
	*"$msg"*) found=1 ;;
	*) found=0 ;;
	esac
	if [ "$rc" -eq "$want" ] && [ "$found" -eq 1 ]; then
		echo "ok $n - fnblkctl $* exits $want: $msg"
	else
		echo "not ok $n - fnblkctl $* exits $want: $msg"
		echo "#   got exit $rc, stderr: $err"
		fail=1
	fi
}

echo "TAP version 13"
expect 2 "fnblkctl: no OBJECT"
expect 2 "unknown object 'frobnicate'" frobnicate
expect 2 "dev: unknown command 'create'" dev create
expect 2 "size '12Q': unknown unit" dev add size 12Q
expect 2 "bw '64MiB/min': rates are per second" dev add bw 64MiB/min
expect 2 "latency '5': missing unit (ns, us, ms or s)" dev add latency 5
expect 2 "unknown argument 'sise'" dev add sise 1G
expect 2 "dev set: nothing to change" dev set fnblk0
expect 2 "dev set: missing device name" dev set
expect 2 "dev del: missing device name" dev del
expect 2 "device 'sda': expected fnblkN" dev del sda
expect 2 "stats reset: expected one device name" stats reset
expect 2 "users: missing device name" users
expect 2 "weight: expected NAME USER W" weight fnblk0 12
expect 2 "weight '0': too small (expected 1..1000000)" weight fnblk0 12 0
expect 2 "--rcvbuf 'lots': not a number" monitor --rcvbuf lots
expect 2 "--duration '1h': unknown unit" monitor --duration 1h
expect 2 "top: missing device name" top
expect 2 "interval 'soon': not a number" top fnblk0 soon
expect 2 "-n '0': too small" top fnblk0 -n 0
expect 2 "Try 'fnblkctl dev --help'" dev add size 1x
expect 2 "monitor: unknown option '--bogus'" monitor --bogus
expect 2 "monitor: option '--rcvbuf' needs a value" monitor --rcvbuf
expect 2 "top: option '-n' needs a value" top fnblk0 -n
expect 2 "dev show: unexpected argument 'fnblk2'" dev show fnblk1 fnblk2
for obj in "" dev stats users weight monitor top json; do
	n=$((n + 1))
	# shellcheck disable=SC2086
	if out=$("$ctl" $obj -h 2>&1) && [ -n "$out" ]; then
		echo "ok $n - fnblkctl $obj -h prints help and exits 0"
	else
		echo "not ok $n - fnblkctl $obj -h prints help and exits 0"
		fail=1
	fi
done
if [ ! -d /sys/module/fnblk ]; then
	expect 1 "no generic netlink family \"fnblk\": is the fnblk module loaded?" dev show
else
	n=$((n + 1))
	echo "ok $n - # SKIP fnblk is loaded on this host"
fi
n=$((n + 1))
if [ "$(echo '{"a":[{"b":"x"},{"b":7}]}' | "$ctl" json a.1.b)" = 7 ]; then
	echo "ok $n - json picks a value by path"
else
	echo "not ok $n - json picks a value by path"; fail=1
fi
expect 1 "json: document 1: line 2 column 0" json a <<'JSON'
{"a":
JSON
expect 1 "json: document 1 has no 'b'" json b <<'JSON'
{"a":1}
JSON
echo "1..$n"
exit $fail
