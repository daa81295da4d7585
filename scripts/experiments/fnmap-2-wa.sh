# SPDX-License-Identifier: GPL-2.0
#
# fnmap experiment 2 (fnmap-2-memory.sh), the runs with updates only, at
# 2x and 4x the limit, fnmap with write-allocate (the default since
# libfnmap 1.3: a mapping whose program writes what it reads gets its
# blocks writable at their fill, with a twin) and without
# (no-write-alloc: every block's first write faults), beside mmap, in one
# boot (about 10 minutes on a busy host).
E2_SIZES="2 4"
E2_READS=0
E2_WRITE_MODES="mmap fnmap fnmap:no-write-alloc"
#include matrix-common.sh
#include fnmap-common.sh
#include fnmap-2-memory.sh
