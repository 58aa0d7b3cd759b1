#!/usr/bin/env bash
# e2e_flow_contention.sh: flow mode against step mode where jobs contend, values pinned. On ABCI,
# data-parallel jobs of 128 GPUs spread over racks 0 and 1 (their ring edges cross the racks'
# 1:3 uplinks):
#   moving:     ResNet-50 (58 samples a GPU) and VGG16 (16): ResNet-50's allreduce starts while
#               VGG16's runs and ends before it, so VGG16's ring meets a competitor that comes
#               and goes. Their rings run different collectives on shared uplinks, so flow mode
#               runs both step by step (engine_exposed.c): the same values as step mode.
#   identical:  two ResNet-50 jobs in step: sibling rings, one flow per edge in flow mode.
#   background: one ResNet-50 job and background flows across the same uplinks for the whole
#               run: contention that stays, one flow per edge.
# Each must agree with step mode within 2% (they agree far closer: printed) and give its pinned
# iteration (1e-9), so that a change of the simulator's numbers under congestion is seen. Then
# the step budget: SplitBrain runs (32 GPUs under --step-budget, 1024 at the default) keep their
# largest exposed ring as flows in blocks of steps, and say so; the moving pair's blocks converge
# to its steps as the budget grows; --step-budget's bad values.
# HS_TEST_SMALL=1 (the sanitized build, tests/CMakeLists.txt) runs the three pairs in flow mode
# only, each at its pinned value, two thirds of the time; the plain build adds step mode and
# the 2% agreement. The step-by-step engine still runs sanitized here (the moving pair's rings
# run step by step in flow mode), in e2e_determinism (every strategy at -c step) and e2e_links.
# Usage (from ctest): e2e_flow_contention.sh HYBRIDSIM SOURCE_DIR SHARED_DIR
set -uo pipefail
HS="$1"
source "$(dirname "$0")/lib_e2e.sh"

R50="w=resnet50,s=data,g=128,b=7424,racks=0-1,placement=spread"
V16="w=vgg16,s=data,g=128,b=2048,racks=0-1,placement=spread"
R50B="w=resnet50,s=data,g=128,b=4096,racks=0-1,placement=spread"
run() { # run NAME FIDELITY args...: the jobs' iterations, one per line, into $TMP/NAME-FIDELITY
    local name="$1" fid="$2"
    shift 2
    "$HS" simulate -p abci "$@" -c "$fid" --compute measured --json >"$TMP/json" 2>"$TMP/err" ||
        { fail "$name $fid: exit $? $(cat "$TMP/err")"; return; }
    python3 -c 'import json, sys
for j in json.load(open(sys.argv[1])): print(repr(j["run"]["iteration"]["total_s"]))' \
        "$TMP/json" >"$TMP/$name-$fid"
}
fids="flow step"
[ "${HS_TEST_SMALL:-0}" = 1 ] && fids=flow
for fid in $fids; do
    run moving "$fid" --job "$R50,name=a" --job "$V16,name=b"
    run identical "$fid" --job "$R50B,name=a" --job "$R50B,name=b"
    run background "$fid" --job "$R50B,name=a" --background "from=20-33,to=54-67,rate=12.5GBps"
done
# NAME FLOW:STEP...: per job, flow within 2% of step, and both at their pinned values (1e-9); the
# values alone (no contention) are 0.203236 s, 0.247622 s and 0.122129 s (kernels measured,
# --compute measured: what is pinned is the network's). Flow alone at its pin when only flow ran.
check() {
    local name="$1" files=("$TMP/$1-flow")
    shift
    [ "$fids" = flow ] || files+=("$TMP/$name-step")
    paste "${files[@]}" | python3 -c '
import sys
pins = [tuple(map(float, x.split(":"))) for x in sys.argv[3:]]
rows = [tuple(map(float, l.split())) for l in sys.stdin]
assert len(rows) == len(pins), (rows, pins)
for row, (flow_pin, step_pin) in zip(rows, pins):
    assert len(row) == int(sys.argv[2]), row
    flow = row[0]
    assert abs(flow / flow_pin - 1) <= 1e-9, (flow, flow_pin)
    if len(row) == 1:
        print(f"{sys.argv[1]:10s} flow {flow:.9f} s  (step mode: the plain build)")
        continue
    step = row[1]
    print(f"{sys.argv[1]:10s} flow {flow:.9f} s  step {step:.9f} s  flow/step {flow / step:.6f}")
    assert abs(flow / step - 1) <= 0.02, (flow, step)
    assert abs(step / step_pin - 1) <= 1e-9, (step, step_pin)
' "$name" "${#files[@]}" "$@" || fail "$name: flow, step and pinned values"
}
check moving 0.20877710656000315:0.20877710656000315 0.2531632084800046:0.2531632084800046
check identical 0.12807336069647068:0.1280733606964711 0.12807336069647068:0.1280733606964711
check background 0.12677954127058833:0.12678241027764764

