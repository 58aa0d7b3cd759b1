#!/usr/bin/env python3
"""make_pase_fixtures.py: writes the two test workloads of tests/test_search.c, ResNet-101 and
Inception-v3 exactly as PaSE's graph.py builds them (baidu-research/PaSE at 32aa761; the
research notes, section 1.2), in hybridsim's workload format:

  pase-resnet101.xml    227x227 input, the stride on each bottleneck's 3x3 convolution
                        (torchvision v1.5), the projection convolution and its batch norm as
                        real layers, a batch norm after every convolution, global average pool
  pase-inception3.xml   299x299 input, torchvision's Inception-v3 without the auxiliary head

Layers are written in PaSE's creation order, which is its vertex numbering and therefore the
tie-breaker of its elimination order. ReLUs are written where the networks have them; the
search folds the one after each residual add into the add (PaSE's pw_op_cnt = 1) and drops the
others (PaSE has none). Run from anywhere: python3 tests/search/make_pase_fixtures.py
"""
import os

HERE = os.path.dirname(os.path.abspath(__file__))

# Per-sample seconds: not used by the PaSE cost model; derived, as ResNet-152's, from ResNet-50's
# measured 0.003119502 s by the ratio of the FLOP estimates hybridsim's loader computes (sum over
# layers of 2 x flops + |w|): ResNet-101 36573332928 / 14764606016, Inception-v3
# 48894980960 / 14764606016.
TIMES = {"pase-resnet101": 0.003119502 * 36573332928 / 14764606016,
         "pase-inception3": 0.003119502 * 48894980960 / 14764606016}


class Net:
    """Layers in order, each remembering its output shape (channels, height, width)."""

    def __init__(self, name, channels, size):
        self.name, self.lines, self.shape = name, [], {"data": (channels, size, size)}
        self.sample = (channels, size, size)

    def add(self, lid, ltype, src, out, inputs=None, **attrs):
        srcs = src if isinstance(src, list) else [src]
        c, h, w = self.shape[srcs[0]]
        if ltype == "concat":
            c = sum(self.shape[s][0] for s in srcs)
        a = [f'id="{lid}"', f'type="{ltype}"', f'x="{c}x{w}x{h}"']
        a += [f'{k}="{v}"' for k, v in attrs.items()]
        a.append(f'y="{out[0]}x{out[2]}x{out[1]}"')
        if inputs or len(srcs) > 1 or (srcs[0] != self.last() and srcs[0] != "data"):
            a.append(f'inputs="{" ".join(srcs)}"')
        self.lines.append("    <layer " + " ".join(a) + "/>")
        self.shape[lid] = out
        return lid

    def last(self):
        return list(self.shape)[-1]

    def conv(self, lid, src, n, r, s, stride=1, pad=(0, 0)):
        c, h, w = self.shape[src]
        ho, wo = (h - r + 2 * pad[0]) // stride + 1, (w - s + 2 * pad[1]) // stride + 1
        # hybridsim: one padding per layer; asymmetric (1x7) ones are "same" at stride 1
        padding = str(pad[0]) if pad[0] == pad[1] else "same"
        return self.add(lid, "conv", src, (n, ho, wo), w=f"{c}x{n}x{s}x{r}", stride=stride,
                        padding=padding)

    def pool(self, lid, src, k, stride, pad=0):
        c, h, w = self.shape[src]
        o = (h - k + 2 * pad) // stride + 1
        return self.add(lid, "pool", src, (c, o, o), kernel=f"{k}x{k}", stride=stride,
                        padding=pad)

    def same(self, lid, ltype, src):
        return self.add(lid, ltype, src, self.shape[src])

    def tail(self, src, classes):
        c, h, w = self.shape[src]
        x = self.add("AVGPOOL", "pool", src, (c, 1, 1), kernel=f"{w}x{h}")
        x = self.add("FC", "fc", x, (classes, 1, 1), w=f"{c}x{classes}x1x1")
        return self.same("SOFTMAX", "softmax", x)

    def write(self, description):
        c, h, w = self.sample
        text = ['<?xml version="1.0" encoding="UTF-8"?>',
                '<!DOCTYPE workload SYSTEM "workload.dtd">',
                f'<workload name="{self.name}">',
                f"  <description>{description}</description>",
                f'  <dataset name="ImageNet" samples="1280000" sample="{c}x{w}x{h}"/>',
                f'  <calibration device="V100-16GB" sample_time_s="{TIMES[self.name]:.10g}" '
                'method="derived" source="resnet50.xml (0.003119502 s) x FLOP ratio"/>',
                "  <layers>"] + self.lines + ["  </layers>", "</workload>"]
        with open(os.path.join(HERE, self.name + ".xml"), "w") as f:
            f.write("\n".join(text) + "\n")


