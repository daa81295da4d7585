# SPDX-License-Identifier: GPL-2.0
#
# fnmap experiment 1 in one boot: reads (fnmap-1-reads.sh), then writes
# (fnmap-1-writes.sh). Included files are pasted as they are, so this
# file includes what they include first.
#include matrix-common.sh
#include fnmap-common.sh
#include fnmap-1-reads.sh
#include fnmap-1-writes.sh
