#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The debug kernel's stall detectors wait 50 and 60 s (scripts/vm): a debug guest
# (a kernel release ending in -fnblk-debug, as scripts/debug-kernel builds
# it) boots with watchdog_thresh=25 rcupdate.rcu_cpu_stall_timeout=60, which
# -A can still override (it comes after); a cloud kernel boots without them.
# That a real stall is still reported with them is logs/lockup.log in
# tests/debug-report.
. "$(dirname "$0")/lib_fake_qemu.sh"
fake_qemu 'echo "$*" >>"$FAKE_QEMU_ARGS"; echo "FNBLK-VM-EXIT: 0"'

# A kernel directory of scripts/debug-kernel's layout, without modules.
mkdir "$tmp/debug"
cp "$(ls /boot/vmlinuz-* | head -n 1)" "$tmp/debug/vmlinuz"
echo 6.1.0-h7test-fnblk-debug >"$tmp/debug/kver"
cached=$src/build/initramfs/modules-6.1.0-h7test-fnblk-debug.cpio
trap 'rm -rf "$tmp" "$cached" "$cached.moddir"' EXIT

vm_append() { # scripts/vm options...: the guest's kernel command line
	: >"$tmp/args"
	PATH=$tmp/bin:$PATH FAKE_QEMU_ARGS=$tmp/args "$src/scripts/vm" -a tcg -t 60 \
		-o "$tmp/out" "$@" -- true >/dev/null 2>&1
	sed -n 's/.* -append \(.*\) -serial .*/\1/p' "$tmp/args" | tail -n 1
}

echo "TAP version 13"
a=$(vm_append -k "$tmp/debug")
check "debug kernel: soft lockups after 50 s (watchdog_thresh=25)" \
	sh -c "echo '$a' | grep -qw 'watchdog_thresh=25'"
check "debug kernel: RCU stalls after 60 s" \
	sh -c "echo '$a' | grep -qw 'rcupdate.rcu_cpu_stall_timeout=60'"
a=$(vm_append -k "$tmp/debug" -A "watchdog_thresh=10")
check "-A comes after them (the kernel takes the last)" \
	sh -c "echo '$a' | grep -q 'watchdog_thresh=25 .*watchdog_thresh=10'"
a=$(vm_append -k "$(ls /boot/vmlinuz-* | head -n 1)")
check "a cloud kernel keeps the kernel's defaults" \
	sh -c "echo '$a' | grep -q 'rdinit=/init' && ! echo '$a' | grep -q 'watchdog_thresh\|rcu_cpu_stall'"

echo "1..$n"
[ "$failed" -eq 0 ]
