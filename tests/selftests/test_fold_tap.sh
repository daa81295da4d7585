#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# fold_tap (selftests/fnblk/lib_tap.sh), how fnmap_suite.sh reports
# libfnmap's test programs: each result becomes one of ours under the
# program's name, and the diagnostics a program prints right after a
# failed check are indented as that check's detail ("#   "), the lines
# make check's summary keeps under a "not ok" (and CI's log shows: CI
# keeps nothing else of a guest). Before, they were plain "# " lines and
# a stall's diagnostics (test_write's concurrent case) never reached CI's
# log.

cd "$(dirname "$0")/../.." || exit 1
src=$(pwd)
. selftests/fnblk/lib_tap.sh

TMP=$(mktemp -d /tmp/test_fold_tap.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

cat >"$TMP/prog" <<'PROG'
#!/bin/sh
echo "ok 1 - first"
echo "# before any failure"
echo "not ok 2 - second"
echo "# why: writer 0 at pass 3"
echo "#   task 7 (writer0): S"
echo "ok 3 - third # SKIP no device"
echo "# after a skip"
echo "ok 4 - fourth"
echo "# after a pass"
echo "1..4"
PROG
chmod +x "$TMP/prog"

# Run fold_tap in a subshell with counters of its own, so that ours are
# not touched; its output, then its counters, in $TMP/folded.
(
	n=0 failed=0
	fold_tap prog "$TMP/prog" >"$TMP/folded"
	echo "counters $n $failed" >>"$TMP/folded"
)
out=$(cat "$TMP/folded")

line() { sed -n "$1p" "$TMP/folded"; }
check_eq "a pass is ours, named" "$(line 2)" "ok 1 - prog: first"
check_eq "a diagnostic before any failure stays a plain comment" \
	"$(line 3)" "# prog: before any failure"
check_eq "a failure is ours, named" "$(line 4)" "not ok 2 - prog: second"
check_eq "a diagnostic after a failure is its detail" "$(line 5)" \
	"#   prog: why: writer 0 at pass 3"
check_eq "every diagnostic up to the next result is" "$(line 6)" \
	"#   prog:   task 7 (writer0): S"
check_eq "a skip is ours, with its reason" "$(line 7)" \
	"ok 3 - prog: third  # SKIP no device"
check_eq "after a skip, diagnostics are plain again" "$(line 8)" \
	"# prog: after a skip"
check_eq "after a pass too" "$(line 10)" "# prog: after a pass"
check_eq "four results counted, one failed" "$(line 11)" "counters 4 1"
case $out in
"# prog: "[0-9]*" s"*) ok "the program's time comes first" ;;
*) not_ok "the program's time comes first" "$(line 1)" ;;
esac

echo "1..$n"
[ "$failed" -eq 0 ]
