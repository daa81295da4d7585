#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/check-docs finds what makes a page render wrong (a title
# underline too short, a list run into a paragraph) and passes a clean
# page; then every page of Documentation/ must be clean.
set -u
src=$(cd "$(dirname "$0")/../.." && pwd)
check=$src/scripts/check-docs
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
failed=0

ok() { # status, description
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		failed=1
	fi
}

# shellcheck disable=SC2016 # reST's literal markup, not a shell expansion
printf 'Title\n=====\n\nA paragraph.\n\n``--opt``\n    What it does.\n' >"$tmp/good.rst"
printf 'A longer title\n=====\n\nText.\n' >"$tmp/short.rst"
# shellcheck disable=SC2016 # the same
printf 'A paragraph.\n``--opt``\n    What it does.\n' >"$tmp/list.rst"

echo "TAP version 13"
echo "1..5"
out=$("$check" "$tmp/good.rst")
ok $? "a clean page passes"
out=$("$check" "$tmp/short.rst")
rc=$?
[ "$rc" -eq 1 ] && grep -q '^not ok 1 .*short.rst' <<<"$out" &&
	grep -q 'Title underline too short' <<<"$out"
ok $? "a short title underline fails, with docutils' message (exit $rc)"
out=$("$check" "$tmp/list.rst")
rc=$?
[ "$rc" -eq 1 ] && grep -q 'Unexpected indentation' <<<"$out"
ok $? "a definition list run into a paragraph fails (exit $rc)"
out=$("$check" "$tmp/good.rst" "$tmp/short.rst")
[ $? -eq 1 ] && grep -q '^1\.\.2$' <<<"$out" && grep -q '^ok 1 ' <<<"$out"
ok $? "each file is one TAP line; one bad file fails the run"
out=$("$check")
rc=$?
[ "$rc" -eq 0 ] || grep -E '^(not ok|#)' <<<"$out" | sed 's/^/# /'
ok "$rc" "every page of Documentation/ parses without warnings"
exit $failed
