# SPDX-License-Identifier: GPL-2.0
#
# The fault threads' own rings (the default since libfnmap 1.1) against
# the hand-off of every miss to a channel thread (FNMAP_FLAGS=handoff,
# the default before), and zero-copy fills (FNMAP_FLAGS=continue) against
# UFFDIO_COPY from a staging buffer, in the guest (about 8 minutes on a
# busy host):
#  1. what one miss costs at queue depth 1: userspace/fnmap/tests/
#     bench_miss (one thread, one word of every 64 KiB block in a random
#     order, no prefetch, no eviction) on ext4 on the matrix experiments'
#     store, each way twice, alternating, under perf stat counting
#     io_uring's requests, its hand-offs to io-wq worker threads and task
#     work (where the tracepoints exist);
#  2. the suite programs whose 6.1 times once made the rings suspect
#     (test_read 82 s, test_write 64 s against 28 and 29 on 6.12):
#     test_read by default, with handoff and with continue, test_write
#     by default and with handoff (its mappings are writable: continue
#     does not apply), on the suite's device (latency 100us, no bandwidth
#     limit), timed; then test_continue (zero-copy fills' own checks) on
#     this kernel.
#include matrix-common.sh
tests=/opt/kselftest/fnblk/vmtests/tests
[ -x "$tests/bench_miss" ] || { echo "no $tests/bench_miss: build userspace/fnmap first"; exit 1; }
SIZE_MB=128
load_fnblk bw_mbps=0
mkfs="mkfs.ext4 -F"
command -v mkfs.ext4 >/dev/null || mkfs=mke2fs
mnt=/tmp/fnmap-miss
mkdir -p $mnt
$mkfs -q $DEV >/dev/null 2>&1 && mount -t ext4 $DEV $mnt || { echo "cannot mount $DEV"; exit 1; }

# The io_uring tracepoints this kernel has, of those that tell where a
# read went: submitted, handed to an io-wq worker, completed by task work.
events=
for e in io_uring_submit_req io_uring_submit_sqe io_uring_queue_async_work \
	io_uring_task_add io_uring_complete; do
	for t in /sys/kernel/tracing /sys/kernel/debug/tracing; do
		if [ -d "$t/events/io_uring/$e" ]; then
			events="$events${events:+,}io_uring:$e"
			break
		fi
	done
done

# with FLAGS COMMAND...: COMMAND with FNMAP_FLAGS=FLAGS ("" = unset).
with() {
	flags=$1
	shift
	(
		if [ -n "$flags" ]; then
			export FNMAP_FLAGS=$flags
		else
			unset FNMAP_FLAGS
		fi
		"$@"
	)
}

store_on
{
	conditions
	echo "# io_uring events counted: ${events:-none (no tracepoints)}"
	for flags in "" handoff continue "" handoff continue; do
		say "bench_miss 32 3, FNMAP_FLAGS=${flags:-(none)}"
		if [ -n "$events" ] && command -v perf >/dev/null; then
			with "$flags" env FNMAP_TEST_DIR=$mnt \
				perf stat -e "$events" "$tests/bench_miss" 32 3
		else
			with "$flags" env FNMAP_TEST_DIR=$mnt "$tests/bench_miss" 32 3
		fi || echo "bench_miss failed"
	done
	fnblkctl dev set fnblk0 bw 0 latency 100us overhead 0 >/dev/null
	say "suite programs, store: latency 100us, no bandwidth limit"
	for run in test_read: test_read:handoff test_read:continue \
		test_write: test_write:handoff test_continue:; do
		t=${run%%:*}
		flags=${run#*:}
		t0=$(date +%s)
		# 5 minutes at most each: the boot has 15.
		with "$flags" env FNMAP_TEST_DIR=$mnt FNMAP_TEST_ACCESSES=1000 \
			timeout 300 "$tests/$t" >"$RESULTS/$t-${flags:-default}.tap" 2>&1
		rc=$?
		echo "$t FNMAP_FLAGS=${flags:-(none)}: $(($(date +%s) - t0)) s," \
			"exit $rc, $(grep -c '^ok' "$RESULTS/$t-${flags:-default}.tap") ok," \
			"$(grep -c '^not ok' "$RESULTS/$t-${flags:-default}.tap") not ok"
	done
} 2>&1 | tee "$RESULTS/fnmap-miss.summary"
umount $mnt
