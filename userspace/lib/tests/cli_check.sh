#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The command-line convention of Documentation/cli.rst, checked on one
# program (or one command of it); every tool's test suite runs it. TAP.
#
#   cli_check.sh [-m MANPAGE] [-j 'ARGS' | -n REASON] PROG [COMMAND...]
#
# Checks: --help and -h print the same usage on stdout and exit 0;
# --version prints "NAME (fnblk) VERSION"; every option that takes a value
# (as --help lists them) says so when the value is missing, exits 2 and
# points to --help, with neither glibc's words nor a NUL byte; an unknown
# option is named; "PROG COMMAND -j ARGS" prints JSON (@TMP@ in ARGS is a
# scratch directory; -n says why the program has no -j); and with -m the
# man page's generated parts for PROG COMMAND (synopsis, description,
# options) say word for word what --help says, and the page renders
# without a groff warning. JSON_CHECK names the JSON checker (default:
# json_check beside this script, or "fnblkctl json" in the test VM).
set -u

man= jargs= nojson=
while getopts "m:j:n:" opt; do
	case $opt in
	m) man=$OPTARG ;;
	j) jargs=$OPTARG ;;
	n) nojson=$OPTARG ;;
	*) echo "usage: cli_check.sh [-m MAN] [-j ARGS | -n REASON] PROG [COMMAND...]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
prog=$1
shift
cmd=$*
name="${prog##*/}${cmd:+ $cmd}"
here=$(cd "$(dirname "$0")" && pwd)
json_check=${JSON_CHECK:-$here/json_check}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cli_check.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0

result() { # status description [diagnostic file]
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $n - $name: $2"
	else
		echo "not ok $n - $name: $2"
		failed=1
		[ -z "${3:-}" ] || sed -n '1,12s/^/#   /p' "$3"
	fi
}

# run ARGS...: the program (and its command) with ARGS; status in $rc.
run() {
	# shellcheck disable=SC2086 # the command's words
	"$prog" $cmd "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}

# --help, -h, --version
run --help
cp "$tmp/out" "$tmp/help"
[ $rc -eq 0 ] && [ ! -s "$tmp/err" ] && head -n 1 "$tmp/out" | grep -q "^Usage: $name "
result $? "--help prints its usage on stdout and exits 0" "$tmp/err"
run -h
[ $rc -eq 0 ] && cmp -s "$tmp/out" "$tmp/help"
result $? "-h prints the same help"
run --version
[ $rc -eq 0 ] && [ ! -s "$tmp/err" ] &&
	grep -qx "${prog##*/} (fnblk) [0-9][0-9.a-z~+-]*" "$tmp/out" && [ "$(wc -l <"$tmp/out")" -eq 1 ]
result $? "--version prints one line: NAME (fnblk) VERSION" "$tmp/out"

# Every option taking a value, without it: "SHORT|LONG|ARG" per line.
sed -nE 's/^  (-([A-Za-z0-9]), |    )--([a-z0-9][a-z0-9-]*) ([^ ]+)(  .*)?$/\2|\3|\4/p' \
	"$tmp/help" >"$tmp/valued"
prefix=$(echo "$name" | sed 's/ /: /')
missing() { # spelled placeholder
	run "$1"
	{ [ $rc -eq 2 ] && [ ! -s "$tmp/out" ] &&
		[ "$(sed -n 1p "$tmp/err")" = "$prefix: option '$1' needs a value ($2)" ] &&
		[ "$(sed -n 2p "$tmp/err")" = "Try '$name --help'." ] &&
		[ "$(wc -l <"$tmp/err")" -eq 2 ] &&
		[ "$(tr -d '\000' <"$tmp/err" | wc -c)" -eq "$(wc -c <"$tmp/err")" ]; } ||
		{ echo "exit $rc, stderr:"; cat "$tmp/err"; } >"$tmp/why"
	result $? "$1 without its value: says so, exits 2" "$tmp/why"
}
while IFS='|' read -r short long arg; do
	missing "--$long" "$arg"
	[ -z "$short" ] || missing "-$short" "$arg"
done <"$tmp/valued"
[ -s "$tmp/valued" ] || echo "# $name: no option takes a value"

run --no-such-option
[ $rc -eq 2 ] && grep -q "^$prefix: unknown option '--no-such-option'" "$tmp/err" &&
	grep -qx "Try '$name --help'." "$tmp/err"
result $? "an unknown option is named, exit 2" "$tmp/err"

# -j
if [ -n "$jargs" ]; then
	# shellcheck disable=SC2046,SC2086 # the arguments' words
	run -j $(echo "$jargs" | sed "s|@TMP@|$tmp|g")
	{ [ $rc -eq 0 ] && $json_check <"$tmp/out" 2>"$tmp/why"; } ||
		{ echo "exit $rc"; cat "$tmp/why" "$tmp/err" 2>/dev/null; } >>"$tmp/why"
	result $? "-j prints JSON" "$tmp/why"
	grep -q '^  -j, --json ' "$tmp/help"
	result $? "--help lists -j, --json"
else
	n=$((n + 1))
	echo "ok $n - $name: -j # SKIP ${nojson:-not given}"
fi

# The man page: its generated parts say what --help says.
if [ -n "$man" ]; then
	if [ ! -f "$man" ]; then
		echo "man page $man does not exist" >"$tmp/why"
		result 1 "man page" "$tmp/why"
	elif ! command -v groff >/dev/null; then
		n=$((n + 1))
		echo "ok $n - $name: man page # SKIP no groff"
	else
		groff -man -Tascii -ww -z "$man" >"$tmp/why" 2>&1 && [ ! -s "$tmp/why" ]
		result $? "${man##*/} renders without warnings" "$tmp/why"
		for part in synopsis description options; do
			awk -v m=".\\\\\" cli-begin $part $name" '
				$0 == m { on = 1; next }
				on && /^\.\\" cli-end$/ { on = 0; found = 1 }
				on { print }
				END { exit !found }' "$man"
		done >"$tmp/frag"
		{
			echo '.TH X 1'
			echo '.SH BEGIN'
			cat "$tmp/frag"
			echo '.SH END'
		} | groff -man -Tascii -P-cbou -rLL=3000n -rHY=0 2>/dev/null |
			sed -n '/^BEGIN$/,/^END$/p' | sed '1d;$d' |
			tr -s ' \t\n' '\n\n\n' | sed '/^$/d' >"$tmp/man.words"
		sed -E 's/^(Usage:|   or:) //' "$tmp/help" | tr -s ' \t\n' '\n\n\n' |
			sed '/^$/d' >"$tmp/help.words"
		if [ -s "$tmp/man.words" ] && cmp -s "$tmp/man.words" "$tmp/help.words"; then
			result 0 "man page ${man##*/} says what --help says"
		else
			diff "$tmp/help.words" "$tmp/man.words" >"$tmp/why"
			sed -i '1i --help versus the man page, word by word:' "$tmp/why"
			result 1 "man page ${man##*/} says what --help says" "$tmp/why"
		fi
	fi
fi

echo "1..$n"
exit $failed
