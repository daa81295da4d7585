# SPDX-License-Identifier: GPL-2.0
#
# Cluster experiment 1's first run (2026-12-02) with today's script: 6
# hosts, seed-1 phases, B = 16 MiB/s with 2 MiB checkpoints in 256 KiB
# requests (125 ms alone, as at 2 MiB/s), no netem delay, where the
# guest's network path and not the store limited the hosts (a boot of its
# own, ~2 minutes). Documentation/experiments/cluster.rst.
HOSTS=6
SEED=1
DELAYS=0
BW=16
SIZE=2MiB
BS=256KiB
#include cluster-1-hosts.sh
