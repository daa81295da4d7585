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
# The fake guest leaves what an experiment writes to /results where
# scripts/vm reads it back: the tar archive on the results drive.
mkdir "$tmp/guest"
for f in run.summary run.txt run.users events.csv; do echo "$f" >"$tmp/guest/$f"; done
cat >"$tmp/bin/qemu-system-x86_64" <<EOF
#!/bin/sh
touch "$tmp/booted"
for a; do
	case \$a in
	file=*results.img,*) img=\${a#file=}; tar -cf "\${img%%,*}" -C "$tmp/guest" . ;;
	esac
done
exec sleep 60
EOF
chmod +x "$tmp/bin/make" "$tmp/bin/qemu-system-x86_64"
FAKE_MAKE_STATUS=2 PATH=$tmp/bin:$PATH "$run" -o "$tmp/fail" -t 3 clock-calibration \
	>/dev/null 2>"$tmp/fail.err"
check_eq "a failed build: the run fails" "$?" 1
check "and says so, naming its log" \
	grep -q "run: the build failed (make all): see $tmp/fail/build.log" "$tmp/fail.err"
check "and nothing booted" test ! -e "$tmp/booted"
check_eq "the build is of this tree, all of it" "$(cat "$tmp/make.args")" "-C $src -s all"

code="module uapi userspace scripts selftests"
if ls /boot/vmlinuz-* >/dev/null 2>&1; then
	# (the initramfs is built first: minutes on a busy host)
	PATH=$tmp/bin:$PATH FNBLK_RESULTS_DIR=$tmp/saved timeout 600 "$run" -o "$tmp/exp" \
		-t 3 -s clock-calibration >"$tmp/run.out" 2>&1
	check_eq "-t 3: the boot is stopped and the experiment counted failed" "$?" 1
	check "by scripts/vm's deadline of 3 s" grep -q "TIMEOUT: guest killed after 3 s" "$tmp/run.out"
	secs=$(sed -n 's/.*exit status 124 after \([0-9]*\).*/\1/p' "$tmp/run.out")
	check "well before the fake guest's 60 s (${secs:-?} s)" test "${secs:-99}" -lt 30
	check "after the build" test "$(cat "$tmp/make.args" 2>/dev/null | wc -l)" -eq 2 -a -e "$tmp/booted"

	# -s keeps what the documents cite: summaries, reports, user tables
	# (*.users were left behind), the conditions and the load; not events.
	for saved in "$tmp"/saved/*/real/clock-calibration; do :; done
	for f in run.summary run.txt run.users conditions host-load.csv host-load.summary; do
		check "-s keeps $f" test -f "$saved/$f"
	done
	check "-s leaves the events out" test ! -e "$saved/events.csv"
	# The conditions' command makes the run again: -o, -t and -s as
	# given (they were left out: a run into another directory recorded
	# the default's command).
	check_eq "conditions: the command with its options as given" \
		"$(sed -n 's/^command: //p' "$saved/conditions")" \
		"scripts/experiments/run -c real -o $tmp/exp -t 3 -s clock-calibration"

	# The conditions name the code by git tree ids, which outlive a
	# rebase (a helper's branch commit never reached main).
	want=
	for d in $code; do
		want="$want${want:+ }$d=$(git -C "$src" rev-parse --short=12 "HEAD:$d")"
	done
	# shellcheck disable=SC2086 # code is a list of words
	if [ -z "$(git -C "$src" status --porcelain -- $code)" ]; then
		check_eq "conditions: the code's tree ids" \
			"$(sed -n 's/^sources: //p' "$saved/conditions")" "$want"
		"$src/scripts/experiments/provenance" -b HEAD "$saved/conditions" >"$tmp/prov.out"
		check_eq "provenance: found, exit 0" "$?" 0
		check "it names this commit as the newest with that code" grep -q \
			"\.\.$(git -C "$src" log -1 --format='%h %cs' HEAD), [0-9]* commit(s) of HEAD" \
			"$tmp/prov.out"
	else
		for c in "conditions: the code's tree ids" "provenance: found, exit 0" \
			"it names this commit as the newest with that code"; do
			skip "$c" "uncommitted changes in the code"
		done
	fi
else
	skip "-t reaches scripts/vm" "no kernel in /boot"
fi

# provenance fails, saying why, for code no commit holds and for a run
# without a sources line.
prov=$src/scripts/experiments/provenance
echo "sources: module=000000000000 uapi=000000000000" >"$tmp/never"
"$prov" -b HEAD "$tmp/never" >"$tmp/never.out" 2>&1
check_eq "provenance: code no commit holds: exit 1" "$?" 1
check "and says so" grep -q "no commit of HEAD has this code" "$tmp/never.out"
echo "tree: abc1234" >"$tmp/old"
"$prov" -b HEAD "$tmp/old" >"$tmp/old.out" 2>&1
check_eq "provenance: no sources line: exit 1" "$?" 1
check "and says so" grep -q "no sources line" "$tmp/old.out"
"$prov" -b no-such-rev "$tmp/old" >/dev/null 2>&1
check_eq "provenance: an unknown revision is a usage error" "$?" 2

echo "1..$n"
[ "$failed" -eq 0 ]
