# SPDX-License-Identifier: GPL-2.0
#
# fnmap experiment 1a (fnmap-1-reads.sh) at 1 and 32 threads with runs of
# 20 s instead of 4 s, in a boot of its own: long enough for fnmap's cache
# to cover the matrix and for mmap's page cache to fill, so the runs
# measure more than the cold start.
E1_THREADS="1 32"
E1_DUR=20s
#include matrix-common.sh
#include fnmap-common.sh
#include fnmap-1-reads.sh
