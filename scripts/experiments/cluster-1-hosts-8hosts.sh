# SPDX-License-Identifier: GPL-2.0
#
# Cluster experiment 1 repeated: 8 hosts, seed-1 phases, no netem delay
# (a boot of its own, ~2 minutes). Documentation/experiments/cluster.rst.
HOSTS=8
SEED=1
DELAYS=0
#include cluster-1-hosts.sh
