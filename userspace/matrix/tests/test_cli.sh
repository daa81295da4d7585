#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# fnblk-matrix end to end on the host, on files: every mode and pattern
# reads correct data and checks every element it reads (a matrix whose
# data belong to another seed is wrong in every element, and every one is
# reported); updates survive and are read back; the access sequence does
# not depend on the thread count; bad arguments are refused with a
# message and status 2. Prints TAP. usage: test_cli.sh [FNBLK-MATRIX]
MX=${1:-./fnblk-matrix}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../../selftests/fnblk/lib_tap.sh"
JSON="$here/../../fnblkctl/fnblkctl json"
TMP=$(mktemp -d /tmp/matrix-test.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

# expect STATUS MESSAGE ARGS...: exit status and a phrase of stderr.
expect() {
	want=$1 msg=$2
	shift 2
	err=$("$MX" "$@" 2>&1 >/dev/null)
	rc=$?
	case $err in
	*"$msg"*) found=1 ;;
	*) found=0 ;;
	esac
	if [ $rc -eq "$want" ] && [ $found -eq 1 ]; then
		ok "'$*' exits $want: $msg"
	else
		not_ok "'$*' exits $want: $msg" "got status $rc: $err"
	fi
}

# jv FILE KEY: a value of a JSON report.
jv() { $JSON "$2" <"$1"; }

# --mode fnmap where this user may use userfaultfd (fnblk-fnmap says).
MODES="mmap pread direct"
FNMAP=$(dirname "$MX")/../fnmap/fnblk-fnmap
if "$FNMAP" >/dev/null 2>&1; then
	MODES="$MODES fnmap"
else
	skip "--mode fnmap" "userfaultfd unusable here"
fi

M=$TMP/m
"$MX" create "$M" --rows 3000 --cols 200 --seed 5
check "create a 3000 x 200 matrix in a file" [ $? -eq 0 ]
check "info reads it back" sh -c "'$MX' info '$M' | grep -q '3000 x 200 doubles'"

# 1. Every mode and pattern: all correct, every element read is checked.
for mode in $MODES; do
	for pattern in cols rows tiles xtx; do
		# one pass of the sweeps; 300 random rows or tiles
		lim=
		case $pattern in rows | tiles) lim="--accesses 300" ;; esac
		"$MX" run "$M" --mode $mode --pattern $pattern --threads 3 --verify \
			--no-cgroup $lim -j >"$TMP/r.json" 2>"$TMP/err"
		rc=$?
		el=$(jv "$TMP/r.json" result.elements)
		ve=$(jv "$TMP/r.json" result.verified)
		wr=$(jv "$TMP/r.json" result.wrong)
		if [ $rc -eq 0 ] && [ "$el" -gt 0 ] && [ "$ve" = "$el" ] && [ "$wr" = 0 ]; then
			ok "$mode $pattern: $el elements read, all verified and correct"
		else
			not_ok "$mode $pattern: all verified and correct" \
				"status $rc, elements $el, verified $ve, wrong $wr: $(cat "$TMP/err")"
		fi
	done
done
el=$(jv "$TMP/r.json" result.elements)
check_eq "one pass of xtx reads every element once" "$el" 600000

# 2. The same shape with another seed's data: every element read is wrong.
"$MX" create "$TMP/other" --rows 3000 --cols 200 --seed 6 >/dev/null
dd if="$TMP/other" of="$M" bs=4096 skip=1 seek=1 conv=notrunc status=none
for mode in $MODES; do
	for pattern in cols rows tiles xtx; do
		"$MX" run "$M" --mode $mode --pattern $pattern --threads 2 --verify \
			--no-cgroup --accesses 20 -j >"$TMP/r.json" 2>/dev/null
		rc=$?
		el=$(jv "$TMP/r.json" result.elements)
		wr=$(jv "$TMP/r.json" result.wrong)
		if [ $rc -eq 1 ] && [ "$el" -gt 0 ] && [ "$wr" = "$el" ]; then
			ok "$mode $pattern: all $el elements of a foreign matrix are reported wrong, status 1"
		else
			not_ok "$mode $pattern: a foreign matrix is wrong everywhere" \
				"status $rc, elements $el, wrong $wr"
		fi
	done
done
"$MX" run "$M" --pattern cols --verify --no-cgroup --accesses 1 >"$TMP/out" 2>&1
check "the text report names a wrong element" grep -q '^  WRONG element (0, 0)' "$TMP/out"
"$MX" verify "$M" >/dev/null 2>&1
check_eq "verify fails on it" $? 1
# A hole of zeros in one page, as a device that lost a write would return.
"$MX" create "$M" --rows 3000 --cols 200 --seed 5 >/dev/null
dd if=/dev/zero of="$M" bs=4096 seek=20 count=1 conv=notrunc status=none
"$MX" verify "$M" -j >"$TMP/r.json" 2>/dev/null
check_eq "verify fails on a page of zeros" $? 1
check_eq "... and counts its 512 elements" "$(jv "$TMP/r.json" result.wrong)" 512
"$MX" create "$M" --rows 3000 --cols 200 --seed 5 >/dev/null

