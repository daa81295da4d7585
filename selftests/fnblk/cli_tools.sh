#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The command-line convention (Documentation/cli.rst) where it needs the
# module: -j of fnblkctl, of each of its read objects and of fnblk-bench
# prints JSON, with
# the shared check every tool's host suite runs (cli_check.sh, JSON read
# back by "fnblkctl json"); --help, --version and missing values are
# checked again on the guest's busybox. Prints TAP.

lib=$(dirname "$0")/lib_tap.sh
[ -f "$lib" ] || lib=/opt/kselftest/fnblk/lib_tap.sh
. "$lib"
cli_check=$(dirname "$0")/cli_check.sh
[ -f "$cli_check" ] || cli_check=/opt/kselftest/fnblk/cli_check.sh

command -v fnblkctl >/dev/null || skip_all "fnblkctl not installed"
[ -d /sys/module/fnblk ] || modprobe fnblk 2>/dev/null || skip_all "cannot load fnblk"
tmp=$(mktemp -d)
trap 'fnblkctl dev del "$dev" 2>/dev/null; rm -rf "$tmp"' EXIT

echo "TAP version 13"
dev=$(fnblkctl dev add size 16MiB bw 16MiB/s) || not_ok "dev add" "$dev"

# One cli_check run, its results as ours.
conform() { # cli_check arguments...
	JSON_CHECK="fnblkctl json" sh "$cli_check" "$@" >"$tmp/out" 2>&1
	while IFS= read -r line; do
		case $line in
		"ok "*) ok "${line#ok * - }" ;;
		"not ok "*) not_ok "${line#not ok * - }" ;;
		"#"*) echo "$line" ;;
		esac
	done <"$tmp/out"
}

conform -j "dev show" fnblkctl
conform -j "show $dev" fnblkctl dev
conform -j "$dev" fnblkctl stats
conform -j "$dev" fnblkctl users
conform -j "$dev --duration 100ms" fnblkctl monitor
conform -j "$dev 0.1 --once" fnblkctl top
# fnblk-bench: its host suite checks all but -j, which needs the module.
conform -j "latency" fnblk-bench

echo "1..$n"
[ "$failed" -eq 0 ]
