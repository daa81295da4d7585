#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# 6.1 hangs bringing up its second CPU under qemu -icount ("x86: Booting
# SMP configuration:"), so scripts/vm gives a 6.1 kernel one vCPU on the
# instruction clock unless -c says otherwise; every other case keeps two.
. "$(dirname "$0")/lib_fake_qemu.sh"
fake_qemu 'echo "$*" >>"$FAKE_QEMU_ARGS"; echo "FNBLK-VM-EXIT: 0"'

k61=$(ls /boot/vmlinuz-6.1.* 2>/dev/null | head -n 1)
k612=$(ls /boot/vmlinuz-6.12.* 2>/dev/null | head -n 1)
[ -n "$k61" ] && [ -n "$k612" ] || skip_all "needs a 6.1 and a 6.12 kernel in /boot"

vm_smp() { # scripts/vm options...: the -smp qemu got
	: >"$tmp/args"
	PATH=$tmp/bin:$PATH FAKE_QEMU_ARGS=$tmp/args "$src/scripts/vm" -a tcg -t 60 \
		-o "$tmp/out" "$@" -- true >/dev/null 2>&1
	sed -n 's/.* -smp \([0-9]*\).*/\1/p' "$tmp/args" | tail -n 1
}

echo "TAP version 13"
check "6.1 on the instruction clock: 1 vCPU" \
	test "$(vm_smp -k 6.1 -Q "-icount shift=1,sleep=off")" = 1
check "6.1 on the instruction clock with -c 2: 2" \
	test "$(vm_smp -k 6.1 -c 2 -Q "-icount shift=1,sleep=off")" = 2
check "6.1 on the real clock: 2" \
	test "$(vm_smp -k 6.1)" = 2
check "6.12 on the instruction clock: 2" \
	test "$(vm_smp -k 6.12 -Q "-icount shift=1,sleep=off")" = 2

echo "1..$n"
