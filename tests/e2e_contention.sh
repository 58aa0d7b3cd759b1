#!/usr/bin/env bash
# e2e_contention.sh: contention the analytic model cannot see. The same VGG16 data+filter run
# (512 groups of 4 GPUs, 2048 GPUs) placed packed and spread on abci: spread deals the 512 nodes
# round-robin over the 32 racks, so every data-parallel ring edge between nodes leaves its rack and
# 16 nodes x 2 NICs of demand meet each 1:3-oversubscribed rack uplink (283 GB/s for 400 GB/s).
# The analytic model prices each ring by its slowest route (an inter-rack route in both
# placements), so it barely moves; the simulation shares the uplinks and slows down.
# Usage (from ctest): e2e_contention.sh HYBRIDSIM SOURCE_DIR SHARED_DIR
set -uo pipefail
HS="$1"
args=(-w vgg16 -p abci -s data+filter:512x4 -g 2048 -b 16384)
total() { "$HS" "$1" "${args[@]}" --placement "$2" --row | awk '{print $10}'; }

an_packed="$(total analytic packed)"
an_spread="$(total analytic spread)"
sim_packed="$(total simulate packed)"
sim_spread="$(total simulate spread)"
echo "analytic: packed $an_packed s, spread $an_spread s; simulated: packed $sim_packed s, spread $sim_spread s"
failures=0
awk -v p="$sim_packed" -v s="$sim_spread" 'BEGIN { printf "simulated spread / packed = %.4f (must be > 1.05)\n", s / p; exit !(s > 1.05 * p) }' ||
    failures=$((failures + 1))
awk -v p="$an_packed" -v s="$an_spread" 'BEGIN { d = (s - p) / p; if (d < 0) d = -d;
    printf "analytic |spread - packed| / packed = %.4f (must be < 0.01)\n", d; exit !(d < 0.01) }' ||
    failures=$((failures + 1))
echo "e2e_contention: $((2 - failures)) passed, $failures failed"
[ "$failures" -eq 0 ]
