#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# scripts/experiments/fnmap-4-overheads.sh files each fnmap run under the
# name its row reads: its "pair" kept the run's name in "name", which mx
# overwrites (sh has no local variables), so the first VM run filed the
# fnmap runs as NAME-mmap-fnmap and printed dashes in every row. The
# experiment runs here as in the guest (lib.sh, its includes, sh), with
# stand-ins for the module, fnblkctl's device commands and fnblk-matrix
# (a run's report says its mode and a rate: mmap 1000 elements a second,
# fnmap 500).
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
. "$src/selftests/fnblk/lib_tap.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
exp=$src/scripts/experiments
ctl=$src/build/root/bin/fnblkctl

echo "TAP version 13"
if [ ! -x "$ctl" ]; then
	skip "fnmap-4-overheads files its runs" "no $ctl (make first)"
	echo "1..$n"
	exit 0
fi
mkdir "$tmp/bin" "$tmp/results"
printf '#!/bin/sh\nexit 0\n' >"$tmp/bin/modprobe"
printf '#!/bin/sh\n[ "$1" = json ] && exec %s "$@"\nexit 0\n' "$ctl" >"$tmp/bin/fnblkctl"
cat >"$tmp/bin/fnblk-matrix" <<'STUB'
#!/bin/sh
[ "$1" = run ] || exit 0
mode=mmap
while [ $# -gt 0 ]; do
	[ "$1" = --mode ] && mode=$2
	shift
done
ns=1000000000
[ $mode = mmap ] || ns=2000000000
echo "{\"result\":{\"elements\":1000,\"elapsed_ns\":$ns,\"minflt\":3,\"majflt\":1,\"latency\":{\"p50_ns\":1000000}},
 \"jobs\":[{\"mode\":{\"name\":\"$mode\",\"counters\":{\"faults\":7}}}],\"device\":{\"io\":{\"read_bytes\":1048576}}}"
STUB
chmod +x "$tmp/bin/"*
# The guest's script as scripts/experiments/run builds it; the host's
# delay accounting is left alone.
cat "$exp/lib.sh" "$exp/fnmap-4-overheads.sh" |
	awk -v dir="$exp" '/^#include / { while ((getline l < (dir "/" $2)) > 0) print l; next } { print }' |
	sed 's|^echo 1 >/proc/sys/kernel/task_delayacct$|:|' >"$tmp/exp.sh"
PATH=$tmp/bin:$PATH RESULTS=$tmp/results timeout 120 sh "$tmp/exp.sh" >"$tmp/out" 2>&1
check_eq "the experiment runs to its end" "$?" 0
sum=$tmp/results/fnmap-4-overheads-$(uname -r | sed 's/^\([0-9]*\.[0-9]*\).*/\1/').summary
check_eq "24 rows" "$(grep -c '^[ab] ' "$sum")" 24
check_eq "every fnmap run filed as NAME-fnmap" \
	"$(ls "$tmp/results" | grep -c '^e4[ab]-[a-z0-9]*-[a-z0-9]*-fnmap\.json$')" 12
check_eq "none as NAME-mmap-fnmap" "$(ls "$tmp/results" | grep -c -- '-mmap-fnmap')" 0
check_eq "every row has its rate (no dashes)" \
	"$(awk '/^[ab] / && $6 == "-"' "$sum" | wc -l)" 0
check_eq "every fnmap row its ratio to mmap (500 / 1000)" \
	"$(awk '/^[ab] / && $3 == "fnmap" && $7 == "0.50"' "$sum" | wc -l)" 12

echo "1..$n"
[ "$failed" -eq 0 ]
