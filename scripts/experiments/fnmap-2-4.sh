# SPDX-License-Identifier: GPL-2.0
#
# fnmap experiments 2, 3 and 4 in one boot (fnmap-2-memory.sh,
# fnmap-3-ablation.sh, fnmap-4-overheads.sh). Included files are pasted
# as they are, so this file includes what they include first.
#include matrix-common.sh
#include fnmap-common.sh
#include fnmap-2-memory.sh
#include fnmap-3-ablation.sh
#include fnmap-4-overheads.sh
