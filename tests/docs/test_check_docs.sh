#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# scripts/check-docs finds what makes a page render wrong (a title
# underline too short, a list run into a paragraph) and passes a clean
# page; then every page of Documentation/ must be clean.
src=$(cd "$(dirname "$0")/../.." && pwd)
. "$src/selftests/fnblk/lib_tap.sh"
check=$src/scripts/check-docs
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# shellcheck disable=SC2016 # reST's literal markup, not a shell expansion
printf 'Title\n=====\n\nA paragraph.\n\n``--opt``\n    What it does.\n' >"$tmp/good.rst"
printf 'A longer title\n=====\n\nText.\n' >"$tmp/short.rst"
# shellcheck disable=SC2016 # the same
printf 'A paragraph.\n``--opt``\n    What it does.\n' >"$tmp/list.rst"
# Paths on the developers' machine: in a page, in a Markdown file (not
# parsed), and what is not one (the shared sources, a build directory).
# shellcheck disable=SC2016 # the same
printf 'Title\n=====\n\nRun ``/work/notes/x/run.sh`` (files: /work/wt/y/).\n' >"$tmp/dev.rst"
printf '# Read me\n\nSee `/work/notes/z/bench.txt`.\n' >"$tmp/README.md"
# shellcheck disable=SC2016 # the same
printf 'Title\n=====\n\nSource: ``/work/shared/background/a.txt``, out in build/work/b.\n' >"$tmp/shared.rst"

echo "TAP version 13"
"$check" "$tmp/good.rst" >/dev/null
check_eq "a clean page passes" $? 0
"$check" "$tmp/short.rst" >"$tmp/out"
check_eq "a short title underline fails" $? 1
check "on the file's TAP line" grep -q '^not ok 1 .*short.rst' "$tmp/out"
check "with docutils' message" grep -q 'Title underline too short' "$tmp/out"
"$check" "$tmp/list.rst" >"$tmp/out"
check_eq "a definition list run into a paragraph fails" $? 1
check "with 'Unexpected indentation'" grep -q 'Unexpected indentation' "$tmp/out"
"$check" "$tmp/good.rst" "$tmp/short.rst" >"$tmp/out"
check_eq "one bad file of two fails the run" $? 1
check "each file is one TAP line" grep -q '^1\.\.2$' "$tmp/out"
check "and the clean one is ok" grep -q '^ok 1 ' "$tmp/out"
"$check" "$tmp/dev.rst" >"$tmp/out"
check_eq "a page naming a path on the developers' machine fails" $? 1
check "with the line and the path" grep -q '^# line 4: /work/notes/x/run.sh is on' "$tmp/out"
check "each path named" grep -q '^# line 4: /work/wt/y/ is on' "$tmp/out"
"$check" "$tmp/README.md" >"$tmp/out"
check_eq "so does a Markdown file" $? 1
check "with its path" grep -q '^# line 3: /work/notes/z/bench.txt is on' "$tmp/out"
"$check" "$tmp/shared.rst" >/dev/null
check_eq "the shared sources and build/work/ are not such paths" $? 0
out=$("$check")
rc=$?
[ "$rc" -eq 0 ] || echo "$out" | grep -E '^(not ok|#)' | sed 's/^/# /'
check_eq "every page of Documentation/ parses without warnings" $rc 0

echo "1..$n"
[ "$failed" -eq 0 ]