# 3. Updates: each mode writes its version; verify accepts it; durable.
for mode in $MODES; do
	"$MX" run "$M" --mode $mode --pattern tiles --block 16 --threads 4 --verify \
		--write-fraction 20% --sync-every 10 --no-cgroup -j >"$TMP/w.json" 2>"$TMP/err"
	rc=$?
	up=$(jv "$TMP/w.json" result.updates)
	ch=$(jv "$TMP/w.json" result.durable_checked)
	lo=$(jv "$TMP/w.json" result.durable_lost)
	sy=$(jv "$TMP/w.json" result.syncs)
	if [ $rc -eq 0 ] && [ "$up" -gt 0 ] && [ "$ch" -gt 0 ] && [ "$lo" = 0 ] && [ "$sy" -gt 0 ]; then
		ok "$mode: $up updates, $sy syncs, the last $ch read back from the file"
	else
		not_ok "$mode: updates are durable" "status $rc, updates $up, checked $ch, lost $lo, syncs $sy: $(cat "$TMP/err")"
	fi
done
check "verify accepts every updated element" "$MX" verify "$M" -q
nw=$(echo $MODES | wc -w)
check "$nw writing runs made version $nw" sh -c "'$MX' info '$M' | grep -q 'version $nw'"
"$MX" run "$M" --pattern rows --write-fraction 1 --accesses 50 --no-cgroup -j >"$TMP/w.json"
check_eq "write-fraction 1 updates every element read" \
	"$(jv "$TMP/w.json" result.updates)" "$(jv "$TMP/w.json" result.elements)"

# 4. The access sequence depends on the seed, not on the threads.
"$MX" run "$M" --pattern tiles --threads 1 --accesses 300 --seed 9 --no-cgroup -j >"$TMP/a.json"
"$MX" run "$M" --pattern tiles --threads 5 --accesses 300 --seed 9 --no-cgroup -j >"$TMP/b.json"
"$MX" run "$M" --pattern tiles --threads 5 --accesses 300 --seed 10 --no-cgroup -j >"$TMP/c.json"
sum() { $JSON jobs.0.threads <"$1" | tr ',' '\n' | sed -n 's/.*"checksum": *\([-0-9.e+]*\).*/\1/p' |
	awk '{ s += $1 } END { printf "%.7e", s }'; }
check_eq "1 and 5 threads read the same elements (checksums)" "$(sum "$TMP/a.json")" "$(sum "$TMP/b.json")"
check "another seed reads others" [ "$(sum "$TMP/b.json")" != "$(sum "$TMP/c.json")" ]

# 5. Several jobs: a set in a directory and one on a single file.
mkdir "$TMP/dir"
"$MX" create "$TMP/dir" --rows 512 --cols 64 --jobs 3 >/dev/null
check "create --jobs 3 in a directory makes three files" [ -f "$TMP/dir/matrix-0002.fbm" ]
"$MX" run "$TMP/dir" --jobs 3 --threads 2 --verify --no-cgroup -j >"$TMP/j.json"
check_eq "run --jobs 3 on the directory: three jobs report" "$(jv "$TMP/j.json" 'jobs.#')" 3
check_eq "... and read 3 x 512 x 64 elements correctly" \
	"$(jv "$TMP/j.json" result.verified)/$(jv "$TMP/j.json" result.wrong)" "98304/0"
"$MX" create "$TMP/set" --rows 512 --cols 64 --jobs 2 >/dev/null
"$MX" run "$TMP/set" --jobs 2 --mode direct --pattern cols --verify --no-cgroup -q
check "run --jobs 2 on one file holding two matrices" [ $? -eq 0 ]
expect 1 "holds 2 matrices; --jobs 3 needs 3" run "$TMP/set" --jobs 3 --no-cgroup
check "the text report has a line per job" sh -c \
	"'$MX' run '$TMP/set' --jobs 2 --no-cgroup | grep -c '^job [01]: exit status 0' | grep -qx 2"

