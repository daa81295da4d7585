#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# scripts/experiments/run -t SECONDS: each experiment's boot ends after
# SECONDS (it was fixed at 1500 s, so a run on a busier host than planned
# overran its slot of the shared VM lock, and stopping it from outside lost
# every row). A fake qemu that never exits stands in for the guest.
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
. "$src/selftests/fnblk/lib_tap.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
unset FNBLK_VM_LOCK FNBLK_VM_LOCK_HELD
run=$src/scripts/experiments/run

echo "TAP version 13"
"$run" -o "$tmp/exp" -t soon clock-calibration >/dev/null 2>"$tmp/bad.err"
check_eq "-t that is not a number of seconds: usage error" "$?" 2
check "and says what was wrong" grep -q "run: -t wants seconds, got 'soon'" "$tmp/bad.err"
check "-h documents -t" sh -c "'$run' -h | grep -q -- '-t SECONDS'"

if ls /boot/vmlinuz-* >/dev/null 2>&1; then
	mkdir "$tmp/bin"
	printf '#!/bin/sh\nexec sleep 60\n' >"$tmp/bin/qemu-system-x86_64"
	chmod +x "$tmp/bin/qemu-system-x86_64"
	# (the initramfs is built first: minutes on a busy host)
	PATH=$tmp/bin:$PATH timeout 600 "$run" -o "$tmp/exp" -t 3 clock-calibration \
		>"$tmp/run.out" 2>&1
	check_eq "-t 3: the boot is stopped and the experiment counted failed" "$?" 1
	check "by scripts/vm's deadline of 3 s" grep -q "TIMEOUT: guest killed after 3 s" "$tmp/run.out"
	secs=$(sed -n 's/.*exit status 124 after \([0-9]*\).*/\1/p' "$tmp/run.out")
	check "well before the fake guest's 60 s (${secs:-?} s)" test "${secs:-99}" -lt 30
else
	skip "-t reaches scripts/vm" "no kernel in /boot"
fi

echo "1..$n"
[ "$failed" -eq 0 ]
