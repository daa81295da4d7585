#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# select_parts and refuse_all (selftests/fnblk/lib_tap.sh), and
# fnmap_suite.sh's FNBLK_FNMAP_TESTS through them: the names given run in
# their order, all when none is given, and a name the suite does not have
# fails the run before fnblk is loaded. The suite runs from a copy of its
# scripts beside fake modprobe and insmod that only note they were
# called; the copy has no libfnmap tests, so a run that gets past its
# settings stops there (skipped) and touches nothing of the host's.

cd "$(dirname "$0")/../.." || exit 1
src=$(pwd)
. selftests/fnblk/lib_tap.sh

TMP=$(mktemp -d /tmp/test_select_parts.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

# select_parts with $1 as the setting (unset for "-"), known parts a b c.
sel() {
	if [ "$1" = - ]; then
		(unset PARTS; select_parts PARTS a b c)
	else
		PARTS=$1 select_parts PARTS a b c
	fi
}

check_eq "unset: every part" "$(sel -)" "a b c"
check_eq "empty: every part" "$(sel '')" "a b c"
check_eq "blank: every part" "$(sel ' , ')" "a b c"
check_eq "one part" "$(sel b)" "b"
check_eq "commas: in the order given" "$(sel c,a)" "c a"
check_eq "spaces and stray commas" "$(sel ' b, ,c ')" "b c"
check_eq "unknown: refused, naming the setting, the name and the known" \
	"$(sel d)" "PARTS: unknown part 'd' (known: a b c)"
check "unknown: fails" sh -c ". '$src/selftests/fnblk/lib_tap.sh'; ! PARTS=d select_parts PARTS a b c >/dev/null"
check_eq "one unknown among known ones: refused" \
	"$(sel a,bb,c)" "PARTS: unknown part 'bb' (known: a b c)"
check_eq "two names run together are not a name" "$(sel ab)" \
	"PARTS: unknown part 'ab' (known: a b c)"
check_eq "a pattern is not expanded" "$(cd "$TMP" && touch b && sel '*')" \
	"PARTS: unknown part '*' (known: a b c)"
out=$(sh -c ". '$src/selftests/fnblk/lib_tap.sh'; ok first; refuse_all 'bad setting'; ok never")
check_eq "refuse_all: a failure, the plan, the end" "$out" \
	"$(printf 'ok 1 - first\nnot ok 2 - bad setting\n1..2')"
sh -c ". '$src/selftests/fnblk/lib_tap.sh'; refuse_all x >/dev/null; exit 0"
check_eq "refuse_all: exits 1, at once" "$?" 1

# fnmap_suite.sh from a copy, with fake module loaders.
mkdir -p "$TMP/suite" "$TMP/bin"
cp selftests/fnblk/fnmap_suite.sh selftests/fnblk/lib_tap.sh selftests/fnblk/lib_fnmap.sh "$TMP/suite/"
for f in modprobe insmod rmmod; do
	printf '#!/bin/sh\necho "%s $*" >>"%s/loaded"\n' "$f" "$TMP" >"$TMP/bin/$f"
	chmod +x "$TMP/bin/$f"
done
suite() { # setting: fnmap_suite.sh's output; its status in $TMP/rc
	rm -f "$TMP/loaded"
	(cd "$TMP" && PATH=$TMP/bin:$PATH FNBLK_FNMAP_TESTS=$1 sh suite/fnmap_suite.sh 2>&1
	 echo $? >"$TMP/rc")
}

out=$(suite test_reed)
known=$(echo "$out" | sed -n "s/.*(known: \(.*\))$/\1/p")
check_eq "fnmap_suite.sh, an unknown program: refused" \
	"$(echo "$out" | sed -n 1p)" \
	"not ok 1 - FNBLK_FNMAP_TESTS: unknown part 'test_reed' (known: $known)"
check_eq "fnmap_suite.sh, an unknown program: the plan" "$(echo "$out" | sed -n '$p')" "1..1"
check_eq "fnmap_suite.sh, an unknown program: exits 1" "$(cat "$TMP/rc")" 1
check "fnmap_suite.sh, an unknown program: fnblk not loaded" test ! -e "$TMP/loaded"
# The suite's programs are libfnmap's test programs, every one of them.
progs=$(ls userspace/fnmap/tests | sed -n 's/^\(test_[a-z_]*\)\.\(c\|sh\)$/\1/p' | sort | tr '\n' ' ')
check_eq "fnmap_suite.sh's programs are libfnmap's tests" \
	"$(echo "$known" | tr ' ' '\n' | sort | tr '\n' ' ')" "$progs"

out=$(suite test_read,test_reclaim,test_rea)
check_eq "fnmap_suite.sh, one unknown among known ones: refused" \
	"$(echo "$out" | sed -n 1p)" \
	"not ok 1 - FNBLK_FNMAP_TESTS: unknown part 'test_rea' (known: $known)"
check_eq "fnmap_suite.sh, one unknown among known ones: exits 1" "$(cat "$TMP/rc")" 1

for setting in test_read,test_args "test_shim test_reclaim" ""; do
	out=$(suite "$setting")
	check_eq "fnmap_suite.sh '$setting': past the settings (no libfnmap tests in the copy)" \
		"$out" "1..0 # SKIP libfnmap's tests are not built (userspace/fnmap)"
	check_eq "fnmap_suite.sh '$setting': skipped" "$(cat "$TMP/rc")" 4
done

echo "1..$n"
[ "$failed" -eq 0 ]
