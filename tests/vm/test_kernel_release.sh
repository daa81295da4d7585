#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# scripts/kernel-release: the kernel a -k PREFIX names, for scripts/vm and
# scripts/experiments/run alike. "6.1" must never be 6.12 (the experiment
# runner's own glob, vmlinuz-6.1*, picked 6.12 and filed a 6.1 guest's
# results under 6.12, bugs.md); and no other script may pick kernels its
# own way.
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
. "$src/selftests/fnblk/lib_tap.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for r in 6.1.0-57-cloud-amd64 6.1.0-9-cloud-amd64 6.12.95+deb12-cloud-amd64 6.12.9-1-amd64; do
	: >"$tmp/vmlinuz-$r"
done
release() { FNBLK_BOOT_DIR=$tmp "$src/scripts/kernel-release" "$@" 2>"$tmp/err"; }

echo "TAP version 13"
check_eq "6.1 is the newest 6.1, not a 6.12" "$(release 6.1)" 6.1.0-57-cloud-amd64
check_eq "6.12 is the newest 6.12" "$(release 6.12)" 6.12.95+deb12-cloud-amd64
check_eq "no prefix: the newest of all" "$(release)" 6.12.95+deb12-cloud-amd64
check_eq "a whole release is itself" "$(release 6.1.0-9-cloud-amd64)" 6.1.0-9-cloud-amd64
check_eq "6.12.9 ends at '-'" "$(release 6.12.9)" 6.12.9-1-amd64
release 6.1.0-5 >/dev/null
check_eq "a prefix that stops inside a component matches nothing (exit 2)" $? 2
check "and says what it looked for" grep -q "no $tmp/vmlinuz-6.1.0-5" "$tmp/err"
release 7 >/dev/null
check_eq "an unknown kernel: exit 2" $? 2

# Every script that turns -k into a kernel goes through kernel-release.
own=$(grep -rln 'vmlinuz-\$' "$src/scripts" | grep -v '/scripts/kernel-release$' |
	xargs -r grep -ln 'find /boot\|/boot/vmlinuz-\*\|vmlinuz-\${kernel}' || true)
check_eq "no script picks kernels by its own glob" "$own" ""
check "scripts/vm asks kernel-release" grep -q 'scripts/kernel-release" "$kernel"' "$src/scripts/vm"
check "and so does scripts/experiments/run" \
	grep -q 'scripts/kernel-release" "$kernel"' "$src/scripts/experiments/run"

echo "1..$n"
[ "$failed" -eq 0 ]
