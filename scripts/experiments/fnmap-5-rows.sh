# SPDX-License-Identifier: GPL-2.0
#
# fnmap experiment 5 (fnmap-5-latency.sh) for the rows pattern alone, in a
# boot of its own (about 5 minutes).
E5_PATTERNS=rows
#include matrix-common.sh
#include fnmap-common.sh
#include fnmap-5-latency.sh
