#!/usr/bin/env bash
# e2e_scale.sh: what makes large machines and quick answers possible, end to end.
#   - hybridsim loads no SimGrid (it hands simulations to hybridsim-sim beside it);
#   - gen: specs name generated machines; a generated file and its spec give the same answers;
#   - a job on part of a large machine (its racks built in memory) gives the same iteration as
#     on a machine of its own size;
#   - --cfg passes SimGrid settings through, refuses the ones hybridsim's semantics depend on;
#   - a refused run says why (exit 2), nothing of SimGrid's reaches the user.
# Timings are the benchmark's business (experiments/bench/scale.sh), not this test's.
# Usage (from ctest): e2e_scale.sh HYBRIDSIM SOURCE_DIR SHARED_DIR
set -uo pipefail
HS="$1"
source "$(dirname "${BASH_SOURCE[0]}")/lib_e2e.sh"

# expect_bad_scale "what" "expected text in the message" args...: expect_bad_hs, and nothing
# of SimGrid's on stderr
expect_bad_scale() {
    expect_bad_hs "$@"
    no_simgrid_text "$1"
}

# run "what" FILE args... : the JSON printed into FILE, with the platform's name taken out
run() {
    local what="$1" file="$2"
    shift 2
    if ! "$HS" "$@" --json >"$TMP/out" 2>"$TMP/err"; then
        fail "$what" "exit $? ($*)"; cat "$TMP/err"; : >"$file"; return 1
    fi
    sed -e 's/"platform": "[^"]*"/"platform": "-"/g' "$TMP/out" >"$file"
}

# same "what" FILE FILE: both written and equal
same() {
    [ -s "$2" ] && cmp -s "$2" "$3" || fail "$1" "$2 and $3 differ"
}

# ---- hybridsim does not load SimGrid; hybridsim-sim does
if command -v readelf >/dev/null; then
    readelf -d "$HS" | grep -q simgrid && fail "lean" "$HS depends on SimGrid's library"
    readelf -d "$(dirname "$HS")/hybridsim-sim" | grep -q simgrid ||
        fail "lean" "hybridsim-sim does not link SimGrid"
fi

# ---- gen: specs and generated files: the same machine
"$HS" platform --preset abci --nodes 136 -o "$TMP/m.xml" || fail "platform" "cannot write"
for cmd in analytic simulate compare; do
    run "$cmd file" "$TMP/a" $cmd -w resnet50 -p "$TMP/m.xml" -s data+filter:32x4 -g 128 -b 2048
    run "$cmd spec" "$TMP/b" $cmd -w resnet50 -p gen:abci:nodes=136 -s data+filter:32x4 -g 128 \
        -b 2048
    same "$cmd: file and spec" "$TMP/a" "$TMP/b"
done
grep -q '"platform": "gen:abci:nodes=136"' <("$HS" analytic -w resnet50 -p gen:abci:nodes=136 \
    -s data -g 8 -b 256 --json) || fail "name" "a gen: spec is not the platform's name"

# ---- a hand-edited file is read in full, and still answers (through SimGrid's routes)
sed 's/latency="110ns"/latency="210ns"/' "$TMP/m.xml" >"$TMP/edited.xml"
run "edited" "$TMP/c" analytic -w resnet50 -p "$TMP/edited.xml" -s data+spatial:32x4 -g 128 -b 2048
run "unedited" "$TMP/d" analytic -w resnet50 -p "$TMP/m.xml" -s data+spatial:32x4 -g 128 -b 2048
[ -s "$TMP/c" ] && ! cmp -s "$TMP/c" "$TMP/d" || fail "edited" "the edit did not reach the model"

# ---- a job on part of a large machine: its racks only, the same iteration as on its own size
# (the iteration total is field 10 of --row; the spine's bandwidth, never binding, differs)
small=$("$HS" simulate -w resnet50 -p gen:abci:nodes=136 -s data -g 512 -b 32768 --row | awk '{print $10}')
large=$("$HS" simulate -w resnet50 -p gen:abci:nodes=4352 -s data -g 512 -b 32768 --row | awk '{print $10}')
[ -n "$small" ] && [ "$small" = "$large" ] || fail "partial" "512 GPUs: $small on 136 nodes, $large on 4352"

# ---- --cfg
run "cfg ok" "$TMP/e" simulate -w resnet50 -p abci -s data -g 16 -b 512 \
    --cfg contexts/guard-size:0 --cfg contexts/stack-size:128
expect_bad_scale "cfg model" "not a setting hybridsim passes on" simulate -w resnet50 -p abci -s data \
    -g 4 -b 64 --cfg network/model:LV08
expect_bad_scale "cfg tracing" "not a setting hybridsim passes on" simulate -w resnet50 -p abci -s data \
    -g 4 -b 64 --cfg tracing:yes
expect_bad_scale "cfg form" "expected NAME:VALUE" simulate -w resnet50 -p abci -s data -g 4 -b 64 \
    --cfg contexts/guard-size
expect_bad_scale "cfg factory" "raw, ucontext, boost or thread" simulate -w resnet50 -p abci -s data \
    -g 4 -b 64 --cfg contexts/factory:fast
expect_bad_scale "cfg stack" "32 to 1048576" simulate -w resnet50 -p abci -s data -g 4 -b 64 \
    --cfg contexts/stack-size:8
expect_bad_scale "cfg threads" "one at a time" simulate -w resnet50 -p abci -s data -g 4 -b 64 \
    --cfg contexts/nthreads:2
expect_bad_scale "cfg value" "--cfg contexts/guard-size: 'many'" simulate -w resnet50 -p abci -s data \
    -g 4 -b 64 --cfg contexts/guard-size:many

# ---- a job the machine cannot hold is refused before anything is built
expect_bad_scale "memory" "GB of memory" simulate -w resnet50 \
    -p gen:abci:nodes=100000,gpus-per-node=64,nodes-per-leaf=20 -s data -g 6400000 -b 6400000

# ---- guard pages the system's mappings cannot hold: refused at once, with the sysctl (only where
# the limit is the usual 65,530: elsewhere the run would go ahead)
if [ "$(cat /proc/sys/vm/max_map_count 2>/dev/null || echo 0)" -le 80000 ]; then
    expect_bad_scale "mappings" "vm.max_map_count" simulate -w resnet50 \
        -p gen:abci:nodes=10000,nodes-per-leaf=20 -s data -g 40000 -b 40000 \
        --cfg contexts/guard-size:1
fi

# ---- gen: specs refused like the generator's flags
expect_bad_scale "gen preset" "unknown preset" analytic -w resnet50 -p gen:summit -s data -g 4 -b 64
expect_bad_scale "gen flag" "unknown flag 'nodez'" simulate -w resnet50 -p gen:abci:nodez=8 -s data \
    -g 4 -b 64
expect_bad_scale "gen value" "--nodes-per-leaf" analytic -w resnet50 -p gen:abci:nodes-per-leaf=0 -s data \
    -g 4 -b 64

finish e2e_scale
