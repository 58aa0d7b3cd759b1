#!/usr/bin/env bash
# e2e_import.sh: experiments/import/import.py end to end: five torchvision models (resnet18,
# resnet101, vgg11, inception_v3 with its branches and concatenations, mobilenet_v2 with its
# depthwise convolutions) become workloads that `analytic` and `simulate` run (data and filter
# parallelism); two with the token layer types (shufflenet_v2_x0_5: a channel split and shuffle,
# copies; swin_t: windowed attention, layer norm, permutes, products of activations) import with
# hand-checked products and run under data, filter and spatial parallelism; vit_b_16 fits a
# V100 at DeiT-B's batch under pytorch-ddp's activation memory rule; a workload without
# a time is refused by name; --help describes every option; small ONNX graphs built here go
# through the ONNX reader (a folded Pad, Concat, Gemm) or are refused naming the node and its
# operator; bad arguments exit 2 with nothing written. With HS_TEST_IMPORTED (the sanitized half
# of tests/run.sh --ci, below), hybridsim's side only, on the files a plain run imported.
# Usage (from ctest): e2e_import.sh HYBRIDSIM SOURCE_DIR SHARED_DIR
set -uo pipefail
HS="$1"
SRC="$2"
PY=/usr/bin/python3 # Debian's, with python3-torch (a pyenv python3 on the PATH lacks it)
IMPORT="$SRC/experiments/import/import.py"
source "$(dirname "${BASH_SOURCE[0]}")/lib_e2e.sh"

# The importer is Python, which the sanitizers do not watch; what they watch is hybridsim
# reading what it wrote. So a run that finds the files a plain run kept (HS_TEST_IMPORTED, set
# by tests/run.sh --ci for its sanitized half: the plain build's tests/imported, its import/ kept by
# the plain run when every check passed, with a stamp of the importer's sources) reads them
# and runs only hybridsim's side; any other run imports (torch's imports: most of this test's
# time) and checks the importer too.
KEPT=(resnet18 resnet101 vgg11 inception_v3 mobilenet_v2 shufflenet_v2_x0_5 swin_t vit_b_16 tiny)
stamp="$(cat "$SRC"/experiments/import/*.py | sha256sum | cut -d' ' -f1)"
from="${HS_TEST_IMPORTED:+$HS_TEST_IMPORTED/import}" keep="$(dirname "$HS")/tests/imported/import"
if [ -n "$from" ] && [ "$(cat "$from/stamp" 2>/dev/null)" = "$stamp" ]; then
    echo "e2e_import: the importer's outputs as $from has them (checked by the run that kept them)"
    for m in "${KEPT[@]}"; do cp "$from/$m.xml" "$TMP/" || fail "$from/$m.xml: not kept"; done
    imported=0
else
    rm -rf "$keep" # what an earlier run kept is not this one's
    need_python torch torchvision onnx
    imported=1
fi

