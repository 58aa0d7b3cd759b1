#!/usr/bin/env python3
"""ssd_pytorch.py: writes NVIDIA DeepLearningExamples' PyTorch SSD300 v1.1 (ResNet-50
backbone) as a hybridsim workload (workloads/ssd300.xml), layer by layer as its model code
builds it at DeepLearningExamples 729963dd (the snapshot ../shared/reference/measured/
dle-throughput.tsv was read from), with its loss's layers over the 8732 anchors. No time
(calibration method none): the compute model times it. Usage:
  experiments/import/ssd_pytorch.py [OUTDIR]   (default: workloads/, where it is committed)

Every shape is cited in the workload's description (file:line at 729963dd, paths under
PyTorch/Detection/SSD/). Biases are left out, as the format leaves every convolution's out
(workloads/README.md); the parameter count printed includes them and the batch
normalisations' scales and shifts, to compare with the model's own.
"""

import os
import sys

import netxml

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = "DeepLearningExamples@729963dd PyTorch/Detection/SSD/"
CLASSES = 81                                  # ssd/model.py:61
FEATURE_CHANNELS = [1024, 512, 512, 256, 256, 256]  # ssd/model.py:31
EXTRA_CHANNELS = [256, 256, 128, 128, 128]    # ssd/model.py:77
ANCHORS_PER_CELL = [4, 6, 6, 6, 4, 4]         # ssd/model.py:63, ssd/utils.py:249-254


