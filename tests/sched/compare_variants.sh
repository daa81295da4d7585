#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs every test program of every variant of the core build (obj/VARIANT/)
# and checks that each variant prints exactly what the native one does.
# Prints the programs' output, then one TAP line per (variant, program)
# numbered from FIRST, and exits 1 if a program failed or differed.
# Each run keeps the outputs in a directory of its own: two runs in one
# tree at once (a make check beside a make test) must not read each
# other's half-written files.
# Usage: compare_variants.sh FIRST "VARIANTS" "TESTS"
n=$(($1 - 1))
variants=$2
tests=$3
out=$(mktemp -d) || exit 1
trap 'rm -rf "$out"' EXIT

fail=0
for v in $variants; do
	echo "# core built $v"
	mkdir "$out/$v"
	for t in $tests; do
		./obj/$v/$t >"$out/$v/$t.out" || fail=1
		cat "$out/$v/$t.out"
	done
done
for v in $variants; do
	for t in $tests; do
		n=$((n + 1))
		if cmp -s "$out/native/$t.out" "$out/$v/$t.out"; then
			echo "ok $n - $t: core built $v gives the native results"
		else
			echo "not ok $n - $t: core built $v differs from native"
			diff "$out/native/$t.out" "$out/$v/$t.out" | head -5 | sed 's/^/# /'
			fail=1
		fi
	done
done
exit $fail
