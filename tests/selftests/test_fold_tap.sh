#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# fold_tap (selftests/fnblk/lib_tap.sh), how fnmap_suite.sh reports
# libfnmap's test programs, under busybox sh (the guest's shell) and
# dash: each result becomes one of ours under the program's name, and
# the diagnostics a program prints right after a failed check are
# indented as that check's detail ("#   "), the lines make check's
# summary keeps under a "not ok" (and CI's log shows: CI keeps nothing
# else of a guest). Before, they were plain "# " lines and a stall's
# diagnostics (test_write's concurrent case) never reached CI's log.
#
# And each result comes out as the program prints it: a program that
# prints a result and then hangs until a deadline kills it (and the
# suite with it) has shown that result. Before, fold_tap kept a
# program's output in a file until it exited, and a guest's deadline
# during a long program lost every one of its lines.

cd "$(dirname "$0")/../.." || exit 1
src=$(pwd)
. selftests/fnblk/lib_tap.sh

TMP=$(mktemp -d /tmp/test_fold_tap.XXXXXX)
folder=
cleanup() {
	[ -n "$folder" ] && kill "$folder" 2>/dev/null
	[ -s "$TMP/hang.pid" ] && kill "$(cat "$TMP/hang.pid")" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT

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
# A result, then a hang (the process is the sleep: its pid in $1/hang.pid).
cat >"$TMP/hang" <<'PROG'
#!/bin/sh
echo $$ >"$1/hang.pid"
echo "ok 1 - before the hang"
echo "# waiting"
exec sleep 120
PROG
chmod +x "$TMP/prog" "$TMP/hang"

# fold_tap NAME PROGRAM [ARG] under the shell "$@", with counters of its
# own (ours are not touched): its output, then its counters.
fold_in() { # NAME PROGRAM ARG SHELL...
	_n=$1 _p=$2 _a=$3
	shift 3
	# shellcheck disable=SC2016 # expanded by that shell
	"$@" -c '. "$1/selftests/fnblk/lib_tap.sh"; TMP=$2; n=0 failed=0
		fold_tap "$3" "$4" "$5"; echo "counters $n $failed"' \
		sh "$src" "$TMP" "$_n" "$_p" "$_a"
}

for shell in "busybox sh" dash; do
	command -v "${shell%% *}" >/dev/null || { skip "$shell" "not installed"; continue; }
	# shellcheck disable=SC2086 # the shell and its argument
	set -- $shell

	fold_in prog "$TMP/prog" "" "$@" >"$TMP/folded" 2>&1
	line() { sed -n "$1p" "$TMP/folded"; }
	check_eq "$shell: a pass is ours, named" "$(line 1)" "ok 1 - prog: first"
	check_eq "$shell: a diagnostic before any failure stays a plain comment" \
		"$(line 2)" "# prog: before any failure"
	check_eq "$shell: a failure is ours, named" "$(line 3)" "not ok 2 - prog: second"
	check_eq "$shell: a diagnostic after a failure is its detail" "$(line 4)" \
		"#   prog: why: writer 0 at pass 3"
	check_eq "$shell: every diagnostic up to the next result is" "$(line 5)" \
		"#   prog:   task 7 (writer0): S"
	check_eq "$shell: a skip is ours, with its reason" "$(line 6)" \
		"ok 3 - prog: third  # SKIP no device"
	check_eq "$shell: after a skip, diagnostics are plain again" "$(line 7)" \
		"# prog: after a skip"
	check_eq "$shell: after a pass too" "$(line 9)" "# prog: after a pass"
	case $(line 10) in
	"# prog: "[0-9]*" s") ok "$shell: the program's time comes after its results" ;;
	*) not_ok "$shell: the program's time comes after its results" "$(line 10)" ;;
	esac
	check_eq "$shell: four results counted, one failed" "$(line 11)" "counters 4 1"
	check_eq "$shell: nothing else" "$(wc -l <"$TMP/folded")" 11
	# shellcheck disable=SC2016 # expanded by that shell
	check "$shell: the program's output is kept in \$TMP/NAME.out" \
		sh -c '"$1" | cmp -s - "$2"' sh "$TMP/prog" "$TMP/prog.out"
	check "$shell: no FIFO is left" test ! -e "$TMP/prog.out.fifo"

	# A program that hangs after its first result: that result must
	# come out while it still runs, before a deadline kills the suite.
	# (Its last line is awaited: fold_tap passes them on in order.)
	rm -f "$TMP/hang.folded" "$TMP/hang.pid"
	fold_in hang "$TMP/hang" "$TMP" "$@" >"$TMP/hang.folded" 2>&1 &
	folder=$!
	i=0
	while ! grep -q '^# hang: waiting$' "$TMP/hang.folded" &&
		[ $i -lt 300 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	running=no
	[ -s "$TMP/hang.pid" ] && kill -0 "$(cat "$TMP/hang.pid")" 2>/dev/null && running=yes
	# The deadline: the suite's shell first, as a runner's timeout would.
	kill "$folder" 2>/dev/null
	wait "$folder" 2>/dev/null
	folder=
	[ -s "$TMP/hang.pid" ] && kill "$(cat "$TMP/hang.pid")" 2>/dev/null
	check_eq "$shell: a hanging program's result comes out while it runs (within 30 s)" \
		"$(grep -c '^ok 1 - hang: before the hang$' "$TMP/hang.folded")/$running" 1/yes
	check_eq "$shell: and its diagnostic" \
		"$(grep -c '^# hang: waiting$' "$TMP/hang.folded")" 1
	check "$shell: and \$TMP/NAME.out has them" grep -q '^ok 1 - before the hang$' "$TMP/hang.out"
done

echo "1..$n"
[ "$failed" -eq 0 ]
