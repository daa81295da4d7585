#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# fnblk-fleet --crash-at on a device with a volatile write cache: jobs that
# write their checkpoints with O_DSYNC (FUA) or fsync (a flush) keep the
# last one they completed (or a torn next one over it), none is lost and
# fnblk-fleet exits 0; jobs writing O_DIRECT to the raw device never flush,
# so the crash takes every checkpoint they completed, and fnblk-fleet says
# so (without failing: the path promises nothing more). Prints TAP.

lib=$(dirname "$0")/lib_tap.sh
[ -f "$lib" ] || lib=/opt/kselftest/fnblk/lib_tap.sh
. "$lib"

command -v fnblk-fleet >/dev/null || skip_all "fnblk-fleet not installed"
command -v fnblkctl >/dev/null || skip_all "fnblkctl not installed"
[ -d /sys/module/fnblk ] || modprobe fnblk 2>/dev/null ||
	skip_all "cannot load fnblk"

echo "TAP version 13"
tmp=$(mktemp -d)
dev=
cleanup() {
	if [ "$failed" -ne 0 ] && [ -d /results ]; then
		mkdir -p /results/fleet_crash && cp "$tmp"/* /results/fleet_crash/
	fi
	[ -n "$dev" ] && fnblkctl dev del "$dev" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

jget() { fnblkctl json "$1" <"$2"; }

# crash_run NAME PATH: 4 jobs, 1 MiB checkpoints every 200 ms, crash at 1.5 s:
# a few checkpoints done by then. Ten times later where I/O is ten times
# slower (a lockdep or kmemleak kernel): there no dsync or buffered job
# had completed one by 1.5 s, so none had a checkpoint to keep.
crash_at=1.5s
[ -n "$(timing_unchecked)" ] && crash_at=15s
crash_run() {
	dev=$(fnblkctl dev add size 64MiB bw 32MiB/s cache volatile) ||
		return 1
	fnblk-fleet -j --jobs 4 --compute 200ms --size 1MiB --cycles 0 \
		--duration 20s --phases stagger --path "$2" --crash-at $crash_at \
		-o "$tmp/$1.csv" /dev/"$dev" >"$tmp/$1.json" 2>"$tmp/$1.err"
	echo $? >"$tmp/$1.rc"
	fnblkctl -j stats "$dev" >"$tmp/$1.stats"
	fnblkctl dev del "$dev"
	dev=
}

for path in dsync buffered; do
	crash_run "$path" "$path"
	check_eq "$path: fnblk-fleet exits 0 after the crash" \
		"$(cat "$tmp/$path.rc")" 0
	check_eq "$path: the device crashed once" \
		"$(jget crashes "$tmp/$path.stats")" 1
	check_eq "$path: a path that flushes lost nothing" \
		"$(jget crash.lost "$tmp/$path.json")" 0
	kept=0
	for j in 0 1 2 3; do
		v=$(jget "crash.jobs.$j.verdict" "$tmp/$path.json")
		case $v in
		kept | torn) kept=$((kept + 1)) ;;
		esac
	done
	check_eq "$path: every job kept its last checkpoint (or a torn next)" \
		"$kept" 4
done

crash_run direct direct
check_eq "direct: fnblk-fleet exits 0 (the path does not flush)" \
	"$(cat "$tmp/direct.rc")" 0
check_eq "direct: every completed checkpoint was lost" \
	"$(jget crash.lost "$tmp/direct.json")" 4
check "direct: the crash dropped what was written" \
	test "$(jget crash_lost_bytes "$tmp/direct.stats")" -ge $((4 << 20))
check_eq "direct: the report says the path does not flush" \
	"$(jget crash.durable_path "$tmp/direct.json")" false

echo "1..$n"
[ "$failed" -eq 0 ]
