# SPDX-License-Identifier: GPL-2.0
#
# fnmap experiment 2 (fnmap-2-memory.sh), the runs with updates only, at
# 2x and 4x the limit, fnmap with block twins (the default since libfnmap
# 1.2) and without (no-twins: one write-protect fault a page), beside
# mmap, in one boot (about 10 minutes on a busy host).
E2_SIZES="2 4"
E2_READS=0
E2_WRITE_MODES="mmap fnmap fnmap:no-twins"
#include matrix-common.sh
#include fnmap-common.sh
#include fnmap-2-memory.sh
