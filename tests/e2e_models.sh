#!/usr/bin/env bash
# e2e_models.sh: experiments/import/models.py --check on a few torchvision models whose rows of
# experiments/import/README.md exercise what the format added for them: DenseNet's wide
# concatenations, EfficientNet's SiLU, squeeze-and-excitation and stochastic depth,
# MobileNetV3's hardswish and hardsigmoid, RegNetY's grouped convolutions with SE, MNASNet's
# mean; ConvNeXt's layer norm over channels-last tensors and layer scale, ShuffleNet v2's
# channel split and shuffle, ViT's and Swin's attention (products of activations, softmax,
# permutes and window partitions copied). Each row (imports, simulates, seconds an iteration on
# one V100, or why not) as the README says.
# Usage (from ctest): e2e_models.sh HYBRIDSIM SOURCE_DIR SHARED_DIR
set -uo pipefail
HS="$1" SRC="$2"
source "$(dirname "${BASH_SOURCE[0]}")/lib_e2e.sh"
need_python torch torchvision onnx
/usr/bin/python3 "$SRC/experiments/import/models.py" --hybridsim "$HS" --check \
    --only densenet121,efficientnet_b0,mobilenet_v3_small,regnet_y_400mf,mnasnet0_5,resnet18,convnext_tiny,shufflenet_v2_x0_5,vit_b_32,swin_t \
    >"$TMP/out" 2>&1 || fail "models.py --check: $(cat "$TMP/out")"
grep -q "10 of 10 rows as README.md says" "$TMP/out" || fail "rows: $(cat "$TMP/out")"
finish e2e_models
