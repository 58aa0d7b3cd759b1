#!/usr/bin/env bash
# e2e_strategy.sh: per-layer strategy files and their generators from the command line.
# Bad files and bad flags: exit status 2, a message naming the file:line or the flag and what is
# wrong, nothing on stdout, no file left behind. Good ones: every generator writes a file that
# analytic, simulate, compare and sweep take as -s FILE.xml; OWT's redistributions and
# gradients agree between the two derivations on a platform where ParaDL's sharing divisor does
# not apply; SplitBrain's memory saving on VGG-16 for CIFAR-10 is analytic/README.md's.
# Usage (from ctest): e2e_strategy.sh HYBRIDSIM SOURCE_DIR SHARED_DIR
set -uo pipefail
HS="$1"
source "$(dirname "${BASH_SOURCE[0]}")/lib_e2e.sh"

# A strategy file for VGG16 on 8 GPUs: a header, then the lines given.
plan() {
    local file="$TMP/$1"
    shift
    { echo '<?xml version="1.0"?>'; echo '<strategy name="t" workload="vgg16" gpus="8">'
      printf '%s\n' "$@"; echo '</strategy>'; } >"$file"
}
# One ABCI leaf group (17 nodes): the routes of a job of up to 68 GPUs, loaded in milliseconds.
"$HS" platform --preset abci --nodes 17 --leaves-per-rack 1 -o "$TMP/leaf.xml" >/dev/null || fail "platform"
run=(analytic -w vgg16 -p "$TMP/leaf.xml" -g 8 -b 256)

# ---- bad strategy files: the line and what is wrong
plan ok.xml '  <default batch="8"/>'
plan div.xml '  <default batch="8"/>' '  <layer ref="CONV1_1" filter="3"/>'
expect_bad_hs "filter does not divide" "div.xml:4: layer CONV1_1: filter=3 does not divide its 64 filters" "${run[@]}" -s "$TMP/div.xml"
plan bdiv.xml '  <default batch="8"/>' '  <layer ref="FC6" batch="3" replicas="1"/>'
expect_bad_hs "batch does not divide" "bdiv.xml:4: layer FC6: batch=3 does not divide the mini-batch of 256" "${run[@]}" -s "$TMP/bdiv.xml"
expect_bad_hs "gpus do not match -g" "the strategy is for 8 GPUs (gpus=\"8\"), but -g is 16" analytic -w vgg16 -p "$TMP/leaf.xml" -g 16 -b 256 -s "$TMP/ok.xml"
plan idle.xml '  <default batch="4"/>'
expect_bad_hs "groups leave GPUs idle" "idle.xml:2: the layers use ranks 0..3 of the 8 GPUs" "${run[@]}" -s "$TMP/idle.xml"
plan past.xml '  <default batch="8"/>' '  <layer ref="FC8" batch="8" base="4"/>'
expect_bad_hs "group past -g" "past.xml:4: layer FC8: its group of 8 GPUs from rank 4 goes past the 8 GPUs" "${run[@]}" -s "$TMP/past.xml"
plan nolayer.xml '  <default batch="8"/>' '  <layer ref="CONV9_9" batch="8"/>'
expect_bad_hs "unknown layer" "nolayer.xml:4: no layer 'CONV9_9' in workload vgg16" "${run[@]}" -s "$TMP/nolayer.xml"
plan twice.xml '  <default batch="8"/>' '  <layer ref="FC6" batch="8"/>' '  <layer ref="FC6" batch="8"/>'
expect_bad_hs "layer twice" "twice.xml:5: layer FC6 is configured twice (first at line 4)" "${run[@]}" -s "$TMP/twice.xml"
plan missing.xml '  <layer ref="FC6" batch="8"/>'
expect_bad_hs "layer without configuration" "missing.xml:2: layer CONV1_1 of vgg16 has no configuration" "${run[@]}" -s "$TMP/missing.xml"
plan elem.xml '  <default batch="8"/>' '  <group/>'
expect_bad_hs "unknown element" "elem.xml:2: Element strategy content does not follow the DTD" "${run[@]}" -s "$TMP/elem.xml"
plan attr.xml '  <default batch="8" colour="red"/>'
expect_bad_hs "unknown attribute" "attr.xml:3: No declaration for attribute colour of element default" "${run[@]}" -s "$TMP/attr.xml"
plan num.xml '  <default batch="8"/>' '  <layer ref="FC7" filter="two"/>'
expect_bad_hs "not a number" "num.xml:4: layer FC7: filter=\"two\" is not a whole number >= 1" "${run[@]}" -s "$TMP/num.xml"
plan big.xml '  <default batch="8"/>' '  <layer ref="FC7" filter="2147483647"/>'
expect_bad_hs "too large" \
    "big.xml:4: layer FC7: filter=\"2147483647\" is too large (at most 1073741824)" \
    "${run[@]}" -s "$TMP/big.xml"