class Net(netxml.Net):
    """netxml's builder with the layers SSD300 repeats."""

    def conv(self, ident, f, k, stride=1, pad=0, bias=False, x_from=None):
        c, h, w = self.shape[x_from or self.last]
        y = (f, (h + 2 * pad - k) // stride + 1, (w + 2 * pad - k) // stride + 1)
        self.params += c * f * k * k + (f if bias else 0)
        attrs = {"w": "%dx%dx%dx%d" % (c, f, k, k)}
        if stride != 1:
            attrs["stride"] = stride
        if pad:
            attrs["padding"] = pad
        return self.add(ident, "conv", y, x_from, **attrs)

    def bnorm(self, ident):
        self.params += 2 * self.shape[self.last][0]
        return self.add(ident, "bnorm", self.shape[self.last])

    def relu(self, ident):
        return self.add(ident, "relu", self.shape[self.last])


def bottleneck(n, tag, width, out, stride, project):
    """torchvision's Bottleneck (ResNet v1.5: the stride on the 3x3), as resnet50-v1.5.xml."""
    block_in = n.last
    n.conv(tag + "_conv1", width, 1)
    n.bnorm(tag + "_bn1")
    n.relu(tag + "_relu1")
    n.conv(tag + "_conv2", width, 3, stride, 1)
    n.bnorm(tag + "_bn2")
    n.relu(tag + "_relu2")
    n.conv(tag + "_conv3", out, 1)
    main = n.bnorm(tag + "_bn3")
    shortcut = block_in
    if project:
        n.conv(tag + "_downsample_0", out, 1, stride, x_from=block_in)
        shortcut = n.bnorm(tag + "_downsample_1")
    n.add(tag + "_add", "add", n.shape[main], inputs=[main, shortcut])
    return n.relu(tag + "_relu3")


def ssd300():
    n = Net((3, 300, 300))
    # The backbone: torchvision resnet50's children up to layer3 (ssd/model.py:42)
    n.conv("conv1", 64, 7, 2, 3)
    n.bnorm("bn1")
    n.relu("relu")
    n.add("maxpool", "pool", (64, 75, 75), kernel="3x3", stride=2, padding=1)
    for stage, blocks, width, stride in ((1, 3, 64, 1), (2, 4, 128, 2), (3, 6, 256, 1)):
        for b in range(blocks):
            bottleneck(n, "layer%d_%d" % (stage, b), width, 4 * width,
                       stride if b == 0 else 1, b == 0)
    feeds = [n.last]
    # The additional blocks (ssd/model.py:75-97)
    for i, (cin, cout, mid) in enumerate(zip(FEATURE_CHANNELS[:-1], FEATURE_CHANNELS[1:],
                                             EXTRA_CHANNELS)):
        tag = "additional%d" % i
        n.conv(tag + "_conv1", mid, 1)
        n.bnorm(tag + "_bn1")
        n.relu(tag + "_relu1")
        if i < 3:
            n.conv(tag + "_conv2", cout, 3, 2, 1)
        else:
            n.conv(tag + "_conv2", cout, 3)
        n.bnorm(tag + "_bn2")
        feeds.append(n.relu(tag + "_relu2"))
    # The heads (ssd/model.py:67-69, 108-115): each feature map's loc and conf 3x3
    # convolutions, each output reshaped to (N, 4 or 81, anchors): a copy in channels-last
    locs, confs, anchors = [], [], 0
    for j, (feed, nd) in enumerate(zip(feeds, ANCHORS_PER_CELL)):
        _, h, w = n.shape[feed]
        anchors += nd * h * w
        for kind, per, out in (("loc", 4, locs), ("conf", CLASSES, confs)):
            conv = n.conv("%s%d" % (kind, j), nd * per, 3, 1, 1, bias=True, x_from=feed)
            out.append(n.add("%s%d_view" % (kind, j), "move", (nd * per * h * w, 1, 1),
                             x_from=conv))
    n.add("locs", "concat", (4 * anchors, 1, 1), inputs=locs)
    n.add("ploc", "reshape", (4, anchors, 1))
    n.add("confs", "concat", (CLASSES * anchors, 1, 1), inputs=confs)
    n.add("plabel", "reshape", (CLASSES, anchors, 1))
    # The loss (ssd/model.py:159-197): smooth L1 of the locations against the encoded boxes
    # (an add of one input: the target is a constant), cross-entropy over the classes
    n.add("loss_loc", "add", (4, anchors, 1), x_from="ploc")
    n.add("loss_conf", "softmax", (CLASSES, anchors, 1), x_from="plabel")
    return n, anchors


DESCRIPTION = (
    "SSD300 v1.1 of NVIDIA DeepLearningExamples (" + SOURCE + ", PyTorch), written by "
    "experiments/import/ssd_pytorch.py. Input 3x300x300: ssd/coco_pipeline.py:86-88 (DALI "
    "Resize to 300x300) and :72-80 (CropMirrorNormalize, NCHW). Backbone "
    "(ssd/model.py:29-31 and 42): torchvision resnet50's conv1, bn1, relu, maxpool, layer1, "
    "layer2 and layer3 (torchvision's Bottleneck, the stride on the 3x3 as in "
    "resnet50-v1.5.xml): 150, 75; layer1 75x75x256, layer2 38x38x512; layer3's first block "
    "with stride 1 on its 3x3 and its projection (ssd/model.py:44-48): 38x38x1024. "
    "Additional blocks (ssd/model.py:75-97, channels :31 and :77): a 1x1 convolution to 256, "
    "256, 128, 128, 128, batch normalisation, ReLU, a 3x3 convolution to 512, 512, 256, 256, "
    "256 (stride 2, padding 1 in the first three: 19, 10, 5; unpadded in the last two: 3, 1), "
    "batch normalisation, ReLU. Heads (ssd/model.py:63-69): on each of the 6 feature maps "
    "(38, 19, 10, 5, 3, 1; ssd/utils.py:284) a 3x3 convolution, padding 1, to 4 coordinates "
    "and one to 81 classes (:61) for each of 4, 6, 6, 6, 4, 4 anchors a cell (:63; "
    "ssd/utils.py:249-254: two square boxes and two an aspect ratio, :288): %d anchors. "
    "Each head's output is reshaped to (N, 4 or 81, anchors) (ssd/model.py:111); the "
    "benchmark runs channels-last (main.py:114, the default; README.md:545-551 does not set "
    "it), where that reshape is a copy (type move), then concatenated over the anchors "
    "(:114; a concat of the flattened outputs, then a view to 4 or 81 x anchors). Loss "
    "(ssd/model.py:159-197): smooth L1 of the predicted locations against the encoded boxes "
    "(:173, type add of one input: it reads the prediction and the target, writes the "
    "difference) and cross-entropy over the 81 classes at every anchor (:177, type softmax). "
    "Left out: the hard negative mining's two sorts of the 8732 losses and its masks "
    "(:180-190, no layer type, no gradient), the target boxes' encoding (:151-157, no "
    "gradient) and the matching of boxes to anchors (DALI's BoxEncoder on the CPU, "
    "ssd/coco_pipeline.py:98-100, part of the input pipeline), the sums over anchors, the "
    "FP32 casts of the heads' outputs under AMP (ssd/train.py:110) and DALI's GPU colour "
    "twist and normalisation (ssd/coco_pipeline.py:64-80, no gradient). Biases are left out "
    "(the format has none; only the heads have them); with them and the batch "
    "normalisations' scales and shifts the network has %d parameters. Dataset: COCO 2017's "
    "118287 training images (ssd/data.py:42). SGD with momentum (main.py:178).")


def write(net, anchors, path):
    netxml.write(path, "ssd300", DESCRIPTION % (anchors, net.params), "COCO 2017", 118287,
                 "3x300x300", net.layers)


def main(argv):
    out = netxml.outdir(argv, __doc__, os.path.join(HERE, "..", "..", "workloads"))
    net, anchors = ssd300()
    write(net, anchors, os.path.join(out, "ssd300.xml"))
    print("ssd300: %d layers, %d anchors, %d parameters with biases and batch normalisation" %
          (len(net.layers), anchors, net.params))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