# Blocks of steps converge to the steps: the moving pair with its rings over a budget, in one
# block a collective (--step-budget 1) and in the blocks 20000 messages pay for, is further from
# step mode than at the default budget (its rings in steps), and less far the more blocks. The
# values alone (the plain build: the blocks path itself runs sanitized below).
if [ "${HS_TEST_SMALL:-0}" != 1 ]; then
    for b in 1 20000; do
        run "moving$b" flow --job "$R50,name=a" --job "$V16,name=b" --step-budget "$b"
    done
    paste "$TMP/moving1-flow" "$TMP/moving20000-flow" "$TMP/moving-flow" "$TMP/moving-step" |
        python3 -c '
import sys
for line in sys.stdin:
    one, some, steps, step = map(float, line.split())
    d = [abs(x / step - 1) for x in (one, some, steps)]
    print("blocks     1 block %.9f s  20000 messages %.9f s  steps %.9f s" % (one, some, steps))
    assert d[0] > d[1] > d[2], d
' || fail "blocks of steps do not converge to the steps"
fi

# The step budget: AlexNet SplitBrain (groups of 8), whose model-parallel groups' traffic shares
# links with the data-parallel rings. On 32 GPUs with --step-budget 3000: the 12 groups whose
# steps fit run in steps; the 32-member gradient ring (1,984 step messages an allreduce) runs as
# flows, in the blocks of steps the rest of the budget pays for, and the run says so (table and
# JSON). The same on 1024 GPUs at the default budget: 136 groups in steps, the 1024-member ring
# (2.1 million step messages) in blocks. HS_TEST_SMALL=1 (the sanitized build,
# tests/CMakeLists.txt) leaves out the 1024-GPU runs (94 s sanitized): the 32-GPU one runs the
# same code (the exposed rings, the budget, steps and blocks side by side, the table's lines and
# the JSON's flow_rings); the default budget is the one constant the flag replaces.
budget_case() { # NAME GPUS STEPPED [--step-budget N]: the table's and the JSON's counts
    local name="$1" g="$2" stepped="$3"
    shift 3
    "$HS" strategy -w alexnet -p abci -g "$g" -b $((g * 64)) --generate splitbrain:8 \
        -o "$TMP/$name.xml" >/dev/null 2>&1 || { fail "generate splitbrain:8 on $g GPUs"; return; }
    local run=(simulate -w alexnet -p abci -s "$TMP/$name.xml" -g "$g" -b $((g * 64)) "$@")
    "$HS" "${run[@]}" --json >"$TMP/$name.json" 2>"$TMP/err" ||
        { fail "$name: exit $? $(cat "$TMP/err")"; return; }
    python3 - "$TMP/$name.json" "$name" "$stepped" <<'PY' || fail "$name: step budget"
import json, sys
j = json.load(open(sys.argv[1]))
want = {"stepped_groups": int(sys.argv[3]), "over_budget_groups": 1}
assert j["flow_rings"] == want, j.get("flow_rings")
print("%-10s %s groups in steps, 1 in blocks of steps, iteration %.9f s"
      % (sys.argv[2], sys.argv[3], j["iteration"]["total_s"]))
PY
    "$HS" "${run[@]}" --layers-top 0 >"$TMP/$name.txt" 2>&1 || fail "$name table: exit $?"
    grep -q "the rings of $stepped groups ran step by step" "$TMP/$name.txt" &&
        grep -q "1 more ran in blocks of steps, over the step budget" "$TMP/$name.txt" ||
        fail "$name: the table does not say it"
}
budget_case budget32 32 12 --step-budget 3000
[ "${HS_TEST_SMALL:-0}" = 1 ] || budget_case budget1024 1024 136
# Within the default budget, every group of the 32-GPU case runs in steps, none in blocks.
"$HS" simulate -w alexnet -p abci -s "$TMP/budget32.xml" -g 32 -b 2048 --json >"$TMP/all.json" \
    2>"$TMP/err" || fail "budget32, default budget: exit $? $(cat "$TMP/err")"
python3 -c 'import json, sys
assert json.load(open(sys.argv[1]))["flow_rings"] == {"stepped_groups": 13, "over_budget_groups": 0}' \
    "$TMP/all.json" || fail "budget32, default budget: not every group in steps"
# The flag: a whole number, for flow mode's simulations.
expect_bad "--step-budget 0" "--step-budget" "$HS" simulate -w alexnet -p abci -s data -g 8 -b 512 \
    --step-budget 0
expect_bad "--step-budget x" "--step-budget" "$HS" simulate -w alexnet -p abci -s data -g 8 -b 512 \
    --step-budget x
expect_bad "--step-budget, step mode" "--step-budget is for flow mode" "$HS" simulate -w alexnet \
    -p abci -s data -g 8 -b 512 -c step --step-budget 10
expect_bad "--step-budget, analytic" "--step-budget is for simulate and compare" "$HS" analytic \
    -w alexnet -p abci -s data -g 8 -b 512 --step-budget 10
finish e2e_flow_contention
