# SPDX-License-Identifier: GPL-2.0
#
# Cluster experiment 1 repeated: 6 hosts, seed-2 phases, no netem delay
# (a boot of its own, ~2 minutes). Documentation/experiments/cluster.rst.
HOSTS=6
SEED=2
DELAYS=0
#include cluster-1-hosts.sh
