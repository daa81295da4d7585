# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# The start of the host tests that run scripts/vm with a fake qemu,
# sourced by each: TAP helpers (lib_tap.sh), $src, no VM lock (a fake
# qemu needs no turn on the lock of a caller's environment), a skip where
# /boot holds no kernel, and a temporary $tmp (removed at exit) whose
# $tmp/bin is for the fake: fake_qemu BODY writes it.
src=$(cd "$(dirname "$0")/../.." && pwd)
. "$src/selftests/fnblk/lib_tap.sh"
unset FNBLK_VM_LOCK FNBLK_VM_LOCK_HELD

ls /boot/vmlinuz-* >/dev/null 2>&1 || skip_all "no kernel in /boot"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/bin"

fake_qemu() { # body: the shell script that stands in for qemu
	printf '#!/bin/sh\n%s\n' "$1" >"$tmp/bin/qemu-system-x86_64"
	chmod +x "$tmp/bin/qemu-system-x86_64"
}
