#!/usr/bin/env bash
# e2e_search_hybridsim.sh: `hybridsim strategy --search` with hybridsim's cost model (the
# default) on abci: for ResNet-50, VGG16 and AlexNet at 16, 64 and 256 GPUs (64, 32 and 64
# samples a GPU) the searched strategy, simulated, is never slower than the best whole-model
# strategy that fits; an answer dearer by the analytic model than that strategy is one the
# simulation of the finalists preferred (faster simulated), and then the JSON's "model_choice"
# names the finalist the model priced cheapest (absent when that is the answer); the exact
# model's polish never makes the search's plan dearer;
# on AlexNet and VGG16, whose fully connected layers hold most weights, it is at least 3%
# faster simulated; the strategy file it writes gives its analytic number again through
# `analytic -s FILE`; a batch that fits nowhere is refused.
# HS_TEST_SMALL=1 (the sanitized build, tests/CMakeLists.txt) runs 16 GPUs only, a tenth of the
# time: 16 GPUs (4 nodes) run the same code as 64 and 256 (the search, the finalists'
# simulations, the overrule, the file written and read back); the sanitized e2e_readme runs
# VGG16's search on 64 GPUs (README.md's, the very command), the routes across leaves and racks
# that 256 GPUs add run sanitized in e2e_flow_contention and e2e_fabric.
# Usage (from ctest): e2e_search_hybridsim.sh HYBRIDSIM SOURCE_DIR SHARED_DIR
set -uo pipefail
HS="$1"
source "$(dirname "${BASH_SOURCE[0]}")/lib_e2e.sh"

gpus="16 64 256"
[ "${HS_TEST_SMALL:-0}" = 1 ] && gpus="16"
for case in alexnet:64 vgg16:32 resnet50:64; do
    w=${case%%:*} per=${case##*:}
    for g in $gpus; do
        b=$((g * per)) f="$TMP/$w-$g.xml"
        if ! "$HS" strategy --search -w "$w" -p abci -g "$g" -b "$b" -o "$f" --json \
            >"$TMP/out.json" 2>"$TMP/err"; then
            fail "$w g=$g: exit $? $(cat "$TMP/err")"
            continue
        fi
        "$HS" analytic -w "$w" -p abci -g "$g" -b "$b" -s "$f" --json >"$TMP/an.json" ||
            fail "$w g=$g: analytic -s on the written file"
        python3 - "$TMP/out.json" "$TMP/an.json" "$w" "$g" <<'PY' || fail "$w g=$g"
import json, sys
j, an, w, g = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3], sys.argv[4]
s, u = j["searched"], j["best_uniform"]
ratio = s["simulated_s"] / u["simulated_s"]
# The finalists are ranked by the model and simulated; the fastest simulated is the answer. An
# answer dearer by the model than the best uniform strategy is then one the simulation chose.
overruled = s["analytic_s"] > u["analytic_s"] * (1 + 1e-12)
print("%-9s g=%-4s searched %.6f s simulated (%.6f analytic), %s %.6f s: ratio %.4f%s" % (
    w, g, s["simulated_s"], s["analytic_s"], u["strategy"], u["simulated_s"], ratio,
    " (the simulation preferred it to the model's choice)" if overruled else ""))
assert s["simulated_s"] <= u["simulated_s"], "slower than the best uniform strategy"
assert not overruled or s["simulated_s"] < u["simulated_s"], \
    "dearer by the analytic model, and not faster simulated"
# "model_choice" names the finalist the model priced cheapest, exactly when it is not the answer.
m = j.get("model_choice")
if overruled:
    assert m is not None, "overruled, and no model_choice"
if m is not None:
    assert m["analytic_s"] < s["analytic_s"], ("model_choice not cheaper by the model", m)
    assert m["simulated_s"] >= s["simulated_s"], ("model_choice faster simulated", m)
    assert m["analytic_s"] <= u["analytic_s"], ("model_choice dearer than best_uniform", m)
else:
    assert s["analytic_s"] <= u["analytic_s"] * (1 + 1e-12), "no model_choice, not the cheapest"
assert j["search"]["polished_s"] <= j["search"]["exact_s"] * (1 + 1e-12), "polish made it dearer"
assert s["memory_bytes"] <= 16e9, "does not fit"
if w != "resnet50":
    assert ratio < 0.97, "no gain where fully connected layers dominate"
assert abs(an["iteration"]["total_s"] - s["analytic_s"]) <= 1e-9 * s["analytic_s"], \
    ("the file's analytic number", an["iteration"]["total_s"], s["analytic_s"])
PY
    done
done

"$HS" strategy --search -w vgg16 -p abci -g 16 -b 1024 --analytic-only -o "$TMP/no.xml" \
    >"$TMP/out" 2>"$TMP/err"
rc=$?
[ "$rc" -eq 2 ] || fail "vgg16 at 64 a GPU: exit $rc, expected 2"
grep -q "no per-layer strategy fits in 16.0 GB" "$TMP/err" || fail "no-fit message: $(cat "$TMP/err")"
[ -s "$TMP/out" ] && fail "no fit: wrote to stdout"
[ -e "$TMP/no.xml" ] && fail "no fit: wrote the strategy file"

finish e2e_search_hybridsim