# 6. Refusals: status 2 and a message naming what was wrong.
expect 2 "--rows and --cols are required" create "$TMP/x" --rows 10
expect 2 "--rows '0': too small" create "$TMP/x" --rows 0 --cols 1
expect 2 "option '--rows' needs a value (R)" create "$TMP/x" --rows
expect 2 "--threads '0': too small (expected 1 to 1024)" run "$M" --threads 0
expect 2 "--threads '2000': too large" run "$M" --threads 2000
expect 2 "--threads 'x': not a number" run "$M" --threads x
expect 2 "--mode 'mmapp': expected mmap, pread, direct or fnmap" run "$M" --mode mmapp
expect 2 "--fnmap-budget: '1M': below 2MiB" run "$M" --mode fnmap --fnmap-budget 1M
expect 2 "--fnmap-channels: '0': too small (1 to 64)" run "$M" --mode fnmap --fnmap-channels 0
expect 2 "--fnmap-flags: unknown runtime flag 'bogus'" run "$M" --mode fnmap --fnmap-flags bogus
expect 2 "--fnmap-qd is an option of --mode fnmap, not mmap" run "$M" --fnmap-qd 4
expect 2 "--pattern 'diag': expected cols, rows, tiles or xtx" run "$M" --pattern diag
expect 2 "--advise 'often': expected normal, random or sequential" run "$M" --advise often
expect 2 "--mode pread does not take it" run "$M" --mode pread --advise random
expect 2 "--mode mmap does not take it" run "$M" --bs 64k
expect 2 "--bs '1000': not a multiple of 512" run "$M" --mode direct --bs 1000
expect 2 "--write-fraction '1.5': at most 1" run "$M" --write-fraction 1.5
expect 2 "--write-fraction '-1': negative" run "$M" --write-fraction -1
expect 2 "--sync-every: nothing is written" run "$M" --sync-every 3
expect 2 "--accesses and --duration are exclusive" run "$M" --accesses 3 --duration 1s
expect 2 "--duration '5': missing unit" run "$M" --duration 5
expect 2 "--block 3001: must be 1..3000" run "$M" --pattern rows --block 3001
expect 2 "--no-cgroup: exclusive" run "$M" --no-cgroup --memory-max 1G
expect 2 "create: unknown option '--mode'" create "$TMP/y" --rows 1 --cols 1 --mode mmap
expect 2 "run: unknown option '--frobnicate'" run "$M" --frobnicate
expect 2 "no COMMAND (create, run, verify, info or bound)"
expect 2 "run: expected a PATH" run
expect 2 "unknown command 'walk'" walk "$M"
: >"$TMP/empty"
echo '{}' >"$TMP/empty.json"
expect 1 "reading the header at 0: past the end" run "$TMP/empty" --no-cgroup
head -c 8192 /dev/zero >"$TMP/zeros"
expect 1 "no matrix here" run "$TMP/zeros" --no-cgroup
expect 1 "No such file" run "$TMP/nothing" --no-cgroup
# 7. The store's bound replays the run: the elements and updates its
# workers counted, at most as many pages written as read, and the best
# cover never dearer than a request a page.
"$MX" run "$M" --pattern rows --write-fraction 30% --accesses 40 --threads 3 \
	--no-cgroup -j >"$TMP/b.json"
"$MX" bound "$TMP/b.json" --bw 64MiB --overhead 16KiB -j >"$TMP/bb.json"
check "bound: runs on a run's report" [ $? -eq 0 ]
check_eq "bound: replays the elements the run counted" \
	"$(jv "$TMP/bb.json" elements)" "$(jv "$TMP/b.json" result.elements)"
check_eq "bound: replays the updates the run counted" \
	"$(jv "$TMP/bb.json" updates)" "$(jv "$TMP/b.json" result.updates)"
check "bound: pages written <= pages read, least <= one a page" awk \
	-v r="$(jv "$TMP/bb.json" pages_read)" -v w="$(jv "$TMP/bb.json" pages_written)" \
	-v l="$(jv "$TMP/bb.json" least.seconds)" -v p="$(jv "$TMP/bb.json" per_page.seconds)" \
	'BEGIN { exit !(w > 0 && w <= r && l > 0 && l <= p) }'
expect 2 "bound: expected a REPORT" bound
expect 1 "give the store (--bw, --overhead, --fn)" bound "$TMP/b.json"
expect 2 "--overhead, --fn and --max-request describe a store given by --bw" \
	bound "$TMP/b.json" --overhead 4KiB
expect 2 "--fn 'steep'" bound "$TMP/b.json" --bw 1MiB --fn steep
expect 1 "not a report of fnblk-matrix run -j" bound "$TMP/empty.json" --bw 1MiB
"$MX" --help | grep -q '^Usage: fnblk-matrix COMMAND PATH'
check "--help prints the usage" [ $? -eq 0 ]
check "--version prints the version" sh -c "'$MX' --version | grep -q '^fnblk-matrix (fnblk) [0-9]'"
echo "1..$n"
[ $failed -eq 0 ]
