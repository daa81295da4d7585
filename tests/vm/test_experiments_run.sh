#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# scripts/experiments/run builds the tree before it boots anything, and
# -t SECONDS: each experiment's boot ends after
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

# The tree is built before anything boots (a stale fnblk.ko was measured
# while the run's conditions named the tree's commit): a fake make records
# its arguments, a fake qemu that it ran.
mkdir "$tmp/bin" "$tmp/fail"
cat >"$tmp/bin/make" <<EOF
#!/bin/sh
echo "\$*" >>"$tmp/make.args"
exit \${FAKE_MAKE_STATUS:-0}
EOF
printf '#!/bin/sh\ntouch "%s/booted"\nexec sleep 60\n' "$tmp" >"$tmp/bin/qemu-system-x86_64"
chmod +x "$tmp/bin/make" "$tmp/bin/qemu-system-x86_64"
FAKE_MAKE_STATUS=2 PATH=$tmp/bin:$PATH "$run" -o "$tmp/fail" -t 3 clock-calibration \
	>/dev/null 2>"$tmp/fail.err"
check_eq "a failed build: the run fails" "$?" 1
check "and says so, naming its log" \
	grep -q "run: the build failed (make all): see $tmp/fail/build.log" "$tmp/fail.err"
check "and nothing booted" test ! -e "$tmp/booted"
check_eq "the build is of this tree, all of it" "$(cat "$tmp/make.args")" "-C $src -s all"

if ls /boot/vmlinuz-* >/dev/null 2>&1; then
	# (the initramfs is built first: minutes on a busy host)
	PATH=$tmp/bin:$PATH timeout 600 "$run" -o "$tmp/exp" -t 3 clock-calibration \
		>"$tmp/run.out" 2>&1
	check_eq "-t 3: the boot is stopped and the experiment counted failed" "$?" 1
	check "by scripts/vm's deadline of 3 s" grep -q "TIMEOUT: guest killed after 3 s" "$tmp/run.out"
	secs=$(sed -n 's/.*exit status 124 after \([0-9]*\).*/\1/p' "$tmp/run.out")
	check "well before the fake guest's 60 s (${secs:-?} s)" test "${secs:-99}" -lt 30
	check "after the build" test "$(cat "$tmp/make.args" 2>/dev/null | wc -l)" -eq 2 -a -e "$tmp/booted"
else
	skip "-t reaches scripts/vm" "no kernel in /boot"
fi

echo "1..$n"
[ "$failed" -eq 0 ]
