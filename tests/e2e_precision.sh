#!/usr/bin/env bash
# e2e_precision.sh: --precision fp32|mixed|bf16 (with --compute model: the measured times are
# fp32's). Mixed precision halves every message (the bytes the simulation moved over the links:
# data parallelism's gradients, filter parallelism's activations, exactly half) and the
# activation, weight and gradient memory, and adds the FP32 master weights (twice the FP16
# copy) to the memory breakdown; analytic and simulation agree; bf16 runs on an H100 and is
# refused on a V100; a pipeline's stages run in it too (their kernels on tensor cores, its
# sends halved); with --compute measured or misspelt: exit 2 naming the flag.
# Usage (from ctest): e2e_precision.sh HYBRIDSIM SOURCE_DIR SHARED_DIR
set -uo pipefail
HS="$1"
source "$(dirname "${BASH_SOURCE[0]}")/lib_e2e.sh"

for run in "data -g 8 -b 256" "filter -g 4 -b 64"; do
    name="${run%% *}"
    for pr in fp32 mixed; do
        # shellcheck disable=SC2086
        "$HS" compare -w resnet50 -p abci -s $run --compute model --precision $pr --json \
            --links "$TMP/$name-$pr.csv" >"$TMP/$name-$pr.json" 2>"$TMP/err" ||
            fail "compare $name $pr: $(cat "$TMP/err")"
    done
done
python3 - "$TMP" <<'PY' || fail "mixed precision"
import csv, json, sys
d = sys.argv[1]
def moved(f):
    return sum(float(r["bytes"]) for r in csv.DictReader(open(f)))
for name in ("data", "filter"):
    b32, b16 = moved(f"{d}/{name}-fp32.csv"), moved(f"{d}/{name}-mixed.csv")
    assert b32 > 0 and b32 == 2 * b16, (name, b32, b16)
    j32 = json.load(open(f"{d}/{name}-fp32.json"))
    j16 = json.load(open(f"{d}/{name}-mixed.json"))
    assert j16["analytic"]["precision"] == "mixed" and "precision" not in j32["analytic"]
    m32, m16 = j32["analytic"]["memory_breakdown"], j16["analytic"]["memory_breakdown"]
    for k in ("weights_bytes", "gradients_bytes", "activations_bytes"):
        assert m32[k] == 2 * m16[k], (name, k, m32[k], m16[k])
    assert "master_bytes" not in m32 and m16["master_bytes"] == 2 * m16["weights_bytes"]
    a, s = j16["analytic"]["iteration"], j16["simulate"]["iteration"]
    for k in ("compute_s", "comm_s"):
        assert abs(a[k] / s[k] - 1) < 1e-6, (name, k, a[k], s[k])
    assert a["compute_s"] < j32["analytic"]["iteration"]["compute_s"]  # tensor cores
    print(f"{name}: {b32:.0f} bytes moved in fp32, {b16:.0f} mixed; memory "
          f"{j32['analytic']['memory_per_gpu_bytes'] / 1e9:.3f} -> "
          f"{j16['analytic']['memory_per_gpu_bytes'] / 1e9:.3f} GB")
PY
"$HS" analytic -w resnet50 -p nvswitch-ndr -s data -g 64 -b 4096 --compute model --precision bf16 \
    --json >"$TMP/h.json" 2>"$TMP/err" || fail "bf16 on the H100: $(cat "$TMP/err")"
grep -qF '"precision": "bf16"' "$TMP/h.json" || fail "bf16 not in the JSON"

run=(-w resnet50 -p abci -g 8 -b 256)
expect_bad measured "--precision mixed: resnet50's measured times are fp32's: time the kernels with --compute model" \
    "$HS" analytic "${run[@]}" -s data --precision mixed --compute measured
expect_bad v100-bf16 "--precision bf16" "$HS" analytic "${run[@]}" -s data --precision bf16 --compute model
expect_bad name "--precision" "$HS" analytic "${run[@]}" -s data --precision fp8 --compute model
# a pipeline in mixed precision: the model times its stages on the tensor cores, and its
# tensors take half the memory (the stages, balanced on other kernel times, may cut elsewhere:
# its sends are not compared)
for pr in fp32 mixed; do
    "$HS" analytic "${run[@]}" -s pipeline --precision $pr --json >"$TMP/pl-$pr.json" \
        2>"$TMP/err" || fail "analytic pipeline --precision $pr: $(cat "$TMP/err")"
