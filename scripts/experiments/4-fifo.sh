# SPDX-License-Identifier: GPL-2.0
#
# Experiment 4: experiment 3 under policy fifo, where the device serves
# one request at a time in arrival order at f(1)*B instead of sharing
# f(n)*B equally among the writers: what anonymous sharing removes. Each
# checkpoint is one 32MiB request, so FIFO serves whole checkpoints in
# arrival order. (With small requests, FIFO interleaves the jobs' requests
# and comes close to equal sharing: see Documentation/experiments.) The
# body is 3-overlap-ratios.sh.

POLICY=fifo
EXP=4-fifo
BS=32MiB
#include 3-overlap-ratios.sh
