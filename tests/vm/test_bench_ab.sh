#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# scripts/bench-ab without a VM: what it refuses before booting (a module
# built for another kernel, two modules of one label, a missing file) and
# the summary it prints of a run (-s): fnblk over brd in each load, per
# module in the order of the modules, and the median.
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
. "$src/selftests/fnblk/lib_tap.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
: >"$tmp/vmlinuz-6.12.95+deb12-cloud-amd64"
: >"$tmp/vmlinuz-6.1.0-57-cloud-amd64"
# A stand-in module: an object with the .modinfo modinfo(8) reads.
fake_ko() { # file vermagic
	printf 'int x;\n' >"$tmp/m.c"
	cc -c -o "$tmp/m.o" "$tmp/m.c" &&
		printf 'vermagic=%s SMP preempt mod_unload modversions \0name=fnblk\0' "$2" >"$tmp/mi" &&
		objcopy --add-section .modinfo="$tmp/mi" "$tmp/m.o" "$1"
}
ab() { FNBLK_BOOT_DIR=$tmp "$src/scripts/bench-ab" "$@" >"$tmp/out" 2>"$tmp/err"; }

echo "TAP version 13"
fake_ko "$tmp/a.ko" 6.12.95+deb12-cloud-amd64
fake_ko "$tmp/old.ko" 6.1.0-57-cloud-amd64
ab -k 6.12 "$tmp/old.ko"
check_eq "a module built for another kernel: exit 2" $? 2
check "naming both kernels" grep -q 'old.ko: built for 6.1.0-57-cloud-amd64, not 6.12.95+deb12-cloud-amd64' "$tmp/err"
ab -k 6.12 "$tmp/a.ko" "$tmp/a.ko"
check_eq "two modules of one label: exit 2" $? 2
check "asking for LABEL=MODULE.ko" grep -q "two modules labelled 'a': name them LABEL=MODULE.ko" "$tmp/err"
ab -k 6.12 x="$tmp/nothing.ko"
check_eq "a missing module: exit 2" $? 2
ab -k 6.12 -r 0 "$tmp/a.ko"
check_eq "no rounds: exit 2" $? 2
ab -k 6.12
check_eq "no module: exit 2" $? 2

cat >"$tmp/run.txt" <<'RUN'
# kernel 6.12.95+deb12-cloud-amd64, 2 CPUs, clocksource tsc
module=main round=1
iops fnblk: 100 (median turn 90; 1000 turns of 50 writes)
iops /dev/ram0: 125 (median turn 110; 1000 turns of 50 writes)
module=this round=1
iops fnblk: 110 (median turn 90; 1000 turns of 50 writes)
iops /dev/ram0: 125 (median turn 110; 1000 turns of 50 writes)
module=main round=2
iops fnblk: 90 (median turn 80; 1000 turns of 50 writes)
iops /dev/ram0: 100 (median turn 90; 1000 turns of 50 writes)
module=this round=2
iops fnblk: 115 (median turn 90; 1000 turns of 50 writes)
iops /dev/ram0: 125 (median turn 110; 1000 turns of 50 writes)
module=main round=3
iops fnblk: 105 (median turn 90; 1000 turns of 50 writes)
iops /dev/ram0: 125 (median turn 110; 1000 turns of 50 writes)
module=this round=3
RUN
ab -s "$tmp/run.txt"
check_eq "-s summarises a run" $? 0
check_eq "the first module: each load's ratio and the median" \
	"$(sed -n 1p "$tmp/out" | tr -s ' ')" "main fnblk/brd per load: 0.800 0.900 0.840 (median 0.840)"
check_eq "the second: an even count's median, its unfinished load left out" \
	"$(sed -n 2p "$tmp/out" | tr -s ' ')" "this fnblk/brd per load: 0.880 0.920 (median 0.900)"
printf '# nothing\n' >"$tmp/empty.txt"
ab -s "$tmp/empty.txt"
check_eq "a run without figures: exit 1" $? 1

echo "1..$n"
[ "$failed" -eq 0 ]
