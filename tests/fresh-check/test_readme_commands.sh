#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make fresh-check runs the README's set-up commands exactly as written:
# scripts/fresh-check -n prints what it would run, taken from the README's
# first ```sh block, and refuses a block that does not hold exactly two
# commands (the README's promise).
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
. "$src/selftests/fnblk/lib_tap.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

want=$(awk '/^```sh$/ { b = 1; next } b && /^```/ { exit } b && NF' "$src/README.md")
got=$("$src/scripts/fresh-check" -n)
check_eq "the commands are the README's set-up block, line for line" "$got" "$want"
check_eq "two of them" "$(printf '%s\n' "$got" | wc -l)" 2

# fake README
fake() {
	rm -rf "$tmp/t"
	mkdir -p "$tmp/t/scripts"
	cp "$src/scripts/fresh-check" "$tmp/t/scripts/"
	printf '%s\n' "$@" >"$tmp/t/README.md"
}
fence='```'
fake "# x" "" "${fence}sh" "make one   # first" "" "# a comment" "make two" "$fence" \
	"${fence}sh" "make later" "$fence"
check_eq "blank lines and comments are not commands; later blocks are not read" \
	"$("$tmp/t/scripts/fresh-check" -n)" "$(printf 'make one   # first\nmake two')"

fake "${fence}sh" "make one" "make two" "make three" "$fence"
msg=$("$tmp/t/scripts/fresh-check" -n 2>&1)
check_eq "three commands: refused (exit 2)" "$?" 2
case $msg in
*"has 3 commands"*) ok "and the message says how many" ;;
*) not_ok "and the message says how many" "$msg" ;;
esac

echo "1..$n"
[ "$failed" -eq 0 ]
