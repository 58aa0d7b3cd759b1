#!/usr/bin/env python3
"""nnunet_pytorch.py: writes NVIDIA DeepLearningExamples' PyTorch nnU-Net, 2D and 3D, as
hybridsim workloads (workloads/nnunet-2d.xml, workloads/nnunet-3d.xml), layer by layer as its
benchmark builds it for the task its README's throughputs ran (MSD Task01 BrainTumour) at
DeepLearningExamples 729963dd (the snapshot ../shared/reference/measured/dle-throughput.tsv was
read from), through MONAI 1.0.0's DynUNet (the version its Dockerfile installs). No time
(calibration method none): the compute model times them. Usage:
  experiments/import/nnunet_pytorch.py [OUTDIR]   (default: workloads/, where they are committed)

Every shape is cited in the workload's description (file:line at 729963dd under
PyTorch/Segmentation/nnUNet/, and MONAI 1.0.0's monai/networks/). The format has no leaky ReLU
and no instance normalisation: they are written as relu and bnorm, which stream the same
elements (workloads/README.md says why). Biases are left out, as the format leaves every
convolution's out; the parameter count in the description includes them and the norms' scales
and shifts, as PyTorch's model has them.
"""

import os
import sys

import netxml
from netxml import fmt

HERE = os.path.dirname(os.path.abspath(__file__))

SOURCE = "DeepLearningExamples@729963dd PyTorch/Segmentation/nnUNet/"
MONAI = "MONAI 1.0.0 monai/networks/"

# Task01_BrainTumour (data_preprocessing/configs.py:16): its patch sizes (:31 3D, :43 2D) and
# target spacings (:57, :69); 4 MRI modalities in, 4 label classes out (the MSD dataset.json
# the preprocessor reads, data_preprocessing/preprocessor.py:87-88; no --ohe in the README's
# preprocessing, README.md:194-195).
TASK = {2: ([192, 160], [1.0, 1.0]), 3: ([128, 128, 128], [1.0, 1.0, 1.0])}
IN_CHANNELS, OUT_CHANNELS = 4, 4
DEPTH, MIN_FMAP = 5, 4  # utils/args.py:83-84, --depth and --min_fmap defaults


def unet_params(dim):
    """nnunet/nn_unet.py:139-159 get_unet_params: the kernels and strides from the patch size
    and the spacings."""
    patch, spacings = TASK[dim]
    strides, kernels, sizes = [], [], patch[:]
    while True:
        ratio = [s / min(spacings) for s in spacings]
        stride = [2 if r <= 2 and size >= 2 * MIN_FMAP else 1 for r, size in zip(ratio, sizes)]
        kernel = [3 if r <= 2 else 1 for r in ratio]
        if all(s == 1 for s in stride):
            break
        sizes = [i / j for i, j in zip(sizes, stride)]
        spacings = [i * j for i, j in zip(spacings, stride)]
        kernels.append(kernel)
        strides.append(stride)
        if len(strides) == DEPTH:
            break
    strides.insert(0, len(spacings) * [1])
    kernels.append(len(spacings) * [3])
    return kernels, strides, patch


