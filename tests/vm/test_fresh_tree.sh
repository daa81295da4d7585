#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# scripts/vm in a tree that never ran a VM (no build/vm/run-* yet), with
# its default output directory (no -o): it must run, not exit 2 without a
# word, and keep each run's output in a fresh build/vm/run-* directory.
# A copy of the scripts in a temporary tree, and a fake qemu.
. "$(dirname "$0")/lib_fake_qemu.sh"
fake_qemu 'echo "FNBLK-VM-EXIT: 0"'
mkdir -p "$tmp/tree/scripts/guest"
cp "$src/scripts/vm" "$src/scripts/mkinitramfs" "$src/scripts/kernel-release" "$tmp/tree/scripts/"
cp "$src/scripts/guest/init" "$src/scripts/guest/fnblk-deadline" "$tmp/tree/scripts/guest/"

for i in 1 2; do
	PATH=$tmp/bin:$PATH "$tmp/tree/scripts/vm" -a tcg -t 60 -- true \
		>"$tmp/out$i" 2>&1
	check_eq "run $i without -o in a new tree exits 0" "$?" 0
done
check_eq "each run has its own build/vm/run-* directory with its console log" \
	"$(ls -d "$tmp"/tree/build/vm/run-*/console.log | wc -l)" 2

echo "1..$n"
[ "$failed" -eq 0 ]
