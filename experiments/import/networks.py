"""networks.py: the networks the importer builds itself, where torchvision has none (networks:NAME).

Both are the ones NVIDIA's DeepLearningExamples train and publish throughput for (PyTorch
Classification/ConvNets, ../shared/reference/measured/dle-throughput.tsv), built from
torchvision's own ResNet class:
  resnext101_32x4d     ResNeXt-101 32x4d (Xie et al., CVPR 2017): torchvision's Bottleneck
                       ResNet with blocks 3, 4, 23, 3, 32 groups of 4 channels in the first
                       stage's 3x3 convolution (torchvision's groups=32, width_per_group=4);
                       stride on the 3x3, projection shortcuts (ResNet v1.5's layout)
  se_resnext101_32x4d  the same with squeeze-and-excitation (Hu et al., CVPR 2018) on each
                       block's residual branch before the add: global average pool, a 1x1
                       convolution to C/16 channels, ReLU, a 1x1 convolution back, sigmoid, the
                       branch scaled channel by channel (torchvision.ops.SqueezeExcitation)
"""

NAMES = ("resnext101_32x4d", "se_resnext101_32x4d")


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
    block = SEBottleneck if name.startswith("se_") else Bottleneck
    return ResNet(block, [3, 4, 23, 3], groups=32, width_per_group=4)