import_models() { # the eight torchvision models, by the importer
    # The five models: resnet18 by the command line with a measured time, beside the other four
    # in one process calling import.py's main() (torch's import, seconds, paid once), without.
    "$PY" "$IMPORT" torchvision:resnet18 -o "$TMP/resnet18.xml" --sample-time-s 0.0011 \
        --device V100-16GB --batch 64 >"$TMP/resnet18.out" 2>"$TMP/resnet18.err" &
    cli=$!
    "$PY" - "$IMPORT" "$TMP" <<'EOF' 2>"$TMP/batch.err" || fail "importing in one process: $(cat "$TMP/batch.err")"
import contextlib, runpy, sys
main = runpy.run_path(sys.argv[1])["main"]  # not as __main__: defines, does not run
for m in ["resnet101", "vgg11", "inception_v3", "mobilenet_v2", "shufflenet_v2_x0_5", "swin_t",
          "vit_b_16"]:
    base = "%s/%s" % (sys.argv[2], m)
    with open(base + ".out", "w") as out, open(base + ".err", "w") as err:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                rc = main(["torchvision:" + m, "-o", base + ".xml"])
            except SystemExit as e:
                rc = e.code
    with open(base + ".rc", "w") as f:
        f.write("%s\n" % rc)
EOF
    wait $cli
    echo $? >"$TMP/resnet18.rc"

    expect_import() { # MODEL NEEDLE...: imported, and the summary line says each needle
        local m=$1
        shift
        [ "$(cat "$TMP/$m.rc")" = 0 ] || { fail "import $m: exit $(cat "$TMP/$m.rc")"; cat "$TMP/$m.err"; return; }
        for needle in "$@"; do
            grep -qF -- "$needle" "$TMP/$m.out" || fail "import $m: summary lacks '$needle': $(cat "$TMP/$m.out")"
        done
    }
    expect_import resnet18 "20 conv" "8 add" "11678912 weights" "0.0011 s a sample on V100-16GB"
    expect_import resnet101 "104 conv" "33 add" "44442816 weights" 'method="none"'
    expect_import vgg11 "8 conv" "3 fc" "2 dropout" "132851392 weights"
    expect_import inception_v3 "94 conv" "15 concat" "23799136 weights"
    expect_import mobilenet_v2 "52 conv" "10 add" "3469760 weights"
    [ "$(grep -c 'groups="' "$TMP/mobilenet_v2.xml")" = 17 ] || fail "mobilenet_v2: not 17 depthwise convolutions"
    grep -q 'inputs="' "$TMP/inception_v3.xml" || fail "inception_v3: no branch inputs"
    # ShuffleNet v2: each unit's chunk copies two halves and its shuffle one tensor (moves); the
    # halves meet again in a concat.
    expect_import shufflenet_v2_x0_5 "56 conv" "16 concat" "42 move" "1357840 weights"
    # Swin-T: 12 blocks of windowed attention, each Q K^T and A V a product of two activations;
    # the first stage's windows: (56/7)^2 = 64 windows x 3 heads = 192 products of 49x32 by 32x49.
    expect_import swin_t "24 matmul" "29 layernorm" "12 softmax" "28199424 weights"
    expect_import vit_b_16 "24 matmul" "25 layernorm" "12 softmax" "86292480 weights"
    grep -q 'type="matmul" x="32x49x192" y="49x49x192" inputs="[^"]*" m="49" n="49" k="32" products="192"' \
        "$TMP/swin_t.xml" || fail "swin_t: no Q K^T of 192 products 49x32 by 32x49"
    grep -q 'type="matmul" x="49x49x192" y="32x49x192" inputs="[^"]*" m="49" n="32" k="49" products="192"' \
        "$TMP/swin_t.xml" || fail "swin_t: no A V of 192 products 49x49 by 49x32"
    # Only the patch embedding is marked spatial: the region ends at the first layer that reshapes.
    [ "$(grep -c 'split="filter channel spatial"' "$TMP/swin_t.xml")" = 1 ] ||
        fail "swin_t: spatial marks after the first reshape"
    grep -q 'padding="1x0"\|padding="0x1"' "$TMP/inception_v3.xml" || fail "inception_v3: no padding per extent"
}

import_onnx() { # the small ONNX graphs, by the importer
    # ONNX: a small graph exercising the reader (Conv, BatchNormalization, Relu, a zero Pad folded
    # into an AveragePool, two branches concatenated, GlobalAveragePool, Flatten, Gemm), and one
    # with an operator the format has no type for.
    "$PY" - "$TMP" <<'EOF' || fail "building the ONNX test graphs"
import sys
import onnx
from onnx import TensorProto, helper as h

def graph(nodes, name, weights):
    inputs = [h.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 16, 16])]
    inputs += [h.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in weights]
    out = h.make_tensor_value_info(nodes[-1].output[0], TensorProto.FLOAT, None)
    model = h.make_model(h.make_graph(nodes, name, inputs, [out]),
                         opset_imports=[h.make_opsetid("", 13)])
    onnx.save(model, "%s/%s.onnx" % (sys.argv[1], name))

