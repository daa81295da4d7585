# SPDX-License-Identifier: GPL-2.0
#
# fnmap experiment 2 (fnmap-2-memory.sh) for matrices totalling 0.25x to
# 2x the limit (2x with and without updates), in a boot of its own (the
# whole experiment takes longer than one locked VM run may: about 7 of
# its 15 minutes).
E2_SIZES="0.25 0.5 1 2"
#include matrix-common.sh
#include fnmap-common.sh
#include fnmap-2-memory.sh
