#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest script: sharing_test with each of several builds of fnblk.ko,
# loaded in turn in one boot (FNBLK_KO). The modules come after the line
# __PAYLOAD__ as a gzipped tar in base64 (LABEL.ko each), as
# scripts/bench-ab packs them. Build a broken module for the kernel with
# its patch applied (git apply nocarry.patch && make modules), copy
# build/<release>/module/fnblk.ko to LABEL.ko, then:
#   { cat broken.sh; echo __PAYLOAD__; tar -C DIR -czf - . | base64; } > g.sh
#   scripts/vm -k 6.12 -o OUT g.sh nocarry copyfirst departgrace
# The run of 2026-12-03 (broken-6.12.txt) ran sharing_test.c cut down to
# its sync and depth fixtures (the share and pair fixtures taken out, to
# keep the boot short); /opt/kselftest/fnblk/sharing_test runs them all.
mkdir -p /results /tmp/b
exec > /results/broken.txt 2>&1
cd /tmp/b
sed '1,/^__PAYLOAD__$/d' "$0" | base64 -d | tar -xzf -
echo "# kernel $(uname -r), $(date -u +%Y-%m-%dT%H:%MZ)"
rmmod fnblk 2>/dev/null
for m in "$@"; do
	echo "== module $m"
	FNBLK_KO=/tmp/b/$m.ko /opt/kselftest/fnblk/sharing_test # check-deps: ignore (in the test VM)
	rmmod fnblk
done
exit 0
