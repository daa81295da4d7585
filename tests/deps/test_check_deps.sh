#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/check-deps on made-up source trees, each checked against a
# package list of its own (--packages): what a tree uses and no listed
# package provides must fail the check and be named, with the package to
# add; what the list covers must pass. Uses packages install-deps
# installs (libjansson-dev, liburing-dev, fio, pkg-config, python3).
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
. "$src/selftests/fnblk/lib_tap.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
BASE="build-essential pkg-config"

# tree NAME: a fresh empty tree in $t; the caller writes files into it.
tree() {
	t=$tmp/$1
	rm -rf "$t"
	mkdir -p "$t"
}

# put FILE LINE...: write FILE (relative to $t), one argument a line.
put() {
	local f=$t/$1
	shift
	mkdir -p "$(dirname "$f")"
	printf '%s\n' "$@" >"$f"
}

# deps PACKAGE...: run check-deps on $t against these packages; sets rc
# and out (its stdout and stderr).
deps() {
	printf '%s\n' "$@" >"$t.packages"
	out=$("$src/scripts/check-deps" -C "$t" --packages "$t.packages" 2>&1)
	rc=$?
}

# expect_fail DESCRIPTION TEXT...: the last run failed (exit 1) and its
# report holds every TEXT.
expect_fail() {
	local desc=$1 s missing=
	shift
	for s in "$@"; do
		case $out in *"$s"*) ;; *) missing="$missing '$s'" ;; esac
	done
	if [ "$rc" -eq 1 ] && [ -z "$missing" ]; then
		ok "$desc"
	else
		not_ok "$desc" "exit $rc; report lacks$missing: $(echo "$out" | tr '\n' '|')"
	fi
}

expect_pass() {
	if [ "$rc" -eq 0 ]; then
		ok "$1"
	else
		not_ok "$1" "exit $rc: $(echo "$out" | tr '\n' '|')"
	fi
}

# expect_absent DESCRIPTION TEXT...: the last report holds none of TEXT.
expect_absent() {
	local desc=$1 s found=
	shift
	for s in "$@"; do
		case $out in *"$s"*) found="$found '$s'" ;; esac
	done
	if [ -z "$found" ]; then ok "$desc"; else not_ok "$desc" "reported:$found"; fi
}

# --- pkg-config modules in Makefiles ---
tree pc-listed
put Makefile 'CFLAGS += $(shell pkg-config --cflags jansson)'
deps $BASE libjansson-dev
expect_pass "pkg-config module of a listed package passes"

deps $BASE
expect_fail "pkg-config module whose package is installed but not listed fails" \
	"pkg-config module jansson" \
	"libjansson-dev, which scripts/install-deps does not install" \
	"Packages to add: libjansson-dev"

tree pc-variable
put Makefile 'PKGS := liburing jansson' 'LDLIBS += $(shell pkg-config --libs $(PKGS)) -lm'
deps $BASE libjansson-dev
expect_fail "a module named through a make variable is found (the libcap defect)" \
	"pkg-config module liburing" "Makefile:2" "liburing-dev"

tree pc-nowhere
put Makefile 'all:' '	$(CC) $$(pkg-config --cflags fnblk-no-such-module) x.c'
deps $BASE
expect_fail "a module no package provides fails, naming it" \
	"pkg-config module fnblk-no-such-module" "not installed here" "Makefile:2"

tree pc-opaque
put Makefile 'all:' '	pkg-config --cflags $(shell cat mods)'
deps $BASE
expect_fail "module names check-deps cannot see are an error, not a pass" \
	"cannot tell what this needs" "Makefile:2"

# --- headers and libraries ---
tree header
put a.c '#include <stdio.h>' '/* #include <fnblk-commented-out.h> */' \
	'#include <liburing.h>' '#include "local.h"' '#include <sub/own.h>'
put local.h ''
put inc/sub/own.h ''
deps $BASE
expect_fail "a header of an unlisted package fails, naming the package" \
	"header <liburing.h>" "a.c:3" "liburing-dev"
expect_absent "commented-out, own and libc headers are not reported" \
	commented-out own.h stdio.h
deps $BASE liburing-dev
expect_pass "the same tree passes with liburing-dev listed"