def basic(net, lid, src, n, r, s, stride=1, pad=(0, 0), relu=True):
    """A convolution and its batch norm (Inception's BasicConv2d), then a ReLU."""
    x = net.same("BN_" + lid, "bnorm", net.conv("CONV_" + lid, src, n, r, s, stride, pad))
    return net.same("RELU_" + lid, "relu", x) if relu else x


def resnet101():
    net = Net("pase-resnet101", 3, 227)
    x = basic(net, "1", "data", 64, 7, 7, 2, (3, 3))
    x = net.pool("POOL_1", x, 3, 2, 1)
    inplanes = 64
    for stage, planes, blocks, stride in ((2, 64, 3, 1), (3, 128, 4, 2), (4, 256, 23, 2),
                                          (5, 512, 3, 2)):
        for i in range(blocks):
            b, st, inp = f"{stage}_{i + 1}", stride if i == 0 else 1, x
            y = basic(net, b + "a", inp, planes, 1, 1)
            y = basic(net, b + "b", y, planes, 3, 3, st, (1, 1))
            y = basic(net, b + "c", y, planes * 4, 1, 1, relu=False)
            shortcut = inp
            if i == 0 and (st != 1 or inplanes != planes * 4):
                shortcut = basic(net, b + "p", inp, planes * 4, 1, 1, st, relu=False)
            x = net.same("RELU_" + b, "relu", net.add("ADD_" + b, "add", [y, shortcut],
                                                      net.shape[y]))
            inplanes = planes * 4
    net.tail(x, 1000)
    net.write("Test fixture for the search with --cost-model pase: ResNet-101 as PaSE's "
              "graph.ResNet101 builds it (227x227 input, stride on the 3x3 convolution of each "
              "stage's first bottleneck, projection convolution and batch norm as layers, global "
              "average pool, FC 1000, softmax), layers in PaSE's vertex order. Written by "
              "tests/search/make_pase_fixtures.py. The time is derived (see there), not measured.")


