"""from_onnx.py: an ONNX file -> layers.Network.

onnx.shape_inference gives every value's shape; the nodes come in execution order (ONNX
requires it). Conv, pooling, batch normalisation, activations, Add, Concat, Dropout, Gemm and
MatMul become layers; Flatten, Reshape to a flat sample and Identity are aliases; a constant
zero Pad is folded into the convolution or pooling that reads it (how PyTorch exports a padded
average pool); a bias added to a fully connected output belongs to that layer. Anything else is
Unsupported, naming the node. Export from PyTorch in training mode (training=
torch.onnx.TrainingMode.TRAINING): in eval mode the exporter folds batch normalisation into the
convolutions and drops dropout, and the import cannot tell (it warns when it finds none).
"""

import sys

from layers import Tensor, Unsupported

# Inputs of these operators that are weights, not activations (by position).
WEIGHT_INPUTS = {"Conv": (1, 2), "BatchNormalization": (1, 2, 3, 4), "Gemm": (1, 2),
                 "MatMul": (1,), "Clip": (1, 2), "Pad": (1, 2), "Reshape": (1,)}


class Pad:
    """A pending zero padding of a tensor, folded into the window that reads it."""

    def __init__(self, tensor, pads):
        self.tensor, self.pads = tensor, pads


class Reader:
    def __init__(self, onnx, model, network):
        self.onnx, self.graph, self.net = onnx, model.graph, network
        self.values, self.fc_outputs = {}, set()
        self.shapes = {}
        for v in list(self.graph.input) + list(self.graph.value_info) + list(self.graph.output):
            dims = v.type.tensor_type.shape.dim
            self.shapes[v.name] = [d.dim_value if d.HasField("dim_value") else None for d in dims]
        self.constants = {t.name: onnx.numpy_helper.to_array(t) for t in self.graph.initializer}
        for t in self.graph.initializer:
            self.shapes.setdefault(t.name, list(t.dims))

    # ------------------------------------------------------------ helpers

    def attrs(self, node):
        return {a.name: self.onnx.helper.get_attribute_value(a) for a in node.attribute}

    def shape(self, node, name):
        dims = self.shapes.get(name)
        if not dims or any(d is None for d in dims[1:]):
            raise Unsupported(node.name or node.output[0], node.op_type, "shape inference left "
                              "the shape of '%s' unknown" % name)
        return dims

    def out(self, node):
        dims = self.shape(node, node.output[0])[1:]
        return Tensor(None, dims[0], dims[1:]) if len(dims) > 1 else Tensor(None, dims[0], ())

    def tensor(self, node, index=0):
        v = self.values.get(node.input[index])
        if not isinstance(v, Tensor):
            raise Unsupported(self.name(node), node.op_type, "input '%s' is %s" % (
                node.input[index], "a pending Pad" if isinstance(v, Pad) else
                "not a tensor of the network"))
        return v

    def windowed_input(self, node):
        """The input of a conv or pool, and the zero padding a Pad before it added."""
        v = self.values.get(node.input[0])
        if isinstance(v, Pad):
            return v.tensor, v.pads
        return self.tensor(node), None

    @staticmethod
    def name(node):
        return node.name or node.output[0]

    def symmetric_pads(self, node, pads, n):
        pads = list(pads) if pads is not None else [0] * (2 * n)
        if pads[:n] != pads[n:]:
            raise Unsupported(self.name(node), node.op_type, "asymmetric padding %s" % pads)
        return pads[:n]

    # ------------------------------------------------------------ operators

    def conv(self, node, a):
        x, extra = self.windowed_input(node)
        w = self.shape(node, node.input[1])
        n = len(w) - 2
        if a.get("auto_pad", b"NOTSET") not in (b"NOTSET", b"VALID", "NOTSET", "VALID"):
            raise Unsupported(self.name(node), "Conv", "auto_pad %s" % a["auto_pad"])
        pads = self.symmetric_pads(node, a.get("pads"), n)
        if extra:
            pads = [p + q for p, q in zip(pads, extra)]
        return self.net.conv(self.name(node), "Conv", x, self.out(node),
                             a.get("kernel_shape", w[2:]), a.get("strides", [1] * n), pads,
                             a.get("group", 1), a.get("dilations", [1] * n))

    def pool(self, node, a):
        x, extra = self.windowed_input(node)
        k = a["kernel_shape"]
        n = len(k)
        if any(d != 1 for d in a.get("dilations", [1] * n)):
            raise Unsupported(self.name(node), node.op_type, "dilated pooling")
        pads = self.symmetric_pads(node, a.get("pads"), n)
        if extra:
            pads = [p + q for p, q in zip(pads, extra)]
        return self.net.pool(self.name(node), node.op_type, x, self.out(node), k,
                             a.get("strides", [1] * n), pads)

    def pad(self, node, a):
        x = self.tensor(node)
        pads = a.get("pads")
        if pads is None and len(node.input) > 1:
            pads = self.constants.get(node.input[1])
        value = self.constants.get(node.input[2]) if len(node.input) > 2 and node.input[2] else 0
        mode = a.get("mode", b"constant")
        if pads is None or mode not in (b"constant", "constant") or float(value) != 0:
            raise Unsupported(self.name(node), "Pad", "only a constant zero padding is supported")
        pads = [int(p) for p in pads]
        rank = len(pads) // 2
        begin, end = pads[:rank], pads[rank:]
        if begin[:2] != [0, 0] or end[:2] != [0, 0] or begin != end:
            raise Unsupported(self.name(node), "Pad", "padding %s is not the same on both sides "
                              "of the extents only" % pads)
        return Pad(x, begin[2:])

    def clip(self, node, a):
        low = a.get("min")
        if low is None and len(node.input) > 1 and node.input[1]:
            low = self.constants.get(node.input[1])
        if low is None or float(low) != 0:
            raise Unsupported(self.name(node), "Clip", "a clip that is not ReLU or ReLU6")
        return self.net.same_shape(self.name(node), "Clip", "relu", self.tensor(node))

    def gemm(self, node, a):
        x = self.tensor(node)
        b = self.shape(node, node.input[1])
        out_features = b[0] if a.get("transB", 0) else b[1]
        if a.get("transA", 0):
            raise Unsupported(self.name(node), node.op_type, "a transposed input")
        y = self.net.fc(self.name(node), node.op_type, x, out_features)
        self.fc_outputs.add(node.output[0])
        return y

    def add(self, node, a):
        ins = [self.values.get(i) for i in node.input]
        consts = [i for i in node.input if i in self.constants]
        if len(consts) == 1 and any(i in self.fc_outputs for i in node.input):
            return next(v for v in ins if isinstance(v, Tensor))  # the fc's bias
        return self.net.add(self.name(node), "Add", [self.tensor(node, i)
                                                     for i in range(len(node.input))])

    def concat(self, node, a):
        if a.get("axis") != 1:
            raise Unsupported(self.name(node), "Concat", "along axis %s, not the channels"
                              % a.get("axis"))
        return self.net.concat(self.name(node), "Concat",
                               [self.tensor(node, i) for i in range(len(node.input))])

    def alias(self, node, a):
        x, y = self.tensor(node), self.shape(node, node.output[0])[1:]
        flat = [x.channels * _prod(x.spatial)]
        if list(y) in ([x.channels] + list(x.spatial), flat):
            return x
        raise Unsupported(self.name(node), node.op_type, "a reshape other than flattening a "
                          "sample")

    def global_pool(self, node, a):
        x = self.tensor(node)
        return self.net.adaptive_pool(self.name(node), node.op_type, x, [1] * len(x.spatial))

    def same(self, kind):
        return lambda node, a: self.net.same_shape(self.name(node), node.op_type, kind,
                                                   self.tensor(node))

    # ------------------------------------------------------------ the graph

    def walk(self, data):
        ops = {"Conv": self.conv, "MaxPool": self.pool, "AveragePool": self.pool,
               "GlobalAveragePool": self.global_pool, "GlobalMaxPool": self.global_pool,
               "BatchNormalization": self.same("bnorm"), "Relu": self.same("relu"),
               "Clip": self.clip, "Dropout": self.same("dropout"),
               "Softmax": self.same("softmax"), "LRN": self.same("lrn"), "Add": self.add,
               "Sum": self.add, "Concat": self.concat, "Gemm": self.gemm, "MatMul": self.gemm,
               "Flatten": self.alias, "Reshape": self.alias, "Identity": self.alias,
               "Pad": self.pad}
        self.values[data] = self.net.sample
        for node in self.graph.node:
            if node.op_type == "Constant":
                value = self.attrs(node).get("value")
                self.constants[node.output[0]] = self.onnx.numpy_helper.to_array(value)
                continue
            handler = ops.get(node.op_type)
            if handler is None:
                raise Unsupported(self.name(node), node.op_type, "no workload layer type for it")
            self.values[node.output[0]] = handler(node, self.attrs(node))
        if not any(layer["type"] in ("bnorm", "dropout") for layer in self.net.layers):
            print("import: warning: neither BatchNormalization nor Dropout in the file: an "
                  "eval-mode export folds the first into the convolutions and drops the second "
                  "(export with training=torch.onnx.TrainingMode.TRAINING)", file=sys.stderr)