def build(dim):
    """DynUNet (monai/networks/nets/dynunet.py) as nnunet/nn_unet.py:184-198 builds it: no
    deep supervision, no residual blocks (the benchmark passes neither), instance norm, leaky
    ReLU."""
    kernels, strides, patch = unet_params(dim)
    filters = [min(2 ** (5 + i), 320 if dim == 3 else 512) for i in range(len(strides))]
    n = netxml.Net(tuple([IN_CHANNELS] + patch))
    params = [0]

    def conv(ident, f, k, s, x_from=None):
        x = n.shape[x_from or n.last]
        pad = [(kk - ss + 1) // 2 for kk, ss in zip(k, s)]  # dynunet_block.py get_padding
        y = tuple([f] + [(e + 2 * p - kk) // ss + 1 for e, p, kk, ss in zip(x[1:], pad, k, s)])
        a = {"w": "x".join(str(v) for v in [x[0], f] + k)}
        if any(ss != 1 for ss in s):
            a["stride"] = "x".join(map(str, s)) if len(set(s)) > 1 else str(s[0])
        if any(pad):
            a["padding"] = "x".join(map(str, pad)) if len(set(pad)) > 1 else str(pad[0])
        params[0] += x[0] * f * prod(k)
        return n.add(ident, "conv", y, x_from, **a)

    def norm_act(tag, i):
        y = n.shape[n.last]
        params[0] += 2 * y[0]  # the instance norm's affine scale and shift
        n.add(tag + "_norm%d" % i, "bnorm", y)
        return n.add(tag + "_lrelu%d" % i, "relu", y)

    def basic_block(tag, f, k, s, x_from=None):  # dynunet_block.py:142-175 UnetBasicBlock
        conv(tag + "_conv1", f, k, s, x_from)
        norm_act(tag, 1)
        conv(tag + "_conv2", f, k, [1] * dim)
        return norm_act(tag, 2)

    skips = [basic_block("input", filters[0], kernels[0], strides[0])]
    for i in range(1, len(filters) - 1):
        skips.append(basic_block("down%d" % i, filters[i], kernels[i], strides[i]))
    basic_block("bottleneck", filters[-1], kernels[-1], strides[-1])
    ups = list(zip(filters[:-1][::-1], kernels[1:][::-1], strides[1:][::-1]))
    for i, (f, k, s) in enumerate(ups):  # dynunet_block.py:212-242 UnetUpBlock
        tag = "up%d" % (i + 1)
        x = n.shape[n.last]
        y = tuple([f] + [e * ss for e, ss in zip(x[1:], s)])
        n.add(tag + "_deconv", "deconv", y, w="x".join(str(v) for v in [x[0], f] + s),
              stride=str(s[0]) if len(set(s)) == 1 else "x".join(map(str, s)))
        params[0] += x[0] * f * prod(s) + f  # trans_bias=True
        skip = skips.pop()
        c = y[0] + n.shape[skip][0]
        cat = tuple([c] + list(y[1:]))
        n.add(tag + "_concat", "concat", cat, inputs=[n.last, skip])
        basic_block(tag, f, k, [1] * dim)
    conv("output_conv", OUT_CHANNELS, [1] * dim, [1] * dim)  # UnetOutBlock, a 1x1 convolution
    params[0] += OUT_CHANNELS  # with its bias
    # The loss, MONAI's DiceCELoss over the output (nnunet/loss.py:27): the Dice term's softmax
    # over the classes (dice.py:137) and the cross-entropy's log-softmax and NLL (dice.py:
    # 696-702), each a softmax over the output's elements
    out = n.last
    n.add("loss_dice_softmax", "softmax", n.shape[out], x_from=out)
    n.add("loss_ce", "softmax", n.shape[out], x_from=out)
    n.params = params[0]
    return n, kernels, strides, filters


def prod(values):
    p = 1
    for v in values:
        p *= v
    return p


def description(dim, kernels, strides, filters, net):
    patch = TASK[dim][0]
    sizes, extents = [], patch[:]
    for s in strides:
        extents = [e // ss for e, ss in zip(extents, s)]
        sizes.append("x".join(map(str, extents)))
    common = (
        "PyTorch nnU-Net of NVIDIA DeepLearningExamples (" + SOURCE + "), %dD, as "
        "scripts/benchmark.py trains it for the README's throughputs (README.md:539, :562: "
        "`scripts/benchmark.py --mode train --dim %d`; benchmark.py:21 --task 01, MSD "
        "Task01_BrainTumour, data_preprocessing/configs.py:16), written by "
        "experiments/import/nnunet_pytorch.py. Network: MONAI's DynUNet (nnunet/nn_unet.py:"
        "184-198; Dockerfile:6 monai==1.0.0). Input %dx%s: 4 MRI modalities "
        "(preprocessor.py:88 in_channels, no --ohe: README.md:194-195), patch %s "
        "(configs.py:%d), spacing %s (configs.py:%d). Kernels %s and strides %s: "
        "nn_unet.py:139-159 get_unet_params (a stride 2 where the spacing ratio is at most 2 "
        "and the extent at least 2 x min_fmap 4, at most depth 5 times: utils/args.py:83-84). "
        "Filters %s: "
        "" + MONAI + "nets/dynunet.py:162 (min(2^(5+i), %d); nn_unet.py:191 --filters not "
        "given). Blocks: dynunet.py:277-315; each UnetBasicBlock (blocks/dynunet_block.py:"
        "142-175) a convolution with the block's stride, a norm, a leaky ReLU, a convolution of "
        "stride 1, a norm, a leaky ReLU; padding (k - s + 1) / 2 with k 3, s 1 or 2 "
        "(dynunet_block.py:301-312): 1, halving the extents %s. Up blocks (dynunet_block.py:"
        "212-242): a transposed convolution of kernel and stride 2 (upsample_kernel_size = "
        "strides[1:], nn_unet.py:190; padding and output padding 0, :301-327), with a bias "
        "(trans_bias=True, nn_unet.py:197), concatenated before the skip connection "
        "(torch.cat((out, skip)), :240), then a UnetBasicBlock of stride 1. Output: a 1x1 "
        "convolution to 4 classes with a bias (UnetOutBlock, :246-261; the labels of "
        "Task01, n_class = 4 - 1, nn_unet.py:177; --brats not given). No deep supervision heads "
        "(utils/args.py:59 store_true, benchmark.py:40-56 does not pass it), no residual blocks "
        "(args.py:86). Norm: instance normalisation with an affine scale and shift "
        "(nn_unet.py:192, args.py:91-96 default instance; benchmark.py:55-56 instance_nvfuser "
        "and NDHWC for 3D under AMP), written as bnorm: the same elements read and written, "
        "the statistics a sample's and channel's instead of a channel's. Activation: leaky "
        "ReLU of slope 0.01 (nn_unet.py:193), written as relu: the same elements. Biases are "
        "left out (the format has none); with them and the norms' scales and shifts the "
        "network has %d parameters. FusedAdam (nn_unet.py:293, args.py:122-126). Loss: "
        "MONAI's DiceCELoss(include_background=False, softmax=True, to_onehot_y=True, "
        "batch=True) over the output (nnunet/loss.py:27, nn_unet.py:91; MONAI 1.0.0 "
        "monai/losses/dice.py): the Dice term's softmax over the 4 classes (dice.py:137) and "
        "the cross-entropy's log-softmax and NLL (nn.CrossEntropyLoss, dice.py:696-702), each "
        "a softmax layer over the output (loss_dice_softmax, loss_ce). Left out: the labels' "
        "one-hot (monai/networks/utils.py one_hot, a scatter into zeros) and long casts, the "
        "Dice term's product and three sums over the 3 foreground channels (dice.py:148-172; "
        "no reduction layer type), FP32 under autocast (softmax and cross-entropy autocast to "
        "FP32: the format keeps one precision). ")
    lines = (31, 57) if dim == 3 else (43, 69)
    return common % (
        dim, dim, IN_CHANNELS, "x".join(map(str, patch)), "x".join(map(str, patch)), lines[0],
        "x".join("1" for _ in patch), lines[1], kernels, strides, filters,
        320 if dim == 3 else 512, ", ".join(sizes[1:]), net.params)


DATASET = {
    2: ("In benchmark mode a training step takes its batch of 2D slices from one volume "
        "(data_loading/dali_loader.py:259-262: one volume, patch [batch] + 192x160) and the "
        "model sees them as the batch (nn_unet.py:309-322 layout_2d); the throughput is the "
        "global batch over the step's time (main.py:81, utils/logger.py:90), slices a second. "
        "Dataset: the slices of fold 0's 387 training volumes (484 in Task01, the MSD's "
        "count, not stated in DeepLearningExamples; 5 folds: args.py:65, data_module.py:56 and "
        ":93-94), 155 slices each (BraTS's 240x240x155 volumes, before the preprocessor crops "
        "their background; not stated in DeepLearningExamples): 387 x 155; only throughputs "
        "use this workload."),
    3: ("A sample is a 128x128x128 patch of a volume (dali_loader.py:76-77, 208-219 the "
        "benchmark's crop); the throughput is the global batch over the step's time (main.py:81, "
        "utils/logger.py:90), patches a second. Dataset: the 387 training volumes of fold 0 "
        "(484 in Task01, the MSD's count, not stated in DeepLearningExamples; 5 folds: "
        "args.py:65, data_module.py:56 and :93-94), a patch each an epoch.")}
SAMPLES = {2: 387 * 155, 3: 387}


def write(net, dim, path):
    text = description(dim, net.kernels, net.strides, net.filters, net) + DATASET[dim]
    netxml.write(path, "nnunet-%dd" % dim, text, "MSD Task01 BrainTumour", SAMPLES[dim],
                 fmt(net.shape["data"]), net.layers)


def main(argv):
    out = netxml.outdir(argv, __doc__, os.path.join(HERE, "..", "..", "workloads"))
    report = []
    for dim in (2, 3):
        net, kernels, strides, filters = build(dim)
        net.kernels, net.strides, net.filters = kernels, strides, filters
        write(net, dim, os.path.join(out, "nnunet-%dd.xml" % dim))
        report.append("nnunet-%dd: %d layers, %d parameters" % (dim, len(net.layers),
                                                                net.params))
    print("; ".join(report))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
