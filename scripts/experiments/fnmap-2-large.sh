# SPDX-License-Identifier: GPL-2.0
#
# fnmap experiment 2 (fnmap-2-memory.sh) for matrices totalling 4x the
# limit, with and without updates, in a boot of its own (about 8 of the
# whole experiment's 15 minutes).
E2_SIZES="4"
#include matrix-common.sh
#include fnmap-common.sh
#include fnmap-2-memory.sh
