# SPDX-License-Identifier: GPL-2.0
#
# fnmap experiment 3, parts b, c and d in a boot of their own (part a has
# fnmap-3a-1thread.sh and fnmap-3a-16threads.sh): block sizes and I/O
# channels at 16 threads against mmap random at 16 threads, then prefetch
# on and off for each pattern at one thread, 5 s a run.
E3_PARTS=bcd
#include matrix-common.sh
#include fnmap-common.sh
#include fnmap-3-ablation.sh