pads = h.make_tensor("pads", TensorProto.INT64, [8], [0, 0, 1, 1, 0, 0, 1, 1])
graph([h.make_node("Conv", ["x", "w1"], ["c1"], kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
       h.make_node("BatchNormalization", ["c1", "g", "b", "m", "v"], ["n1"]),
       h.make_node("Relu", ["n1"], ["r1"]),
       h.make_node("Constant", [], ["p"], value=pads),
       h.make_node("Pad", ["r1", "p"], ["pd"]),
       h.make_node("AveragePool", ["pd"], ["a1"], kernel_shape=[3, 3]),
       h.make_node("Conv", ["r1", "w2"], ["c2"], kernel_shape=[1, 1]),
       h.make_node("Concat", ["a1", "c2"], ["cat"], axis=1),
       h.make_node("GlobalAveragePool", ["cat"], ["gap"]),
       h.make_node("Flatten", ["gap"], ["flat"]),
       h.make_node("Gemm", ["flat", "fw", "fb"], ["y"], transB=1)],
      "tiny", [("w1", [8, 3, 3, 3]), ("g", [8]), ("b", [8]), ("m", [8]), ("v", [8]),
               ("w2", [4, 8, 1, 1]), ("fw", [10, 12]), ("fb", [10])])
graph([h.make_node("Conv", ["x", "w1"], ["c1"], kernel_shape=[1, 1]),
       h.make_node("Sigmoid", ["c1"], ["gate"])], "gated", [("w1", [8, 3, 1, 1])])
EOF
    if "$PY" "$IMPORT" "$TMP/tiny.onnx" -o "$TMP/tiny.xml" --sample-time-s 1e-4 --device V100-16GB \
        >"$TMP/out" 2>"$TMP/err"; then
        grep -qF "8 layers" "$TMP/out" || fail "tiny.onnx: $(cat "$TMP/out")"
        grep -q 'type="pool" x="8x16x16" kernel="3x3" y="8x16x16" stride="1" padding="1"' "$TMP/tiny.xml" ||
            fail "tiny.onnx: the Pad was not folded into the pool"
        grep -q 'type="concat" x="12x16x16" y="12x16x16" inputs=' "$TMP/tiny.xml" ||
            fail "tiny.onnx: no concat of the two branches"
    else
        fail "import tiny.onnx: $(cat "$TMP/err")"
    fi
}

importer_cli() { # import.py's --help and its refusals
    # --help describes every option: each argument of the parser has a help text.
    "$PY" - "$IMPORT" <<'PYEOF' >"$TMP/help" 2>&1 || fail "import.py --help: $(cat "$TMP/help")"
import argparse, runpy, sys
parsers = []
def catch(self, *args, **kwargs):  # the parser, caught before it parses
    parsers.append(self)
    raise SystemExit(0)
argparse.ArgumentParser.parse_args = catch
try:
    runpy.run_path(sys.argv[1])["arguments"](["--help"])
except SystemExit:
    pass
bare = [a.dest for a in parsers[0]._actions if not (a.help or "").strip()]
sys.exit("options without a description: %s" % bare if bare else 0)
PYEOF
    COLUMNS=100 "$PY" "$IMPORT" --help >"$TMP/help" 2>&1 || fail "import.py --help: exit $?"
    grep -q -- "--sample-time-s T *a measured forward+backward seconds" "$TMP/help" ||
        fail "import.py --help: $(cat "$TMP/help")"

    # Errors: exit 2, a message naming the cause, nothing on stdout, no file.
    bad_import() { # bad_import NEEDLE ARGS...: expect_bad of import.py ARGS -o bad.xml, no file
        local needle=$1
        shift
        expect_bad "import $*" "$needle" "$PY" "$IMPORT" "$@" -o "$TMP/bad.xml"
        [ -e "$TMP/bad.xml" ] || [ -e "$TMP/bad.xml.tmp" ] && fail "import $*: wrote a file"
    }
    bad_import "node 'gate' (Sigmoid)" "$TMP/gated.onnx"
    bad_import "no such file" "$TMP/missing.onnx"
    bad_import "--device" "$TMP/tiny.onnx" --sample-time-s 0.1
    bad_import "--sample-time-s" "$TMP/tiny.onnx" --sample-time-s 0 --device V100-16GB
    bad_import "--input" "$TMP/tiny.onnx" --input 3x16
}

if [ "$imported" = 1 ]; then
    import_models
    import_onnx
fi

# ViT-B/16 trains in mixed precision at 128 images a GPU on V100s of 32 GB (DeiT-B, the same
# network: facebookresearch/deit issue 77, "8 GPUs with batch size 128 per gpu", and issue 21,
# "V100 GPUs with 32GB of memory"; its main.py trains under torch.cuda.amp). Under
# pytorch-ddp's activation_memory = autograd (what autograd keeps, once) it fits; under
# ParaDL's rule, the default, every layer's |x| + |y| beside its gradient does not.
vit() { "$HS" analytic -w "$TMP/vit_b_16.xml" -p gen:dgx1:gpu=v100-sxm2-32gb -s data -g 8 \
    -b 1024 --precision mixed "$@" 2>&1 | grep 'memory per GPU'; }
vit --runtime pytorch-ddp | grep -q '(fits)' ||
    fail "vit_b_16 b128 a GPU under pytorch-ddp: $(vit --runtime pytorch-ddp)"
vit | grep -q 'DOES NOT FIT' || fail "vit_b_16 b128 a GPU, ParaDL's rule: $(vit)"

# Without a time, the measured times cannot time it: --compute measured is refused, saying why
# (by default the compute model times it, below).
"$HS" analytic -w "$TMP/vgg11.xml" -p abci -s data -g 4 -b 128 --compute measured >"$TMP/out" \
    2>"$TMP/err"
