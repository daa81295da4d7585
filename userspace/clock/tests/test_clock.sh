#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# fnblk-clock on one host: the offset between a host's clock and itself is
# within the measured bound (half the best round trip), every probe is
# answered, and a host that does not serve is reported. TAP.
set -u
clock=${1:-./fnblk-clock}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_clock.XXXXXX")
n=0 failed=0
check() {
	d=$1
	shift
	n=$((n + 1))
	if "$@"; then echo "ok $n - $d"; else echo "not ok $n - $d"; failed=1; fi
}
# A free port: the serve below fails on one in use, and says so.
port=$((20000 + $$ % 20000))
"$clock" serve --port $port --for 20s &
server=$!
trap 'kill $server 2>/dev/null; rm -rf "$tmp"' EXIT
sleep 0.3
"$clock" offset -j -n 50 --port $port 127.0.0.1 >"$tmp/out.json" 2>"$tmp/err"
check "offset against a serving host" [ $? -eq 0 ]
get() { sed -n "s/.*\"$1\": *\\(-\\{0,1\\}[0-9]*\\).*/\\1/p" "$tmp/out.json"; }
off=$(get offset_ns)
rtt=$(get rtt_ns)
echo "# own clock: offset ${off:-?} ns, best round trip ${rtt:-?} ns"
check "every probe answered" [ "$(get replies)" = 50 ]
check "the offset to itself is within half the round trip" \
	awk -v o="${off:-x}" -v r="${rtt:-0}" 'BEGIN { if (o == "x") exit 1; o = o < 0 ? -o : o; exit !(o <= r / 2 + 1) }'
"$clock" offset --port $port 127.0.0.1 >"$tmp/out.txt"
check "text output names the bound" grep -Eq '^offset -?[0-9]+ ns \+- [0-9]+ ns' "$tmp/out.txt"
kill $server
wait $server 2>/dev/null
check "serve stops on SIGTERM" [ $? -eq 0 ]
"$clock" offset -n 2 --timeout 10ms --port $port 127.0.0.1 >/dev/null 2>"$tmp/err"
rc=$?
check "no server: exits 1" [ $rc -eq 1 ]
check "no server: says so" grep -q 'no reply to 2 probes' "$tmp/err"
"$clock" offset nosuchhost.invalid >/dev/null 2>"$tmp/err"
check "an unknown host exits 1" [ $? -eq 1 ]
echo "1..$n"
exit $failed