# A directory kbuild builds (a Kbuild file) is kernel code: its headers
# come from the kernel's build tree, as module/'s do.
tree kbuild
put kmod/Kbuild 'obj-m := k.o'
put kmod/k.c '#include <linux/module.h>' '#include <linux/preempt.h>'
put user/u.c '#include <linux/preempt.h>'
deps $BASE
expect_fail "a header in a Kbuild directory is the kernel's, outside it the host's" \
	"module header <linux/preempt.h>  (kmod/k.c:2)" "header <linux/preempt.h>  (user/u.c:1)"
expect_absent "and not the other way round" "module header <linux/preempt.h>  (user/u.c:1)"

tree library
put Makefile 'LDLIBS := -luring -lm' 'prog: prog.o' '	$(CC) -o $@ $^ $(LDLIBS)'
deps $BASE
expect_fail "an -l library of an unlisted package fails" "library -luring" "liburing-dev"

tree m32
put Makefile 'FLAGS_m32 := -m32' 'prog32: prog.c' '	$(CC) $(FLAGS_m32) -o $@ $<'
deps $BASE
expect_fail "-m32 needs the 32-bit libc and libgcc: gcc-multilib" \
	"file /usr/include/x86_64-linux-gnu/gnu/stubs-32.h" "Makefile:1" "libc6-dev-i386"
deps $BASE gcc-multilib
expect_pass "the same tree passes with gcc-multilib listed"

tree define
put Makefile 'define variant' 'obj/$(1)/%.o: %.c' '	$$(CC) $$(FLAGS_$(1)) -c -o $$@ $$< -luring' \
	'endef' '$(foreach v,a b,$(eval $(call variant,$(v))))'
deps $BASE liburing-dev
expect_pass "a define block's recipes read as \$(eval) sees them (\$\$ is \$)"
deps $BASE
expect_fail "and what they use counts" "library -luring" "Makefile:3"

# --- programs of scripts ---
tree programs
put run.sh '#!/bin/sh' \
	'helper() { :; }' \
	'helper' \
	'echo "$(date)" | cat' \
	'timeout -k 5 10 fio --name=x' \
	'cat <<EOF' \
	'fnblk-not-a-program-in-a-heredoc' \
	'EOF'
deps $BASE
expect_fail "a program behind a wrapper (timeout) is found" "program fio" "run.sh:5"
expect_absent "functions, builtins, here-documents and base programs are not reported" \
	not-a-program "program helper" "program date" "program echo" "program cat"
deps $BASE fio
expect_pass "the same script passes with fio listed"

tree nested
put go '#!/bin/bash' 'flock /tmp/x sh -c "xfb-nested-prog-q --now"'
deps $BASE
expect_fail "a program in sh -c under flock is found (a script without .sh)" \
	"program xfb-nested-prog-q" "go:2" "not installed here"

tree unpackaged
mkdir -p "$tmp/elsewhere"
printf '#!/bin/sh\n' >"$tmp/elsewhere/xonly-here-prog"
chmod +x "$tmp/elsewhere/xonly-here-prog"
put x.sh '#!/bin/sh' 'xonly-here-prog'
printf '%s\n' $BASE >"$t.packages"
out=$(PATH=$tmp/elsewhere:$PATH "$src/scripts/check-deps" -C "$t" --packages "$t.packages" 2>&1)
rc=$?
expect_fail "a program found only outside the system directories fails" \
	"program xonly-here-prog" "which no Debian package ships"

tree files
put f.sh '#!/bin/sh' 'cat /usr/share/fnblk-no-such-dir/file' \
	'ls /usr/src/fnblk-no-such-*.tar.xz' 'echo "${x#/usr/lib/pattern-}"'
deps $BASE
expect_fail "system files named by a host script must exist" \
	"file /usr/share/fnblk-no-such-dir/file" "file /usr/src/fnblk-no-such-*.tar.xz"
expect_absent "a parameter expansion's pattern is not a file" pattern-
put f.sh '#!/bin/sh' 'mkdir -p /usr/share/fnblk-made-here # check-deps: ignore (made here)'
deps $BASE
expect_pass "a line marked 'check-deps: ignore' is not a requirement"

# --- the guest ---
tree guest
put scripts/mkinitramfs '#!/bin/sh' '[ "$1" = --list-programs ] && echo fio'
chmod +x "$t/scripts/mkinitramfs"
put scripts/guest/run.sh '#!/bin/sh' 'mount -t tmpfs t /mnt' 'fio --name=a' \
	'fnblkctl dev show' 'fnblk-not-built-here' 'xfb-guest-only-tool-z'