done
python3 - "$TMP/pl-fp32.json" "$TMP/pl-mixed.json" <<'PY' || fail "a pipeline in mixed precision"
import json, sys
f, m = (json.load(open(p)) for p in sys.argv[1:3])
assert f["compute"] == m["compute"] == "kernels" and m["precision"] == "mixed", m
assert m["iteration"]["compute_s"] < f["iteration"]["compute_s"], (m["iteration"], f["iteration"])
assert m["memory_per_gpu_bytes"] < f["memory_per_gpu_bytes"]
PY
# a strategy file runs in the job's precision too: data as a plan is data, kernels and bytes
"$HS" strategy --generate data -w resnet50 -g 8 -b 256 -o "$TMP/data.xml" >/dev/null 2>&1 ||
    fail "generate data"
for s in data "$TMP/data.xml"; do
    "$HS" analytic "${run[@]}" -s "$s" --precision mixed --json >"$TMP/plan-$(basename "$s").json" \
        2>"$TMP/err" || fail "analytic -s $s --precision mixed: $(cat "$TMP/err")"
done
python3 - "$TMP/plan-data.json" "$TMP/plan-data.xml.json" <<'PY' || fail "a plan in mixed precision"
import json, sys
a, b = (json.load(open(p))["iteration"]["total_s"] for p in sys.argv[1:3])
assert abs(a / b - 1) < 1e-9, (a, b)
PY

# suggest and strategy --search take --precision (the table of job keys): priced, and the best
# simulated, in it; the report says which
for pr in fp32 mixed; do
    "$HS" suggest -w resnet50 -g 8 -b 256 --top 1 --precision $pr --json >"$TMP/sg-$pr.json" \
        2>"$TMP/err" || fail "suggest --precision $pr: $(cat "$TMP/err")"
    "$HS" strategy --search -w resnet50 -g 8 -b 256 --analytic-only --precision $pr --json \
        -o "$TMP/searched-$pr.xml" >"$TMP/se-$pr.json" 2>"$TMP/err" ||
        fail "strategy --search --precision $pr: $(cat "$TMP/err")"
done
python3 - "$TMP" <<'PY' || fail "suggest and --search in mixed precision"
import json, sys
d = sys.argv[1]
sg = {p: json.load(open(f"{d}/sg-{p}.json")) for p in ("fp32", "mixed")}
se = {p: json.load(open(f"{d}/se-{p}.json")) for p in ("fp32", "mixed")}
assert "precision" not in sg["fp32"] and sg["mixed"]["precision"] == "mixed", sg["mixed"].keys()
assert "precision" not in se["fp32"] and se["mixed"]["precision"] == "mixed", se["mixed"].keys()
def first(d):
    return d["strategies"][0] if "strategies" in d else d["ranking"][0]
f, m = first(sg["fp32"]), first(sg["mixed"])
# FP16 tensor cores: the best strategy's compute at least twice as fast; simulated in it
assert m["compute_s"] < f["compute_s"] / 2, (f, m)
assert m["simulated_s"] < f["simulated_s"] / 2, (f, m)
for k in ("searched", "best_uniform"):  # the search's plan and its whole-model rival too
    assert se["mixed"][k]["analytic_s"] < se["fp32"][k]["analytic_s"] / 2, (k, se)
    assert se["mixed"][k]["memory_bytes"] < se["fp32"][k]["memory_bytes"], (k, se)
PY
expect_bad suggest-measured "--precision mixed: resnet50's measured times are fp32's" \
    "$HS" suggest -w resnet50 -g 8 -b 256 --precision mixed --compute measured
expect_bad suggest-chooses "--allreduce: suggest chooses it itself" \
    "$HS" suggest -w resnet50 -g 8 -b 256 --allreduce tree

finish e2e_precision
