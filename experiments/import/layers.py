"""layers.py: the network as the importer builds it, and the workload XML it becomes.

Both readers (from_fx.py for torchvision models, from_onnx.py for ONNX files) walk their graph
in execution order and call Network's methods, one per layer type, with PyTorch-ordered shapes:
(C, H, W) or (C, D, H, W) per sample, kernel/stride/padding as (H, W) or (D, H, W). This module
turns them into hybridsim's order (C x W x H (x D): ParaDL's, the last extent first), checks
what the workload format can say (workloads/README.md), and writes workloads/workload.dtd's XML.
An operator or shape the format cannot say raises Unsupported naming the graph node.
"""

import math
import xml.sax.saxutils as saxutils
import zlib

MAX_INPUTS = 64  # WL_MAX_INPUTS in workloads/workload.h
MAX_ID = 63  # WL_NAME_LEN - 1
# The order attributes are written in, as the shipped workloads write them.
ATTRIBUTE_ORDER = ["id", "type", "x", "w", "kernel", "y", "stride", "padding", "round", "groups",
                   "inputs", "m", "n", "k", "products", "split"]


class Unsupported(Exception):
    """A node the workload format has no way to say: the message names the node and op."""

    def __init__(self, node, op, why):
        super().__init__("node '%s' (%s): %s" % (node, op, why))


def hs_order(dims):
    """PyTorch's (H, W) / (D, H, W) -> the format's (W, H) / (W, H, D)."""
    dims = list(dims)
    return dims[::-1] if len(dims) == 2 else [dims[2], dims[1], dims[0]]


def shape_text(channels, spatial):
    return "x".join(str(int(d)) for d in [channels] + hs_order(spatial))


class Tensor:
    """A value of the graph: the layer that produced it (None: the data sample), that layer's
    output shape in the format (channels, spatial in PyTorch order), and the value's own shape
    in PyTorch for one sample: dims (the batch of 1 included: a reshape may merge it with
    another dimension, as Swin's windows), cdim the one that holds the channels (features: the
    last, for tokens and channels-last tensors), strided when it is a permuted view of the
    layer's output that a kernel needing contiguous memory must copy first (Network.settle)."""

    def __init__(self, layer, channels, spatial, dims=None, cdim=1, strided=False):
        self.layer = layer
        self.channels = int(channels)
        self.spatial = tuple(int(d) for d in spatial)
        self.dims = tuple(int(d) for d in dims) if dims is not None else \
            (1, self.channels) + self.spatial
        self.cdim = cdim
        self.strided = strided

    def view(self, dims, cdim, strided=False):
        """The same layer output seen with another PyTorch shape (no layer yet)."""
        return Tensor(self.layer, self.channels, self.spatial, dims, cdim, strided)


