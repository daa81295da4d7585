#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# "make install" of user space (into a scratch DESTDIR): every program it
# installs has its man page installed too, one that renders without a
# groff warning and names the program, so a new tool cannot ship without
# one (Documentation/cli.rst). TAP.
set -u
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0

result() { # status description
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=1; fi
}

make -s -C "$here/../.." install DESTDIR="$tmp" PREFIX=/usr >"$tmp/log" 2>&1
result $? "make install DESTDIR=... PREFIX=/usr"
[ -n "$(ls "$tmp/usr/bin" 2>/dev/null)" ]
result $? "programs installed in PREFIX/bin"
for prog in "$tmp"/usr/bin/*; do
	name=${prog##*/}
	page=$(ls "$tmp"/usr/share/man/man[1-8]/"$name".[1-8] 2>/dev/null | head -n 1)
	if [ -z "$page" ]; then
		result 1 "$name: a man page is installed"
		continue
	fi
	result 0 "$name: ${page#"$tmp"/usr/share/} installed"
	if command -v groff >/dev/null; then
		out=$(groff -man -Tascii -ww -P-cbou "$page" 2>&1 >/dev/null)
		[ -z "$out" ] && groff -man -Tascii -P-cbou "$page" 2>/dev/null |
			grep -Eq "^ *$name +- "
		result $? "$name: its page renders and names it"
	fi
done
echo "1..$n"
exit $failed