rc=$?
[ $rc = 2 ] || fail "analytic on an untimed workload: exit $rc"
[ -s "$TMP/out" ] && fail "analytic on an untimed workload printed on stdout"
grep -q 'vgg11.xml: the workload has no compute time' "$TMP/err" || fail "untimed: $(cat "$TMP/err")"
grep -q 'time it with --compute model' "$TMP/err" || fail "untimed: no word of --compute model"

# With a time (resnet18's own, the others' written in), analytic and simulate run data and
# filter parallelism on one 4-GPU node, and agree on data parallelism (NVLink, no contention).
"$HS" platform --nodes 1 --nodes-per-leaf 1 --leaves-per-rack 1 -o "$TMP/node.xml" ||
    fail "generating a one-node platform"
# The compute model times it: every model, data and filter, analytic and simulated alike.
for w in vgg11 resnet101 inception_v3 mobilenet_v2 shufflenet_v2_x0_5 swin_t; do
    for s in data filter spatial; do
        [ $s = spatial ] && [ "${w#s}" = "$w" ] && continue # spatial: the two token networks
        a=$("$HS" analytic -w "$TMP/$w.xml" -p "$TMP/node.xml" -s $s -g 4 -b 128 --compute model \
            --json 2>"$TMP/err" | python3 -c 'import json,sys; print(json.load(sys.stdin)["iteration"]["total_s"])') ||
            { fail "analytic --compute model $w $s: $(cat "$TMP/err")"; continue; }
        r=$("$HS" simulate -w "$TMP/$w.xml" -p "$TMP/node.xml" -s $s -g 4 -b 128 --compute model \
            --json 2>"$TMP/err" | python3 -c 'import json,sys; print(json.load(sys.stdin)["iteration"]["total_s"])') ||
            { fail "simulate --compute model $w $s: $(cat "$TMP/err")"; continue; }
        python3 -c "import sys; sys.exit(0 if 0 < $a and 0 < $r else 1)" ||
            fail "$w $s --compute model: analytic $a s, simulated $r s"
    done
done
for m in resnet101 vgg11 inception_v3 mobilenet_v2; do
    sed 's|<calibration method="none"/>|<calibration device="V100-16GB" sample_time_s="0.002"/>|' \
        "$TMP/$m.xml" >"$TMP/$m-timed.xml"
done
total() { "$PY" -c 'import json,sys; print(json.load(sys.stdin)["iteration"]["total_s"])'; }
for w in resnet18.xml resnet101-timed.xml vgg11-timed.xml inception_v3-timed.xml mobilenet_v2-timed.xml; do
    for s in "data -b 128" "filter -b 32"; do
        # shellcheck disable=SC2086
        a=$("$HS" analytic -w "$TMP/$w" -p "$TMP/node.xml" -s $s -g 4 --json 2>"$TMP/err" | total) ||
            { fail "analytic $w $s: $(cat "$TMP/err")"; continue; }
        # shellcheck disable=SC2086
        r=$("$HS" simulate -w "$TMP/$w" -p "$TMP/node.xml" -s $s -g 4 --json 2>"$TMP/err" | total) ||
            { fail "simulate $w $s: $(cat "$TMP/err")"; continue; }
        "$PY" -c "import sys; a, r = $a, $r; sys.exit(0 if a > 0 and r > 0 else 1)" ||
            fail "$w $s: iteration analytic $a s, simulated $r s"
        if [ "${s%% *}" = data ]; then
            "$PY" -c "import sys; sys.exit(0 if abs($a - $r) <= 1e-6 * $a else 1)" ||
                fail "$w data: analytic $a s and simulated $r s differ"
        fi
    done
done

# tiny.onnx's workload runs.
"$HS" simulate -w "$TMP/tiny.xml" -p "$TMP/node.xml" -s data -g 2 -b 8 >/dev/null 2>"$TMP/err" ||
    fail "simulate tiny.onnx's workload: $(cat "$TMP/err")"

if [ "$imported" = 1 ]; then
    importer_cli
    # kept for a sanitized run (above), only when every check passed: whole or not at all
    if [ "$failures" -eq 0 ] && rm -rf "$keep.new" && mkdir -p "$keep.new"; then
        for m in "${KEPT[@]}"; do cp "$TMP/$m.xml" "$keep.new/"; done
        echo "$stamp" >"$keep.new/stamp"
        rm -rf "$keep" && mv "$keep.new" "$keep"
    fi
fi

finish e2e_import
