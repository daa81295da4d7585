#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# wakeprobe records every wake-up's lateness; qd1sim on the module's core:
# a writer that comes back at once keeps f(1)B and one activity period,
# alone or beside a QD16 writer (ratio 1); one that comes back later than
# its grace starts a new period with every write, and a grace longer than
# that lateness keeps it in one. TAP.
src=$(cd "$(dirname "$0")/../.." && pwd)
. "$src/selftests/fnblk/lib_tap.sh"
cd "$(dirname "$0")" || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "TAP version 13"

./wakeprobe 1 200 "$tmp/late.txt" >"$tmp/out"
check_eq "wakeprobe runs" $? 0
wakeups=$(sed -n 's/^wakeups \([0-9]*\) .*/\1/p' "$tmp/out")
check "it counts its wake-ups" [ "${wakeups:-0}" -gt 10 ]
check_eq "and writes each one's lateness" "$(wc -l <"$tmp/late.txt")" "$wakeups"
./wakeprobe 1 >/dev/null 2>&1
check_eq "wakeprobe without PERIOD_US is a usage error" $? 2

echo 0 >"$tmp/zero.txt"
echo 5000000 >"$tmp/5ms.txt"
out=$(./qd1sim 65536 2000 "$tmp/zero.txt")
check "at once, alone: f(1)B in one activity period" \
	sh -c "echo '$out' | grep -Eq 'QD1 alone (99\.9[0-9]|100\.00) % of f\(1\)B, 1 activations'"
out=$(./qd1sim 4096 2000 "$tmp/zero.txt" 1)
check "at once, beside QD16: ratio 1.000 in one activity period" \
	sh -c "echo '$out' | grep -Eq 'QD16/QD1 1\.000 .*QD1 activations 1$'"
acts=$(./qd1sim 65536 2000 "$tmp/5ms.txt" | sed -n 's/.*, \([0-9]*\) activations$/\1/p')
check "5 ms late with a 2 ms grace: a period per write ($acts)" [ "${acts:-0}" -gt 2000 ]
acts=$(./qd1sim 65536 10000 "$tmp/5ms.txt" | sed -n 's/.*, \([0-9]*\) activations$/\1/p')
check_eq "with a 10 ms grace: one period" "$acts" 1
./qd1sim 65536 2000 >/dev/null 2>&1
check_eq "qd1sim without LATENESS_FILE is a usage error" $? 2

echo "1..$n"
[ "$failed" -eq 0 ]