def _prod(values):
    p = 1
    for v in values:
        p *= v
    return p


def data_input(graph):
    """The one graph input that is an activation, not a weight passed as an input."""
    weights = {t.name for t in graph.initializer}
    for node in graph.node:
        for i in WEIGHT_INPUTS.get(node.op_type, ()):
            if i < len(node.input):
                weights.add(node.input[i])
    data = [i for i in graph.input if i.name not in weights]
    if len(data) != 1:
        raise ValueError("the ONNX graph has %d data inputs (%s); the import takes one"
                         % (len(data), ", ".join(i.name for i in data)))
    return data[0]


def load(path, input_shape, network_class):
    """The network of the ONNX file at path; input_shape (C, H, W) overrides the file's."""
    import onnx
    import onnx.numpy_helper  # noqa: F401 (loads the submodule)
    try:
        model = onnx.load(path)
    except Exception as e:
        raise ValueError("%s: not an ONNX model: %s" % (path, e))
    data = data_input(model.graph)
    dims = data.type.tensor_type.shape.dim
    if input_shape:
        if len(dims) != len(input_shape) + 1:
            raise ValueError("--input: %d dimensions, the model's input has %d"
                             % (len(input_shape), len(dims) - 1))
        for d, v in zip(dims, (1,) + tuple(input_shape)):
            d.dim_value = v
    try:
        model = onnx.shape_inference.infer_shapes(model)
    except Exception as e:
        raise ValueError("%s: ONNX shape inference failed: %s" % (path, e))
    shape = [d.dim_value for d in dims][1:]
    if len(shape) not in (3, 4) or min(shape) < 1:
        raise ValueError("%s: input '%s' has shape %s, not N x C x H x W (x D)"
                         % (path, data.name, shape))
    network = network_class(shape[0], shape[1:])
    Reader(onnx, model, network).walk(data.name)
    return network, "onnx %s, opset %d" % (onnx.__version__, model.opset_import[0].version)
