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
source "$(dirname "${BASH_SOURCE[0]}")/lib_e2e.sh"
args=(-w vgg16 -p abci -s data+filter:512x4 -g 2048 -b 16384)
total() { "$HS" "$1" "${args[@]}" --placement "$2" --row | awk '{print $10}'; }

an_packed="$(total analytic packed)"
an_spread="$(total analytic spread)"
sim_packed="$(total simulate packed)"
sim_spread="$(total simulate spread)"
echo "analytic: packed $an_packed s, spread $an_spread s; simulated: packed $sim_packed s, spread $sim_spread s"
awk -v p="$sim_packed" -v s="$sim_spread" 'BEGIN { printf "simulated spread / packed = %.4f (must be > 1.05)\n", s / p; exit !(s > 1.05 * p) }' ||
    fail "the simulation does not see the spread placement's contention"
awk -v p="$an_packed" -v s="$an_spread" 'BEGIN { d = (s - p) / p; if (d < 0) d = -d;
    printf "analytic |spread - packed| / packed = %.4f (must be < 0.01)\n", d; exit !(d < 0.01) }' ||
    fail "the analytic model moved with the placement"

# The links that saturate: with --links, the report's most utilised link must be an inter-rack
# uplink (kind rack-up) when spread, and must not be when packed (NICs are, there).
top_kind() {
    "$HS" simulate "${args[@]}" --placement "$1" --links "$TMP/$1.csv" --json >"$TMP/$1.json" &&
        python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["links"]["top"][0]["kind"])' "$TMP/$1.json"
}
spread_top="$(top_kind spread)"
packed_top="$(top_kind packed)"
echo "most utilised link kind: spread $spread_top, packed $packed_top"
[ "$spread_top" = rack-up ] || fail "spread run's most utilised link is $spread_top, not rack-up"
[ -n "$packed_top" ] && [ "$packed_top" != rack-up ] || fail "packed run's most utilised link is '$packed_top'"
finish e2e_contention