def window_fits(x, k, s, p, y, ceil):
    """Whether extent y follows from input x, window k, stride s, padding p, rounded down or
    up (as the workload loader computes it)."""
    span = x + 2 * p - k
    if span < 0:
        return False
    return (-(-span // s) if ceil else span // s) + 1 == y


class Network:
    """Layers in execution order, each a dict of XML attributes."""

    def __init__(self, sample_channels, sample_spatial):
        self.sample = Tensor(None, sample_channels, sample_spatial)
        self.layers = []
        self.ids = set()
        self.weights = 0
        self.reshaped = False  # a layer that reshapes was written: spatial marks end

    # ------------------------------------------------------------ shared checks

    def _new_id(self, name):
        ident = "".join(c if c.isalnum() or c in "_-." else "_" for c in name)
        if not ident or not (ident[0].isalpha() or ident[0] == "_"):
            ident = "L_" + ident
        if len(ident) > MAX_ID - 4:  # its start and a checksum of the whole: still unique
            ident = "%s_%08x" % (ident[:MAX_ID - 13], zlib.crc32(ident.encode()))
        base, n = ident, 1
        while ident in self.ids:
            n += 1
            ident = "%s_%d" % (base, n)
        self.ids.add(ident)
        return ident

    def _inputs(self, node, op, tensors):
        """The inputs attribute: omitted when fed by the previous layer (or, first, the data)."""
        for t in tensors:
            if t.layer is None and self.layers:
                raise Unsupported(node, op, "the format feeds the data sample to the first layer "
                                  "only, and this layer is not the first")
        if len(tensors) == 1:
            t = tensors[0]
            prev = self.layers[-1]["id"] if self.layers else None
            return None if t.layer == prev else t.layer
        return " ".join(t.layer for t in tensors)

    def _add(self, node, op, kind, x, y, extra, inputs):
        if len(y.spatial) != len(self.sample.spatial):
            raise Unsupported(node, op, "a %d-D output in a %d-D network"
                              % (len(y.spatial), len(self.sample.spatial)))
        attrs = dict(extra, id=self._new_id(node), type=kind,
                     x=shape_text(x.channels, x.spatial), y=shape_text(y.channels, y.spatial))
        ins = self._inputs(node, op, inputs)
        if ins:
            attrs["inputs"] = ins
        layer = {k: attrs[k] for k in ATTRIBUTE_ORDER if k in attrs}
        self.layers.append(layer)
        if kind in ("matmul", "reshape", "move"):
            self.reshaped = True
        return Tensor(layer["id"], y.channels, y.spatial, y.dims, y.cdim)

    @staticmethod
    def _uniform(node, op, what, values):
        if len(set(values)) != 1:
            raise Unsupported(node, op, "%s %s differs per extent; the format has one"
                              % (what, tuple(values)))
        return values[0]

    def _window(self, node, op, x, y, kernel, stride, padding):
        """stride, padding and round attributes of a conv or pool window, checked."""
        s = self._uniform(node, op, "stride", list(stride))
        extents = list(zip(x.spatial, kernel, padding, y.spatial))
        extra = {"stride": str(s)}
        if any(padding):
            pads = hs_order(padding)
            extra["padding"] = str(pads[0]) if len(set(pads)) == 1 else "x".join(map(str, pads))
        if all(window_fits(xi, k, s, p, yi, False) for xi, k, p, yi in extents):
            return extra
        if all(window_fits(xi, k, s, p, yi, True) for xi, k, p, yi in extents):
            extra["round"] = "ceil"
            return extra
        raise Unsupported(node, op, "output %s does not follow from input %s, window %s, stride "
                          "%d, padding %s" % (y.spatial, x.spatial, tuple(kernel), s,
                                              tuple(padding)))

    # ------------------------------------------------------------ layer types

    def conv(self, node, op, x, y, kernel, stride, padding, groups, dilation):
        if any(d != 1 for d in dilation):
            raise Unsupported(node, op, "dilated convolutions (dilation %s) are not supported"
                              % (tuple(dilation),))
        extra = {"w": "x".join(str(int(d)) for d in [x.channels, y.channels] + hs_order(kernel))}
        extra.update(self._window(node, op, x, y, kernel, stride, padding))
        if groups != 1:
            extra["groups"] = str(groups)
        else:  # hybridsim's spatial region ends at the first layer that reshapes
            extra["split"] = "filter channel" if self.reshaped else "filter channel spatial"
        self.weights += y.channels * (x.channels // groups) * math.prod(kernel)
        return self._add(node, op, "conv", x, y, extra, [x])

    def pool(self, node, op, x, y, kernel, stride, padding):
        if x.channels != y.channels:
            raise Unsupported(node, op, "pooling that changes the channels")
        extra = {"kernel": "x".join(str(int(k)) for k in hs_order(kernel))}
        extra.update(self._window(node, op, x, y, kernel, stride, padding))
        return self._add(node, op, "pool", x, y, extra, [x])

    def adaptive_pool(self, node, op, x, out_spatial):
        """Adaptive pooling to out_spatial: a fixed window when the input divides evenly."""
        if any(xi % yi for xi, yi in zip(x.spatial, out_spatial)):
            raise Unsupported(node, op, "adaptive pooling from %s to %s does not divide evenly"
                              % (x.spatial, tuple(out_spatial)))
        kernel = [xi // yi for xi, yi in zip(x.spatial, out_spatial)]
        strides = {k for k, yi in zip(kernel, out_spatial) if yi > 1} or {1}
        stride = self._uniform(node, op, "stride", sorted(strides))
        y = Tensor(None, x.channels, out_spatial)
        return self.pool(node, op, x, y, kernel, [stride] * len(kernel), [0] * len(kernel))

    def fc(self, node, op, x, out_features):
        """A fully connected layer over all of x (the format's fc covers its input)."""
        in_features = x.channels * math.prod(x.spatial)
        extra = {"w": "x".join(str(int(d)) for d in
                               [x.channels, out_features] + hs_order(x.spatial))}
        self.weights += in_features * out_features
        y = Tensor(None, out_features, (1,) * len(x.spatial))
        return self._add(node, op, "fc", x, y, extra, [x])

    def same_shape(self, node, op, kind, x):
        """relu, bnorm, dropout, softmax, lrn, the other activations (sigmoid, silu,
        hardswish, hardsigmoid, gelu): output shaped as the input."""
        return self._add(node, op, kind, x, x, {}, [x])

    def mul(self, node, op, a, b):
        """An element-wise product; one factor may be one value a channel (C x 1 x 1, as a
        squeeze-and-excitation's scale), broadcast: it is written second."""
        def per_channel(t, other):
            return t.channels == other.channels and all(d == 1 for d in t.spatial) and \
                len(t.spatial) == len(other.spatial)
        if (a.channels, a.spatial) != (b.channels, b.spatial):
            if per_channel(a, b):
                a, b = b, a
            elif not per_channel(b, a):
                raise Unsupported(node, op, "multiplies tensors of shapes %s and %s (the format "
                                  "broadcasts one value a channel only)"
                                  % ((a.channels,) + a.spatial, (b.channels,) + b.spatial))
        return self._add(node, op, "mul", a, a, {}, [a, b])

    def add(self, node, op, tensors):
        first = tensors[0]
        for t in tensors[1:]:
            if (t.channels, t.spatial) != (first.channels, first.spatial):
                raise Unsupported(node, op, "adds tensors of different shapes (broadcast)")
        if len(tensors) > MAX_INPUTS:
            raise Unsupported(node, op, "more than %d inputs" % MAX_INPUTS)
        return self._add(node, op, "add", first, first, {}, tensors)

    def concat(self, node, op, tensors):
        if len(tensors) > MAX_INPUTS:
            raise Unsupported(node, op, "concatenates %d tensors; the format takes at most %d"
                              % (len(tensors), MAX_INPUTS))
        for t in tensors[1:]:
            if t.spatial != tensors[0].spatial:
                raise Unsupported(node, op, "concatenates tensors of different extents")
        y = Tensor(None, sum(t.channels for t in tensors), tensors[0].spatial)
        return self._add(node, op, "concat", y, y, {}, tensors)

    # ------------------------------------------------------------ tokens and attention

    def fmt(self, dims, cdim):
        """The format's (channels, spatial) of a PyTorch shape: channels dims[cdim], the other
        dims as the extents (leading ones merged, or 1s added, to the network's count)."""
        n = len(self.sample.spatial)
        rest = [d for i, d in enumerate(dims) if i != cdim]
        if len(rest) > n:
            rest = [math.prod(rest[:len(rest) - n + 1])] + rest[len(rest) - n + 1:]
        rest += [1] * (n - len(rest))
        return int(dims[cdim]) if dims else 1, tuple(rest)

    def shaped(self, dims, cdim):
        channels, spatial = self.fmt(dims, cdim)
        return Tensor(None, channels, spatial, dims, cdim)

    def settle(self, node, op, t, contiguous):
        """t as a layer output of its own shape: a move (a copy) when a kernel needing
        contiguous memory reads a permuted view, a reshape (a view, free) when only the
        format's shape differs; t itself otherwise."""
        if t.layer is None and not self.layers:
            return t
        if t.strided and contiguous:
            return self.move(node + "_copy", op, t, t.dims, t.cdim)
        if self.fmt(t.dims, t.cdim) != (t.channels, t.spatial):
            y = self.shaped(t.dims, t.cdim)
            return self._add(node + "_view", op, "reshape", t, y, {}, [t])
        return t

    def move(self, node, op, x, dims, cdim):
        """A copy of x into a tensor of PyTorch shape dims (a permute made contiguous, a
        slice, a roll, a pad)."""
        return self._add(node, op, "move", x, self.shaped(dims, cdim), {}, [x])

    def token_linear(self, node, op, x, out_features):
        """A linear layer over x's channels (the last dimension) at every position: a 1x1
        convolution, the same product."""
        n = len(x.spatial)
        y = self.shaped(x.dims[:x.cdim] + (out_features,) + x.dims[x.cdim + 1:], x.cdim)
        t = self.conv(node, op, x, Tensor(None, y.channels, y.spatial), [1] * n, [1] * n,
                      [0] * n, 1, [1] * n)
        return t.view(y.dims, y.cdim)

    def matmul(self, node, op, a, b, products, m, n, k, dims):
        """products (m x k) by (k x n) products of two activations a sample; the result has
        PyTorch shape dims (its last dimension the features)."""
        if a.channels * math.prod(a.spatial) != products * m * k or \
                b.channels * math.prod(b.spatial) != products * k * n:
            raise Unsupported(node, op, "a product whose factors broadcast (%s by %s)"
                              % (a.dims, b.dims))
        extra = {"m": str(m), "n": str(n), "k": str(k)}
        if products != 1:
            extra["products"] = str(products)
        return self._add(node, op, "matmul", a, self.shaped(dims, len(dims) - 1), extra,
                         [a, b])

    def by_constant(self, node, op, kind, x):
        """An add or a mul of x by a parameter or a constant: one input."""
        return self._add(node, op, kind, x, x, {}, [x])

    # ------------------------------------------------------------ XML

    def summary(self):
        kinds = {}
        for layer in self.layers:
            kinds[layer["type"]] = kinds.get(layer["type"], 0) + 1
        parts = sorted(kinds.items(), key=lambda kv: (-kv[1], kv[0]))
        return "%d layers (%s), %d weights" % (len(self.layers), ", ".join(
            "%d %s" % (n, k) for k, n in parts), self.weights)

    def xml(self, name, description, dataset, samples, calibration):
        """The workload file: calibration is a dict of <calibration> attributes."""
        q = saxutils.quoteattr
        out = ['<?xml version="1.0" encoding="UTF-8"?>',
               '<!DOCTYPE workload SYSTEM "workload.dtd">',
               "<workload name=%s>" % q(name),
               "  <description>%s</description>" % saxutils.escape(description),
               "  <dataset name=%s samples=\"%d\" sample=\"%s\"/>"
               % (q(dataset), samples, shape_text(self.sample.channels, self.sample.spatial)),
               "  <calibration %s/>" % " ".join("%s=%s" % (k, q(v))
                                                for k, v in calibration.items()),
               "  <layers>"]
        for layer in self.layers:
            out.append("    <layer %s/>" % " ".join("%s=%s" % (k, q(v))
                                                   for k, v in layer.items()))
        out += ["  </layers>", "</workload>", ""]
        return "\n".join(out)
