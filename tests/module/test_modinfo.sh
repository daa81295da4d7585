#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# modinfo of every built fnblk.ko (build/*/module/fnblk.ko, one per kernel):
# each parameter has a description and exactly one type, and the numeric
# ones (struct fnblk_num_param in module/main.c, parsed by fnblk's own
# kernel_param_ops, which record no type by themselves) say "ulong", the
# type of the value they hold. modinfo shows the type beside the
# description ("parm: bw_mbps:... (ulong)"); without it a user cannot tell
# a number from a string. Prints TAP; fails when no module is built.

cd "$(dirname "$0")/../.." || exit 1
. selftests/fnblk/lib_tap.sh

# Names of the parameters of one kind ("parm" or "parmtype"), sorted.
names() { # field ko
	modinfo -F "$1" "$2" | sed -n 's/^\([a-z_0-9]*\):.*/\1/p' | sort
}

numeric=$(sed -n 's/^static struct fnblk_num_param \([a-z_0-9]*\) = .*/\1/p' module/main.c)
check "module/main.c declares numeric parameters" test -n "$numeric"

kos=$(ls build/*/module/fnblk.ko 2>/dev/null)
check "a built fnblk.ko (make modules)" test -n "$kos"

for ko in $kos; do
	kver=${ko#build/}
	kver=${kver%%/*}
	check_eq "$kver: every parameter has a description and a type" \
		"$(names parmtype "$ko" | tr '\n' ' ')" "$(names parm "$ko" | tr '\n' ' ')"
	check_eq "$kver: no parameter has two types" \
		"$(names parmtype "$ko" | uniq -d | tr '\n' ' ')" ""
	for p in $numeric; do
		check_eq "$kver: $p is a ulong" \
			"$(modinfo -F parmtype "$ko" | sed -n "s/^$p://p")" ulong
	done
done

echo "1..$n"
[ "$failed" -eq 0 ]