put host.sh '#!/bin/sh' 'scripts/vm -k 6.12 -t 60 -- xfb-vm-cmd-y --x'
put tools/Makefile 'fnblkctl: main.c' '	$(CC) -o $@ $^'
deps $BASE fio
expect_fail "a guest program the initramfs does not carry fails" \
	"guest program xfb-guest-only-tool-z" "GUEST_PROGRAMS in scripts/mkinitramfs"
expect_fail "the command scripts/vm runs is a guest program" \
	"guest program xfb-vm-cmd-y" "host.sh:2"
expect_fail "an fnblk* program no Makefile builds is not the project's" \
	"guest program fnblk-not-built-here"
expect_absent "busybox applets, carried programs and fnblk's own are in the guest" \
	"guest program mount" "guest program fio" "program fnblkctl"
deps $BASE
expect_fail "a program the initramfs carries is a host requirement too" \
	"program fio  (scripts/mkinitramfs)"

# --- Python ---
tree python
put tool '#!/usr/bin/python3' 'import os' 'import fnblk_no_such_module' \
	'import ownmod' 'import subprocess' 'subprocess.run(["xfb-py-prog-w", "-x"])'
put ownmod.py ''
deps $BASE python3
expect_fail "a Python import nothing provides fails" \
	"python3 module fnblk_no_such_module" "tool:3"
expect_fail "a program run by subprocess is found" "program xfb-py-prog-w" "tool:6"
expect_absent "standard and own Python modules are not reported" "module os" ownmod

# --- this repository ---
out=$("$src/scripts/check-deps" 2>&1)
rc=$?
expect_pass "this repository's own dependencies are all met"

# --- issue 9: libcap-dev used but not installed by install-deps ---
# What install-deps installs, as a list: the packages and both kernels.
"$src/scripts/install-deps" --list >"$tmp/all.packages"
grep '^linux-\(image\|headers\)-' "$tmp/all.packages" >"$tmp/kernels.packages"

# Today's tree without libcap-dev: the selftests' pkg-config call needs it
# (whether it is installed on this machine or not), and nothing else.
grep -vx 'libcap-dev' "$tmp/all.packages" >"$tmp/no-libcap.packages"
out=$("$src/scripts/check-deps" --packages "$tmp/no-libcap.packages" 2>&1)
rc=$?
expect_fail "issue 9: this tree without libcap-dev in the list fails, naming libcap" \
	"pkg-config module libcap" "selftests/fnblk/Makefile" "Packages to add: libcap-dev"
check_eq "and libcap-dev is the only package it asks for" \
	"$(echo "$out" | sed -n 's/^Packages to add: //p')" libcap-dev

# The defect as it was: c2f20f9's tree against the packages its
# install-deps installed (BASE_PKGS, before scripts/deps/packages, and the
# kernels).
broken=c2f20f9
if git -C "$src" cat-file -e "$broken^{commit}" 2>/dev/null; then
	mkdir "$tmp/$broken"
	git -C "$src" archive "$broken" | tar -x -C "$tmp/$broken"
	git -C "$src" show "$broken:scripts/install-deps" |
		sed -n '/^BASE_PKGS=(/,/^)/p' | sed '1d; $d' | tr -s ' \t' '\n\n' |
		sed '/^$/d' | cat - "$tmp/kernels.packages" >"$tmp/$broken.packages"
	# Its mkinitramfs predates --list-programs; it carried fio and timeout.
	printf '#!/bin/sh\necho fio; echo timeout\n' >"$tmp/$broken/scripts/mkinitramfs"
	out=$("$src/scripts/check-deps" -C "$tmp/$broken" --packages "$tmp/$broken.packages" 2>&1)
	rc=$?
	expect_fail "issue 9: the broken state ($broken, its install-deps) fails, naming libcap" \
		"pkg-config module libcap" "selftests/fnblk/Makefile:20" "libcap-dev"
	check_eq "and libcap-dev is the only package it asks for" \
		"$(echo "$out" | sed -n 's/^Packages to add: //p')" libcap-dev
else
	skip "issue 9: the broken state ($broken)" "not in this clone's history"
fi

echo "1..$n"
[ "$failed" -eq 0 ]
