"""networks.py: the networks the importer builds itself, where torchvision has none (networks:NAME).

All are ones NVIDIA's DeepLearningExamples train and publish throughput for (PyTorch
Classification/ConvNets, ../shared/reference/measured/dle-throughput.tsv), built from
torchvision's own ResNet and EfficientNet classes:
  resnext101_32x4d     ResNeXt-101 32x4d (Xie et al., CVPR 2017): torchvision's Bottleneck
                       ResNet with blocks 3, 4, 23, 3, 32 groups of 4 channels in the first
                       stage's 3x3 convolution (torchvision's groups=32, width_per_group=4);
                       stride on the 3x3, projection shortcuts (ResNet v1.5's layout)
  se_resnext101_32x4d  the same with squeeze-and-excitation (Hu et al., CVPR 2018) on each
                       block's residual branch before the add: global average pool, a 1x1
                       convolution to C/16 channels, ReLU, a 1x1 convolution back, sigmoid, the
                       branch scaled channel by channel (torchvision.ops.SqueezeExcitation)
  efficientnet_widese_b0, efficientnet_widese_b4
                       EfficientNet-WideSE: torchvision's efficientnet_b0 / _b4 with each
                       block's squeeze-and-excitation hidden width a quarter of the block's
                       expanded (depthwise) channels instead of a quarter of its input
                       channels. DeepLearningExamples' MBConvBlock (PyTorch/Classification/
                       ConvNets/image_classification/models/efficientnet.py@729963dd,
                       lines 404-406: squeeze_base = hidden_dim if squeeze_hidden else
                       in_channels; squeeze_dim = max(1, int(squeeze_base * 0.25))) with
                       widese_mbconv's squeeze_hidden=True (line 502) for the
                       efficientnet-widese-* architectures (lines 555, 559); everything else
                       as efficientnet-b0/-b4 (same widths, depths, kernels, strides)
"""

NAMES = ("resnext101_32x4d", "se_resnext101_32x4d", "efficientnet_widese_b0",
         "efficientnet_widese_b4")

# The torchvision class each network is built on, for the workload's provenance.
BASES = {"resnext101_32x4d": "ResNet", "se_resnext101_32x4d": "ResNet",
         "efficientnet_widese_b0": "EfficientNet", "efficientnet_widese_b4": "EfficientNet"}


def build(torch, torchvision, name):
    """The nn.Module called `name` (one of NAMES), weights uninitialised."""
    from torchvision.models.resnet import Bottleneck, ResNet
    from torchvision.ops import SqueezeExcitation

    class SEBottleneck(Bottleneck):
        """torchvision's Bottleneck with an SE block on the branch, before the add."""

        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            channels = self.conv3.out_channels
            self.se = SqueezeExcitation(channels, channels // 16)

        def forward(self, x):
            identity = x
            out = self.relu(self.bn1(self.conv1(x)))
            out = self.relu(self.bn2(self.conv2(out)))
            out = self.se(self.bn3(self.conv3(out)))
            if self.downsample is not None:
                identity = self.downsample(x)
            return self.relu(out + identity)

    if name not in NAMES:
        raise ValueError("networks:%s: the importer builds %s" % (name, ", ".join(NAMES)))
    if name.startswith("efficientnet_widese_"):
        return widese(torchvision, name[len("efficientnet_widese_"):])
    block = SEBottleneck if name.startswith("se_") else Bottleneck
    return ResNet(block, [3, 4, 23, 3], groups=32, width_per_group=4)


def widese(torchvision, variant):
    """torchvision's efficientnet_<variant> (b0 or b4) with wide squeeze-and-excitation."""
    from functools import partial
    from torchvision.models import efficientnet as tv
    from torchvision.ops import SqueezeExcitation

    class WideSEMBConv(tv.MBConv):
        """torchvision's MBConv whose SE squeezes to expanded // 4 channels, not input // 4."""

        def __init__(self, cnf, stochastic_depth_prob, norm_layer):
            expanded = cnf.adjust_channels(cnf.input_channels, cnf.expand_ratio)
            def se_layer(channels, _input_based, activation):
                return SqueezeExcitation(channels, max(1, expanded // 4), activation=activation)
            super().__init__(cnf, stochastic_depth_prob, norm_layer, se_layer=se_layer)

    # torchvision's own constructor for the variant: its widths, depths and dropout
    mult, dropout = {"b0": ((1.0, 1.0), 0.2), "b4": ((1.4, 1.8), 0.4)}[variant]
    setting, last_channel = tv._efficientnet_conf("efficientnet_" + variant,
                                                   width_mult=mult[0], depth_mult=mult[1])
    for cnf in setting:
        cnf.block = WideSEMBConv
    return tv.EfficientNet(setting, dropout, last_channel=last_channel)
