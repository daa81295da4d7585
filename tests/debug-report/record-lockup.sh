#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Record logs/lockup.log: a real soft lockup and RCU stall on the debug
# kernel booted as scripts/vm boots it (its stall-detector settings), from
# lockup/lockup_test.ko spinning SECS (default 100) seconds with
# preemption disabled. test_debug_report.sh checks that the detectors
# reported it and that scripts/debug-report counts it. Needs the debug
# kernel (make debug-kernel) and a VM turn (FNBLK_VM_LOCK as for
# scripts/vm); takes about 5 minutes under TCG.
set -e
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
secs=${1:-100}
kdir=$src/build/debug-kernel/build
obj=$src/build/lockup-test
[ -d "$kdir" ] || { echo "record-lockup: no debug kernel: make debug-kernel" >&2; exit 2; }
mkdir -p "$obj"
cp "$here/lockup/lockup_test.c" "$here/lockup/Kbuild" "$obj/"
make -s -C "$kdir" M="$obj" modules
# The guest gets the module inside its script (scripts/vm copies a host
# script in; busybox has base64).
{
	echo '#!/bin/sh'
	echo 'base64 -d >/tmp/lockup_test.ko <<"KO"'
	base64 "$obj/lockup_test.ko"
	echo 'KO'
	echo "insmod /tmp/lockup_test.ko secs=$secs && rmmod lockup_test"
	echo 'sleep 5'
} >"$obj/guest.sh"
chmod +x "$obj/guest.sh"
rc=0
"$src/scripts/vm" -k debug -t $((secs + 600)) -o "$obj/vm" "$obj/guest.sh" || rc=$?
# 126: the kernel reported a problem, as it must.
[ "$rc" -eq 126 ] || { echo "record-lockup: scripts/vm exit $rc, want 126" >&2; exit 1; }
# The kernel's command line, then the console from the spin's start to its
# end (the reports come in between).
awk '/Command line:/ { print } /lockup_test: spinning/ { p = 1 } p { print } /lockup_test: done/ { p = 0 }' \
	"$obj/vm/console.log" >"$here/logs/lockup.log"
echo "record-lockup: $here/logs/lockup.log"