plan relu.xml '  <default batch="8"/>' '  <layer ref="RELU6" filter="8"/>'
expect_bad_hs "filter on a relu" "relu.xml:4: layer RELU6: filter=8: only conv and fc layers have filters" "${run[@]}" -s "$TMP/relu.xml"
plan wide.xml '  <default batch="8"/>' '  <layer ref="MPOOL5" width="16" batch="1" replicas="1"/>'
expect_bad_hs "width beyond the extent" "wide.xml:4: layer MPOOL5: width=16 is more than its output's 8 columns" "${run[@]}" -s "$TMP/wide.xml"
plan fcw.xml '  <default batch="8"/>' '  <layer ref="FC6" width="8"/>'
expect_bad_hs "spatial split of an fc" "fcw.xml:4: layer FC6: a fc layer has no output extent to split" "${run[@]}" -s "$TMP/fcw.xml"
plan sched.xml '  <schedule micro_batches="4"/>' '  <default batch="8"/>'
expect_bad_hs "schedule with groups" "sched.xml:4: layer CONV1_1: with a schedule every layer runs on one GPU" "${run[@]}" -s "$TMP/sched.xml"
{ echo '<?xml version="1.0"?>'; echo '<strategy name="t" workload="vgg16" gpus="2">'; echo '<schedule micro_batches="4"/>'
  echo '<default base="0"/>'; echo '<layer ref="CONV2_1" base="1"/>'; echo '</strategy>'; } >"$TMP/stages.xml"
expect_bad_hs "a stage in two pieces" "stages.xml:4: layer RELU2_1: rank 0 already ran the stage of layer CONV1_1" \
    analytic -w vgg16 -p "$TMP/leaf.xml" -g 2 -b 64 -s "$TMP/stages.xml"
{ echo '<?xml version="1.0"?>'; echo '<strategy name="t" workload="resnet50" gpus="8">'; echo '<default batch="8"/>'; echo '</strategy>'; } >"$TMP/other.xml"
expect_bad_hs "another workload's file" "other.xml:2: the strategy is for workload 'resnet50', but -w gives vgg16" "${run[@]}" -s "$TMP/other.xml"
printf '<?xml version="1.0"?>\n<strategy name="t" workload="vgg16" gpus="8">\n<default batch="8"/>\n' >"$TMP/cut.xml"
expect_bad_hs "malformed XML" "cut.xml:4:" "${run[@]}" -s "$TMP/cut.xml"
expect_bad_hs "missing file" "nosuch.xml: cannot read the strategy file" "${run[@]}" -s "$TMP/nosuch.xml"
expect_bad_hs "micro-batches with a file" "--micro-batches 4: the strategy file" "${run[@]}" -s "$TMP/ok.xml" --micro-batches 4
expect_bad_hs "bad file in a --job" "--job 1 (a): " simulate -p "$TMP/leaf.xml" --job "w=vgg16,s=$TMP/div.xml,g=8,b=256,name=a"
expect_bad_hs "sweep: unreadable file" "cannot read the strategy file" sweep -w vgg16 -s "$TMP/nosuch.xml" -g 8 -b 256 -p "$TMP/leaf.xml" -o "$TMP/s.csv"

# ---- bad generator flags: the flag and what is wrong, no file written
gen=(strategy -w vgg16 -g 16 -b 256 -p "$TMP/leaf.xml")
expect_bad_hs "unknown scheme" "--generate hybrid: unknown scheme (known: owt" "${gen[@]}" --generate hybrid -o "$TMP/g.xml"
expect_bad_hs "group does not divide -g" "--generate splitbrain:3: groups of 3 GPUs do not divide -g 16" "${gen[@]}" --generate splitbrain:3 -o "$TMP/g.xml"
expect_bad_hs "group not a number" "--generate ghp:x: the group size after ':'" "${gen[@]}" --generate ghp:x -o "$TMP/g.xml"
expect_bad_hs "shape against -g" "--generate data+filter:4x5: 4 x 5 = 20 GPUs, but -g is 16" "${gen[@]}" --generate data+filter:4x5 -o "$TMP/g.xml"
expect_bad_hs "filter that does not divide" "layer CONV1_1: filter=48 does not divide its 64 filters" strategy -w vgg16 -g 48 -b 96 --generate filter -o "$TMP/g.xml"
expect_bad_hs "no -o" "-o FILE.xml is required" "${gen[@]}" --generate data
expect_bad_hs "no action" "say what to do: --generate SPEC or --search" "${gen[@]}" -o "$TMP/g.xml"
expect_bad_hs "unwritable -o" "nodir/g.xml: cannot create a file there" "${gen[@]}" --generate data -o "$TMP/nodir/g.xml"
[ -e "$TMP/g.xml" ] && fail "a failed generation left $TMP/g.xml"

