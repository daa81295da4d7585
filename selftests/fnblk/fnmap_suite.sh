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
#
# FNBLK_FNMAP_TESTS names the programs to run, in that order, separated by
# commas (so that it passes through SELFTESTS) or spaces, e.g.
# FNBLK_FNMAP_TESTS=test_read,test_args; unset or empty, all of them. A
# name that is not one of them fails the run before fnblk is loaded.

lib=$(dirname "$0")/lib_tap.sh
[ -f "$lib" ] || lib=/opt/kselftest/fnblk/lib_tap.sh
. "$lib"
programs="test_policy test_args test_read test_write test_cache test_stats"
programs="$programs test_faults test_evict test_consistency test_continue"
programs="$programs test_shim test_reclaim"
# shellcheck disable=SC2086 # the programs are a list of words
run=$(select_parts FNBLK_FNMAP_TESTS $programs) || refuse_all "$run"
. "$(dirname "$lib")/lib_fnmap.sh"
[ "$run" = "$programs" ] || echo "# FNBLK_FNMAP_TESTS: $run"

for t in $run; do
	case $t in
	test_shim | test_reclaim)
		fold_tap "$t" env FNMAP_TEST_DIR="$MNT" "$fm/tests/$t.sh" ;;
	*)
		fold_tap "$t" env FNMAP_TEST_DIR="$MNT" FNMAP_TEST_ACCESSES=1000 "$fm/tests/$t" ;;
	esac
done

echo "1..$n"
[ $failed -eq 0 ]