def inception3():
    net = Net("pase-inception3", 3, 299)

    def a(x, m, pool_features):
        b1 = basic(net, m + "_1x1", x, 64, 1, 1)
        b5 = basic(net, m + "_5x5_2", basic(net, m + "_5x5_1", x, 48, 1, 1), 64, 5, 5,
                   pad=(2, 2))
        b3 = basic(net, m + "_3x3_1", x, 64, 1, 1)
        b3 = basic(net, m + "_3x3_2", b3, 96, 3, 3, pad=(1, 1))
        b3 = basic(net, m + "_3x3_3", b3, 96, 3, 3, pad=(1, 1))
        bp = basic(net, m + "_pool", net.pool("POOL_" + m, x, 3, 1, 1), pool_features, 1, 1)
        return concat(net, m, [b1, b5, b3, bp])

    def b(x, m):
        b3 = basic(net, m + "_3x3", x, 384, 3, 3, 2)
        bd = basic(net, m + "_dbl_1", x, 64, 1, 1)
        bd = basic(net, m + "_dbl_2", bd, 96, 3, 3, pad=(1, 1))
        bd = basic(net, m + "_dbl_3", bd, 96, 3, 3, 2)
        return concat(net, m, [b3, bd, net.pool("POOL_" + m, x, 3, 2)])

    def c(x, m, c7):
        b1 = basic(net, m + "_1x1", x, 192, 1, 1)
        b7 = basic(net, m + "_7_1", x, c7, 1, 1)
        b7 = basic(net, m + "_7_2", b7, c7, 1, 7, pad=(0, 3))
        b7 = basic(net, m + "_7_3", b7, 192, 7, 1, pad=(3, 0))
        bd = basic(net, m + "_dbl_1", x, c7, 1, 1)
        for k, (n, r, s, pad) in enumerate(((c7, 7, 1, (3, 0)), (c7, 1, 7, (0, 3)),
                                            (c7, 7, 1, (3, 0)), (192, 1, 7, (0, 3)))):
            bd = basic(net, f"{m}_dbl_{k + 2}", bd, n, r, s, pad=pad)
        bp = basic(net, m + "_pool", net.pool("POOL_" + m, x, 3, 1, 1), 192, 1, 1)
        return concat(net, m, [b1, b7, bd, bp])

    def d(x, m):
        b3 = basic(net, m + "_3x3_2", basic(net, m + "_3x3_1", x, 192, 1, 1), 320, 3, 3, 2)
        b7 = basic(net, m + "_7_1", x, 192, 1, 1)
        b7 = basic(net, m + "_7_2", b7, 192, 1, 7, pad=(0, 3))
        b7 = basic(net, m + "_7_3", b7, 192, 7, 1, pad=(3, 0))
        b7 = basic(net, m + "_7_4", b7, 192, 3, 3, 2)
        return concat(net, m, [b3, b7, net.pool("POOL_" + m, x, 3, 2)])

    def e(x, m):
        b1 = basic(net, m + "_1x1", x, 320, 1, 1)
        b3 = basic(net, m + "_3x3_1", x, 384, 1, 1)
        b3 = concat(net, m + "_3x3", [basic(net, m + "_3x3_2a", b3, 384, 1, 3, pad=(0, 1)),
                                      basic(net, m + "_3x3_2b", b3, 384, 3, 1, pad=(1, 0))])
        bd = basic(net, m + "_dbl_1", x, 448, 1, 1)
        bd = basic(net, m + "_dbl_2", bd, 384, 3, 3, pad=(1, 1))
        bd = concat(net, m + "_dbl", [basic(net, m + "_dbl_3a", bd, 384, 1, 3, pad=(0, 1)),
                                      basic(net, m + "_dbl_3b", bd, 384, 3, 1, pad=(1, 0))])
        bp = basic(net, m + "_pool", net.pool("POOL_" + m, x, 3, 1, 1), 192, 1, 1)
        return concat(net, m, [b1, b3, bd, bp])

    x = basic(net, "1a", "data", 32, 3, 3, 2)
    x = basic(net, "2a", x, 32, 3, 3)
    x = basic(net, "2b", x, 64, 3, 3, pad=(1, 1))
    x = basic(net, "3b", net.pool("POOL_3a", x, 3, 2), 80, 1, 1)
    x = net.pool("POOL_5a", basic(net, "4a", x, 192, 3, 3), 3, 2)
    for m, pf in (("5b", 32), ("5c", 64), ("5d", 64)):
        x = a(x, m, pf)
    x = b(x, "6a")
    for m, c7 in (("6b", 128), ("6c", 160), ("6d", 160), ("6e", 192)):
        x = c(x, m, c7)
    x = e(e(d(x, "7a"), "7b"), "7c")
    net.tail(x, 1000)
    net.write("Test fixture for the search with --cost-model pase: Inception-v3 as PaSE's "
              "graph.Inception3 builds it (torchvision's layout, 299x299 input, no auxiliary "
              "head; each convolution followed by a batch norm and a ReLU), layers in PaSE's "
              "vertex order. Written by tests/search/make_pase_fixtures.py. The 1x7 and 7x1 "
              "convolutions pad (0, 3) and (3, 0): written padding=\"same\". The time is "
              "derived (see there), not measured.")


def concat(net, m, srcs):
    c, h, w = net.shape[srcs[0]]
    return net.add("CONCAT_" + m, "concat", srcs, (sum(net.shape[s][0] for s in srcs), h, w))


if __name__ == "__main__":
    resnet101()
    inception3()