# ---- every generator writes a file the run commands take
for spec in owt splitbrain splitbrain:2 ghp:4 ghp serial:1 data filter channel spatial:4 pipeline data+filter data+spatial data+filter:8x2; do
    g=16; s=${spec%%:1}; s=${s%%:4}
    case "$spec" in serial:1) g=1 ;; spatial:4) g=4 ;; esac
    [ "$spec" = ghp:4 ] && s=ghp:4
    if expect_ok "generate $spec" strategy --generate "$s" -w vgg16 -g $g -b 256 -p "$TMP/leaf.xml" -o "$TMP/gen.xml"; then
        grep -q "wrote $TMP/gen.xml" "$TMP/out" || fail "generate $spec: no 'wrote' line"
        expect_ok "analytic -s generated $spec" analytic -w vgg16 -p "$TMP/leaf.xml" -g $g -b 256 -s "$TMP/gen.xml" --json
    fi
done

# ---- OWT and SplitBrain: analytic and simulated agree where ParaDL's divisor does not bite
"$HS" platform --preset abci --nodes 17 --leaves-per-rack 1 --nics-per-node 1 --gpus-per-pcie-switch 4 -o "$TMP/leaf1nic.xml" >/dev/null 2>&1 || fail "platform"
"$HS" strategy --generate owt -w vgg16 -g 16 -b 512 -o "$TMP/owt.xml" >/dev/null || fail "generate owt"
if expect_ok "compare owt" compare -w vgg16 -p "$TMP/leaf1nic.xml" -g 16 -b 512 -s "$TMP/owt.xml" --json; then
    python3 - "$TMP/out" <<'PY' || failures=$((failures + 1))
import json, sys
d = json.load(open(sys.argv[1]))
a, s = d["analytic"]["iteration"], d["simulate"]["iteration"]
assert abs(a["total_s"] - s["total_s"]) <= 1e-6 * a["total_s"], (a, s)
assert d["analytic"]["strategy"] == "owt", d["analytic"]["strategy"]
PY
fi
# SplitBrain's data rings and model-parallel rings share the node's NIC, so flow mode runs them
# step by step (engine_exposed.c): a member downstream of faster edges then leaves its ring
# before the slowest edge is done, which the closed form (every member waits) does not count:
# 0.34895 s simulated, 0.34913 s analytic.
"$HS" strategy --generate splitbrain:4 -w vgg16 -g 16 -b 512 -o "$TMP/sb.xml" >/dev/null || fail "generate splitbrain"
if expect_ok "compare splitbrain" compare -w vgg16 -p "$TMP/leaf1nic.xml" -g 16 -b 512 -s "$TMP/sb.xml" --json; then
    python3 - "$TMP/out" <<'PY' || failures=$((failures + 1))
import json, sys
d = json.load(open(sys.argv[1]))
a, s = d["analytic"]["iteration"], d["simulate"]["iteration"]
assert 0 < a["total_s"] - s["total_s"] <= 1e-3 * a["total_s"], (a, s)
PY
fi

# ---- SplitBrain's memory saving on VGG-16 for CIFAR-10 (analytic/README.md): 8 GPUs, 128
# samples each
mem() {
    "$HS" strategy --generate "$1" -w vgg16-cifar10 -g 8 -b 1024 -o "$TMP/m.xml" >/dev/null &&
        "$HS" analytic -w vgg16-cifar10 -p "$TMP/leaf.xml" -g 8 -b 1024 -s "$TMP/m.xml" --json
}
mem data >"$TMP/data.json" && mem splitbrain:4 >"$TMP/sb4.json" || fail "memory runs"
python3 - "$TMP/data.json" "$TMP/sb4.json" <<'PY' || failures=$((failures + 1))
import json, sys
d, s = (json.load(open(p)) for p in sys.argv[1:3])
params = lambda r: r["memory_breakdown"]["weights_bytes"] + r["memory_breakdown"]["gradients_bytes"]
saving_params = 1 - params(s) / params(d)
saving_total = 1 - s["memory_per_gpu_bytes"] / d["memory_per_gpu_bytes"]
assert abs(saving_params - 0.6678) < 5e-4, saving_params
assert abs(saving_total - 0.3009) < 5e-4, saving_total
PY

# ---- sweep and a shared fabric take the file
if expect_ok "sweep -s FILE.xml" sweep -w vgg16 -s data,"$TMP/owt.xml" -g 16 -b 512 -p "$TMP/leaf.xml" -m analytic -o "$TMP/sw.csv" --quiet; then
    grep -q "owt.xml,16,512,.*,ok," "$TMP/sw.csv" || { fail "sweep row for the file"; cat "$TMP/sw.csv"; }
fi
expect_ok "--job s=FILE.xml" simulate -p "$TMP/leaf.xml" --job "w=vgg16,s=$TMP/owt.xml,g=16,b=512,name=a" --json

finish e2e_strategy
