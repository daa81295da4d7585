# SPDX-License-Identifier: GPL-2.0
#
# Experiment 4, small requests: experiment 3 under policy fifo with each
# checkpoint written in 256 KiB requests, 4 in flight per job. FIFO then
# interleaves the jobs' requests in arrival order, and every backlogged
# job gets about one request in N: close to equal sharing. The body is
# 3-overlap-ratios.sh.

POLICY=fifo
EXP=4-fifo-bs256KiB
BS=256KiB
#include 3-overlap-ratios.sh
