#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# libfnmap's own suite (reads under every pattern, writes and syncs,
# eviction stress, several fault threads, two-process consistency, bad
# arguments, zero-copy fills by UFFDIO_CONTINUE, the kernel reclaiming a read-only mapping's cache under a
# cgroup's hard limit) and the
# LD_PRELOAD shim's (mapcat | md5sum, fio's mmap engine, the limits) on
# ext4 on an fnblk device with a remote store's latency, on the kernel
# under test. A test of its own so that it has the runner's time to
# itself (TCG is slow). TAP; exits 1 on failure, 4 to skip.
#
# The CI budget: each program's seconds are printed, and test_read's
# random and strided cases make 1000 accesses per thread here, not 3000
# (their eviction churn is what costs under TCG; same cases, same checks).

lib=$(dirname "$0")/lib_tap.sh
[ -f "$lib" ] || lib=/opt/kselftest/fnblk/lib_tap.sh
. "$lib"
. "$(dirname "$lib")/lib_fnmap.sh"

# fold NAME COMMAND...: a TAP producer's results, one by one, as ours.
fold() {
	name=$1
	shift
	t0=$(date +%s)
	"$@" >"$TMP/$name.out" 2>&1
	rc=$?
	echo "# $name: $(($(date +%s) - t0)) s"
	bad=0
	while IFS= read -r line; do
		case $line in
		"not ok "*)
			bad=1
			not_ok "$name: ${line#not ok * - }" ;;
		"ok "*"# SKIP"*)
			d=${line#ok * - }
			skip "$name: ${d%%# SKIP*}" "${d#*# SKIP }" ;;
		"ok "*)
			ok "$name: ${line#ok * - }" ;;
		"1..0 # SKIP"*)
			skip "$name" "${line#1..0 # SKIP }" ;;
		esac
	done <"$TMP/$name.out"
	if [ $rc -ne 0 ] && [ $bad -eq 0 ]; then
		not_ok "$name: exited $rc" "$(tail -n 3 "$TMP/$name.out" | tr '\n' ' ')"
	fi
}

for t in test_policy test_args test_read test_write test_cache test_stats test_faults test_evict test_consistency test_continue; do
	fold "$t" env FNMAP_TEST_DIR="$MNT" FNMAP_TEST_ACCESSES=1000 "$fm/tests/$t"
done
fold test_shim env FNMAP_TEST_DIR="$MNT" "$fm/tests/test_shim.sh"
fold test_reclaim env FNMAP_TEST_DIR="$MNT" "$fm/tests/test_reclaim.sh"

echo "1..$n"
[ $failed -eq 0 ]
