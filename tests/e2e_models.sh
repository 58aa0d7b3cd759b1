#!/usr/bin/env bash
# e2e_models.sh: experiments/import/models.py --check on a few torchvision models whose rows of
# experiments/import/README.md exercise what the format added for them: DenseNet's wide
# concatenations, EfficientNet's SiLU, squeeze-and-excitation and stochastic depth,
# MobileNetV3's hardswish and hardsigmoid, RegNetY's grouped convolutions with SE, MNASNet's
# mean; ConvNeXt's layer norm over channels-last tensors and layer scale, ShuffleNet v2's
# channel split and shuffle, ViT's and Swin's attention (products of activations, softmax,
# permutes and window partitions copied). Each row (imports, simulates, seconds an iteration on
# one V100, or why not) as the README says.
# The importer is Python, which the sanitizers do not watch: a plain run keeps its imports
# (models.py --keep, in its build's tests/imported/models with a stamp of the importer's
# sources, when the rows match) and a run given HS_TEST_IMPORTED (the sanitized half of
# tests/run.sh --ci: the plain build's tests/imported) checks the same rows from them
# (models.py --imported: hybridsim's simulations only, no torch), as e2e_import does.
# Usage (from ctest): e2e_models.sh HYBRIDSIM SOURCE_DIR SHARED_DIR
set -uo pipefail
HS="$1" SRC="$2"
source "$(dirname "${BASH_SOURCE[0]}")/lib_e2e.sh"
ONLY=densenet121,efficientnet_b0,mobilenet_v3_small,regnet_y_400mf,mnasnet0_5,resnet18,convnext_tiny,shufflenet_v2_x0_5,vit_b_32,swin_t
stamp="$(cat "$SRC"/experiments/import/*.py | sha256sum | cut -d' ' -f1)"
from="${HS_TEST_IMPORTED:+$HS_TEST_IMPORTED/models}" keep="$(dirname "$HS")/tests/imported/models"
if [ -n "$from" ] && [ "$(cat "$from/stamp" 2>/dev/null)" = "$stamp" ]; then
    echo "e2e_models: the imports as $from has them (checked by the run that kept them)"
    how=(--imported "$from")
else
    rm -rf "$keep" # what an earlier run kept is not this one's
    need_python torch torchvision onnx
    how=(--keep "$TMP/kept")
fi
/usr/bin/python3 "$SRC/experiments/import/models.py" --hybridsim "$HS" --check --only "$ONLY" \
    "${how[@]}" >"$TMP/out" 2>&1 || fail "models.py --check: $(cat "$TMP/out")"
grep -q "10 of 10 rows as README.md says" "$TMP/out" || fail "rows: $(cat "$TMP/out")"
if [ "${how[0]}" = --keep ] && [ "$failures" -eq 0 ]; then # whole or not at all
    echo "$stamp" >"$TMP/kept/stamp"
    mkdir -p "$(dirname "$keep")" && rm -rf "$keep" && mv "$TMP/kept" "$keep"
fi
finish e2e_models
