#!/usr/bin/env python3
"""unet_tf1.py: writes the two TensorFlow 1 U-Nets of NVIDIA's DeepLearningExamples as
hybridsim workloads (workloads/unet-medical.xml, workloads/unet-industrial.xml), layer by
layer as their model code builds them at DeepLearningExamples 729963dd (the snapshot
../shared/reference/measured/dle-throughput.tsv was read from). No time (calibration method
none): the compute model times them. Usage:
  experiments/import/unet_tf1.py [OUTDIR]   (default: workloads/, where they are committed)

Every shape is cited in the workload's description (file:line at 729963dd, paths under
TensorFlow/Segmentation/). Biases are left out, as the format leaves every convolution's out
(workloads/README.md); the parameter counts printed by --check include them, to compare with
the sources' own counts.
"""

import os
import sys

import netxml

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = "DeepLearningExamples@729963dd TensorFlow/Segmentation/"


class Net(netxml.Net):
    """netxml's builder, a convolution's w given as (C, F, KH, KW) and its weights counted
    with a bias an output channel."""

    def add(self, ident, type_, y, x_from=None, inputs=None, **attrs):
        if "w" in attrs:
            c, f, kh, kw = attrs["w"]
            attrs["w"] = "%dx%dx%dx%d" % (c, f, kh, kw)
            self.params += c * f * kh * kw + f  # weights and a bias an output channel
        return super().add(ident, type_, y, x_from, inputs, **attrs)

    def conv(self, ident, f, k, same, x_from=None):
        c, h, w = self.shape[x_from or self.last]
        pad = {"padding": "same"} if same else {}
        y = (f, h, w) if same else (f, h - k + 1, w - k + 1)
        return self.add(ident, "conv", y, x_from, w=(c, f, k, k), **pad)

    def relu(self, ident):
        return self.add(ident, "relu", self.shape[self.last])

    def pool(self, ident):
        c, h, w = self.shape[self.last]
        return self.add(ident, "pool", (c, h // 2, w // 2), kernel="2x2", stride=2)



def medical():
    """UNet_Medical (model/layers.py, model/unet.py): unpadded 3x3 convolutions, 3x3
    transposed convolutions of stride 2, skip connections cropped to the decoder's extents."""
    n = Net((1, 572, 572))

    def two_convs(tag, f):
        n.conv(tag + "_conv1", f, 3, False)
        n.relu(tag + "_relu1")
        n.conv(tag + "_conv2", f, 3, False)
        return n.relu(tag + "_relu2")

    def deconv(tag, f):
        c, h, w = n.shape[n.last]
        n.add(tag + "_deconv", "deconv", (f, 2 * h, 2 * w), w=(c, f, 3, 3), stride=2,
              padding="same")
        return n.relu(tag + "_deconv_relu")

    def crop_concat(tag, skip):
        c, h, w = n.shape[n.last]
        up = n.last
        n.add(tag + "_crop", "move", (n.shape[skip][0], h, w), x_from=skip)
        return concat(n, tag + "_concat", [up, tag + "_crop"])

    skips = [two_convs("input", 64)]
    n.pool("input_pool")
    for i, f in enumerate([128, 256, 512]):
        skips.append(two_convs("down%d" % i, f))
        n.pool("down%d_pool" % i)
    two_convs("bottleneck", 1024)
    n.add("bottleneck_dropout", "dropout", n.shape[n.last])
    deconv("bottleneck", 512)
    for i, f in enumerate([512, 256, 128]):
        crop_concat("up%d" % i, skips.pop())
        two_convs("up%d" % i, f)
        deconv("up%d" % i, f // 2)
    crop_concat("output", skips.pop())
    two_convs("output", 64)
    n.conv("output_conv3", 2, 1, False)
    n.add("softmax", "softmax", n.shape[n.last])
    return n


def concat(n, ident, inputs):
    c = sum(n.shape[i][0] for i in inputs)
    _, h, w = n.shape[inputs[0]]
    return n.add(ident, "concat", (c, h, w), inputs=inputs)


def industrial():
    """UNet_Industrial, the tinyUNet its benchmark scripts train (model/unet.py, model/blocks,
    model/layers): 'same' 3x3 convolutions in NCHW, each up-convolution a nearest-neighbour
    upscale (upsample, between two transposes to NHWC and back) and a 2x2 'same' convolution."""
    n = Net((1, 512, 512))
    n.add("input_transpose", "move", (1, 512, 512))  # NHWC -> NCHW

    def two_convs(tag, f1, f2):
        n.conv(tag + "_conv1", f1, 3, True)
        n.relu(tag + "_act1")
        n.conv(tag + "_conv2", f2, 3, True)
        return n.relu(tag + "_act2")

    def deconv(tag, f):
        c, h, w = n.shape[n.last]
        n.add(tag + "_to_nhwc", "move", (c, h, w))
        n.add(tag + "_upscale", "upsample", (c, 2 * h, 2 * w))
        n.add(tag + "_to_nchw", "move", (c, 2 * h, 2 * w))
        n.conv(tag + "_upconv", f, 2, True)
        return n.relu(tag + "_act3")

    skips = [two_convs("input", 32, 32)]
    n.pool("input_pool")
    for i, f in enumerate([32, 64, 128]):
        skips.append(two_convs("down%d" % (i + 1), f, f))
        n.pool("down%d_pool" % (i + 1))
    two_convs("bottleneck", 256, 256)
    deconv("bottleneck", 128)
    for i, f in enumerate(reversed([32, 64, 128])):
        tag = "up%d" % (i + 1)
        concat(n, tag + "_concat", [n.last, skips.pop()])
        two_convs(tag, f, f // 2)
        deconv(tag, f // 2)
    concat(n, "output_concat", [n.last, skips.pop()])
    two_convs("output", 32, 32)
    n.conv("output_conv3", 1, 1, True)
    n.add("output_transpose", "move", (1, 512, 512))  # NCHW -> NHWC
    n.add("sigmoid", "sigmoid", (1, 512, 512))
    return n


MEDICAL_DESCRIPTION = (
    "UNet_Medical of NVIDIA DeepLearningExamples (" + SOURCE + "UNet_Medical, TensorFlow 1, "
    "channels last), written by experiments/import/unet_tf1.py. Input 1x572x572: "
    "utils/data_loader.py:91-93 (resized to 388x388, padded to 572x572, one grey channel). "
    "Filters: model/unet.py:35 (64), :39 (128, 256, 512), :43 (1024), :45 (512, 256, 128), "
    ":50 (64, 2 classes). Encoder blocks (input, down0-2): model/layers.py:192-200 and 57-65, "
    "two unpadded 3x3 convolutions with ReLU (tf.layers.conv2d's default padding 'valid'), a "
    "2x2 max pool of stride 2: 570, 568; 284, 282, 280; 140, 138, 136; 68, 66, 64; 32. "
    "Bottleneck: model/layers.py:118-136, two 3x3 convolutions (30, 28), dropout 0.5 (:129), "
    "a 3x3 transposed convolution of stride 2, padding 'same', with ReLU (:131-136): 56. "
    "Decoder blocks (up0-2): model/layers.py:82 and 35-36, the skip connection centrally "
    "cropped to the decoder's extents (tf.image.central_crop: a copy, type move) and "
    "concatenated after the decoder's channels; :85-98, two 3x3 convolutions (54, 52; 102, "
    "100; 198, 196) and a 3x3 transposed convolution of stride 2 to half the filters (104, "
    "200, 392). Output: model/layers.py:156-171, crop and concatenate (128x392x392), two 3x3 "
    "convolutions (390, 388) and a 1x1 convolution to 2 classes; softmax cross-entropy and "
    "dice over the classes (utils/model_fn.py:84-94). Dataset: the ISBI 2012 EM stack, 30 "
    "images (README.md:201), 80%% of which train a fold (utils/data_loader.py:68-78): 24. "
    "Biases are left out (the format has none); with them the network has %d parameters. "
    "Adam (utils/model_fn.py:103); XLA (examples/unet_TRAIN_BENCHMARK*.sh --xla) is not "
    "modelled.")

INDUSTRIAL_DESCRIPTION = (
    "UNet_Industrial of NVIDIA DeepLearningExamples (" + SOURCE + "UNet_Industrial, "
    "TensorFlow 1), the tinyUNet variant its benchmarks train "
    "(scripts/benchmarking/UNet_trainbench_1GPU.sh:29 --unet_variant='tinyUNet', :40 "
    "--data_format='NCHW'), written by experiments/import/unet_tf1.py. Input 1x512x512: "
    "model/unet.py:433 (resize_image_with_crop_or_pad to 512x512, DAGM 2007's grey images), "
    "transposed from NHWC (main.py:63 input_format) to NCHW (model/unet.py:441). Filters: "
    "model/unet.py:72-76 (input 32, blocks 32, 64, 128, bottleneck 256, output 32). Input "
    "and encoder blocks: model/blocks/unet_io_blocks.py:36-74 and "
    "model/blocks/unet_downsample.py:42-80, two 3x3 'same' convolutions with ReLU "
    "(--activation_fn='relu', UNet_trainbench_1GPU.sh:30), a 2x2 max pool of stride 2: 512, "
    "256, 128, 64, 32. Bottleneck: model/blocks/unet_bottleneck.py:36-82, two 3x3 "
    "convolutions of 256 and an up-convolution to 128 with ReLU. The up-convolution "
    "(model/layers/deconv2d.py:41 use_upscale_conv=True, :54-70) is a nearest-neighbour "
    "upscale by 2 (model/layers/array_ops.py:69-104: NCHW transposed to NHWC, "
    "tf.image.resize_images with NEAREST_NEIGHBOR, type upsample, transposed back: two copies, "
    "type move) and a 2x2 'same' "
    "convolution of stride 1. Decoder blocks (model/unet.py:485-488 filters 128, 64, 32; "
    "model/blocks/unet_upsample.py:51-99): the skip connection concatenated after the "
    "decoder's channels, a 3x3 convolution to the filters, a 3x3 convolution to half of "
    "them, an up-convolution to half of them: 64, 128, 256, 512. Output "
    "(model/blocks/unet_io_blocks.py:95-136): concatenate (48x512x512), two 3x3 "
    "convolutions of 32, a 1x1 convolution to one channel (runtime/runner.py:195 "
    "n_output_channels=1), transposed back to NHWC and a sigmoid (model/unet.py:508-510). "
    "Biases are left out (the format has none); with them the layers as the code builds them "
    "have %d parameters (model/unet.py:72's comment says 1,824,945 for tinyUNet, and :66 "
    "36,950,273 for the original, which the same reading puts at 29,137,793: the comments "
    "are not this code's). Dataset: one DAGM 2007 class's 150 defective "
    "training images (runtime/runner.py:451 only_defective_images=True; the count is DAGM "
    "2007's, classes 1-6, not stated in DeepLearningExamples; only throughputs use this "
    "workload). Centered RMSProp with momentum (model/unet.py:376); XLA "
    "(UNet_trainbench_1GPU.sh:43 --xla) is not modelled.")


def write(net, name, dataset, samples, sample, description, path):
    netxml.write(path, name, description % net.params, dataset, samples, sample, net.layers)


def main(argv):
    out = netxml.outdir(argv, __doc__, os.path.join(HERE, "..", "..", "workloads"))
    med, ind = medical(), industrial()
    write(med, "unet-medical", "ISBI 2012 EM segmentation", 24, "1x572x572",
          MEDICAL_DESCRIPTION, os.path.join(out, "unet-medical.xml"))
    write(ind, "unet-industrial", "DAGM 2007", 150, "1x512x512", INDUSTRIAL_DESCRIPTION,
          os.path.join(out, "unet-industrial.xml"))
    print("unet-medical: %d layers, %d parameters with biases; unet-industrial: %d layers, %d" %
          (len(med.layers), med.params, len(ind.layers), ind.params))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
