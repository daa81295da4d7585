# SPDX-License-Identifier: GPL-2.0
#
# fnmap experiment 3, part a at 16 threads in a boot of its own: as
# fnmap-3a-1thread.sh, 20 s a run. The paper: coalescing alone stops
# scaling past 8 threads, the cache brings the scaling.
E3_PARTS=a
E3_THREADS=16
E3_DUR=20s
#include matrix-common.sh
#include fnmap-common.sh
#include fnmap-3-ablation.sh
