#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# "make install" into a scratch DESTDIR. User space: every program it
# installs has its man page installed too, one that renders without a
# groff warning and names the program, so a new tool cannot ship without
# one (Documentation/cli.rst). The module (top-level make): staged under
# DESTDIR for the kernel named, whatever kernel this host runs. TAP.
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

# The module, for a kernel it was built for (a build host's own kernel
# may have no headers): staged under DESTDIR, nowhere else.
repo=$(cd "$here/../../.." && pwd)
ko=$(ls "$repo"/build/*/module/fnblk.ko 2>/dev/null | head -n 1)
kver=${ko%/module/fnblk.ko}
kver=${kver##*/}
if [ -z "$ko" ]; then
	n=$((n + 1)); echo "ok $n # SKIP no fnblk.ko built"
elif [ -n "$(find "/lib/modules/$kver" -name 'fnblk.ko*' 2>/dev/null)" ]; then
	n=$((n + 1)); echo "ok $n # SKIP fnblk.ko is installed on this host for $kver"
else
	make -s -C "$repo" install-module KVER="$kver" DESTDIR="$tmp/stage" \
		>"$tmp/log" 2>&1
	result $? "make install-module KVER=$kver DESTDIR=..."
	[ -n "$(find "$tmp/stage/lib/modules/$kver" -name fnblk.ko)" ] &&
		[ -z "$(find "/lib/modules/$kver" -name 'fnblk.ko*' 2>/dev/null)" ]
	result $? "fnblk.ko staged in DESTDIR/lib/modules/$kver, not in /lib/modules"
fi
# A kernel without headers: refused, naming its headers package.
make -s -C "$repo" install-module KVER=0.0-no-such-kernel \
	DESTDIR="$tmp/none" >"$tmp/log" 2>&1
[ $? -ne 0 ] && grep -q "linux-headers-0.0-no-such-kernel" "$tmp/log" &&
	[ ! -e "$tmp/none" ]
result $? "install-module for a kernel without headers: refused, names linux-headers-..."

echo "1..$n"
exit $failed
