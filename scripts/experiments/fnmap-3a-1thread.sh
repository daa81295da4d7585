# SPDX-License-Identifier: GPL-2.0
#
# fnmap experiment 3, part a at one thread in a boot of its own (under
# 12 minutes): mmap random against fnmap with coalescing and the
# use-aware cache switched on one at a time, 30 s a run so that the
# runtime's cache has grown to its 64 MiB budget (runs of 5 s measure
# its cold start). The paper: coalescing alone 3.5x mmap.
E3_PARTS=a
E3_THREADS=1
E3_DUR=30s
#include matrix-common.sh
#include fnmap-common.sh
#include fnmap-3-ablation.sh
