# SPDX-License-Identifier: GPL-2.0
#
# Cluster experiment 2: the path as a shared processor. 1, 2, 4 and 8 hosts
# (network namespaces in one guest, seed-1 phases for each count, no netem
# delay) one after the other in one boot, so that the path's capacity
# measured from the 1-host run can be tried on the others with fnblk-sim's
# --path-bw (Documentation/simulator.rst, Documentation/experiments/cluster.rst).
HOSTS="1 2 4 8"
SEED=1
DELAYS=0
SUMMARY=$RESULTS/cluster-2-path.summary
#include cluster-1-hosts.sh
