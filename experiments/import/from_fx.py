"""from_fx.py: a torchvision model -> layers.Network, through torch.fx.

The model is built with weights=None (nothing is downloaded) and without initialising its
weights (only their shapes matter here, and initialising VGG's 133 million takes seconds), then
traced symbolically (torch.fx.symbolic_trace: every operation with its inputs, including the
residual adds and concatenations that forward hooks cannot see) and run once on a zero sample by
ShapeProp to learn every value's shape. Each graph node becomes a layer, an alias (flatten,
identity: no work of its own), or an Unsupported error naming it. torchvision's StochasticDepth
(EfficientNet's randomly dropped residual branches) is kept whole, as a leaf: in training it
multiplies its branch by a random mask, which the format counts as a dropout.
"""

import contextlib
import operator

from layers import Tensor, Unsupported


@contextlib.contextmanager
def no_weight_init(torch):
    """Turn torch.nn.init's fillers into no-ops while the model is built: shapes only."""
    init = torch.nn.init
    names = [n for n in dir(init) if n.endswith("_") and not n.startswith("_")]
    saved = {n: getattr(init, n) for n in names}
    try:
        for n in names:
            setattr(init, n, lambda tensor, *args, **kwargs: tensor)
        yield
    finally:
        for n, f in saved.items():
            setattr(init, n, f)


def build(torch, torchvision, name):
    ctor = getattr(torchvision.models, name, None)
    if ctor is None or not callable(ctor) or name.startswith("_"):
        raise ValueError("torchvision has no model '%s' (torchvision.models.list_models() "
                         "or the torchvision documentation lists them)" % name)
    kwargs = {"weights": None}
    if name in ("inception_v3", "googlenet"):
        # Without weights these default to the auxiliary classifier (a second output) and a
        # slow scipy initialisation; the auxiliary head is not part of the trained network.
        kwargs.update(aux_logits=False, init_weights=False)
    with no_weight_init(torch):
        return ctor(**kwargs)


def bind(node, names, defaults):
    """A function call's arguments by name: positional first, then keywords, then defaults."""
    values = dict(defaults)
    values.update(zip(names, node.args))
    values.update(node.kwargs)
    return values


def per_extent(value, n):
    return list(value) if isinstance(value, (list, tuple)) else [value] * n


class Walker:
    def __init__(self, torch, gm, network):
        self.torch, self.gm, self.net = torch, gm, network
        self.values = {}
        nn, F = torch.nn, torch.nn.functional
        self.modules = {nn.Conv2d: self.conv, nn.Conv3d: self.conv,
                        nn.BatchNorm2d: self.kind("bnorm"), nn.BatchNorm3d: self.kind("bnorm"),
                        nn.ReLU: self.kind("relu"), nn.ReLU6: self.kind("relu"),
                        nn.SiLU: self.kind("silu"), nn.Sigmoid: self.kind("sigmoid"),
                        nn.Hardswish: self.kind("hardswish"),
                        nn.Hardsigmoid: self.kind("hardsigmoid"), nn.GELU: self.kind("gelu"),
                        nn.Dropout: self.kind("dropout"), nn.Dropout2d: self.kind("dropout"),
                        nn.Softmax: self.kind("softmax"), nn.LocalResponseNorm: self.kind("lrn"),
                        nn.MaxPool2d: self.pool_module, nn.MaxPool3d: self.pool_module,
                        nn.AvgPool2d: self.pool_module, nn.AvgPool3d: self.pool_module,
                        nn.AdaptiveAvgPool2d: self.adaptive, nn.AdaptiveAvgPool3d: self.adaptive,
                        nn.Linear: self.linear, nn.Flatten: self.alias, nn.Identity: self.alias}
        for leaf in leaf_modules(torch):
            self.modules[leaf] = self.kind("dropout")
        self.functions = {F.relu: self.kind("relu"), torch.relu: self.kind("relu"),
                          F.relu6: self.kind("relu"), F.dropout: self.kind("dropout"),
                          F.softmax: self.kind("softmax"), torch.softmax: self.kind("softmax"),
                          F.max_pool2d: self.max_pool, F.max_pool3d: self.max_pool,
                          F.avg_pool2d: self.avg_pool, F.avg_pool3d: self.avg_pool,
                          F.adaptive_avg_pool2d: self.adaptive,
                          F.adaptive_avg_pool3d: self.adaptive,
                          torch.flatten: self.alias, torch.cat: self.cat,
                          operator.add: self.add, operator.iadd: self.add, torch.add: self.add,
                          F.silu: self.kind("silu"), torch.sigmoid: self.kind("sigmoid"),
                          F.sigmoid: self.kind("sigmoid"), F.hardswish: self.kind("hardswish"),
                          F.hardsigmoid: self.kind("hardsigmoid"), F.gelu: self.kind("gelu"),
                          operator.mul: self.mul, operator.imul: self.mul, torch.mul: self.mul}
        # Names for messages (F.max_pool2d's own __name__ is "fn", a dispatcher's).
        self.function_names = {}
        for n in dir(F):
            f = getattr(F, n, None)
            if callable(f) and f in self.functions:
                self.function_names[f] = "F." + n
        self.function_names.update({torch.flatten: "torch.flatten", torch.cat: "torch.cat",
                                    torch.add: "torch.add", operator.add: "+",
                                    operator.iadd: "+=", torch.sigmoid: "torch.sigmoid",
                                    torch.mul: "torch.mul", operator.mul: "*",
                                    operator.imul: "*="})
        self.methods = {"flatten": self.alias, "view": self.alias, "reshape": self.alias,
                        "contiguous": self.alias, "relu": self.kind("relu"), "add": self.add,
                        "add_": self.add, "sigmoid": self.kind("sigmoid"), "mul": self.mul,
                        "mul_": self.mul, "mean": self.mean}

    # ------------------------------------------------------------ values

    def out_shape(self, node):
        meta = node.meta.get("tensor_meta")
        if meta is None or not hasattr(meta, "shape"):
            raise Unsupported(node.name, self.op(node), "its output is not one tensor")
        return tuple(meta.shape)[1:]

    def input(self, node, index=0):
        arg = node.args[index]
        if arg not in self.values:
            raise Unsupported(node.name, self.op(node), "an input that is not a tensor of the "
                              "network")
        return self.values[arg]

    def op(self, node):
        if node.op == "call_module":
            return type(self.gm.get_submodule(node.target)).__name__
        if node.op == "call_method":
            return "." + node.target
        if node.target in self.function_names:
            return self.function_names[node.target]
        return getattr(node.target, "__name__", str(node.target))

    # ------------------------------------------------------------ handlers

    def kind(self, kind):
        return lambda node, module=None: self.net.same_shape(node.name, self.op(node), kind,
                                                             self.input(node))

    def alias(self, node, module=None):
        """No work: the value is its input. A flatten keeps the unflattened shape, which the
        fully connected layer that follows covers (the format's fc flattens its input)."""
        x = self.input(node)
        shape = self.out_shape(node)
        if shape == (x.channels,) + x.spatial:
            return x
        if len(shape) == 1 and shape[0] == x.channels * _prod(x.spatial):
            return x
        raise Unsupported(node.name, self.op(node), "a reshape other than flattening a sample")

    def conv(self, node, module):
        x, shape = self.input(node), self.out_shape(node)
        n = len(x.spatial)
        padding = module.padding
        if isinstance(padding, str):  # "same" or "valid"
            padding = [(k - 1) // 2 if padding == "same" else 0 for k in module.kernel_size]
        y = Tensor(None, shape[0], shape[1:])
        return self.net.conv(node.name, self.op(node), x, y, per_extent(module.kernel_size, n),
                             per_extent(module.stride, n), per_extent(padding, n),
                             module.groups, per_extent(module.dilation, n))

    def pool(self, node, kernel, stride, padding, dilation):
        x, shape = self.input(node), self.out_shape(node)
        n = len(x.spatial)
        if any(d != 1 for d in per_extent(dilation, n)):
            raise Unsupported(node.name, self.op(node), "dilated pooling is not supported")
        stride = kernel if stride is None or stride == [] else stride
        return self.net.pool(node.name, self.op(node), x, Tensor(None, shape[0], shape[1:]),
                             per_extent(kernel, n), per_extent(stride, n),
                             per_extent(padding, n))

    def pool_module(self, node, module):
        return self.pool(node, module.kernel_size, module.stride, module.padding,
                         getattr(module, "dilation", 1))

    def max_pool(self, node, module=None):
        a = bind(node, ["input", "kernel_size", "stride", "padding", "dilation"],
                 {"stride": None, "padding": 0, "dilation": 1})
        return self.pool(node, a["kernel_size"], a["stride"], a["padding"], a["dilation"])

    def avg_pool(self, node, module=None):  # (input, kernel_size, stride, padding, ceil_mode..)
        a = bind(node, ["input", "kernel_size", "stride", "padding"],
                 {"stride": None, "padding": 0})
        return self.pool(node, a["kernel_size"], a["stride"], a["padding"], 1)

    def adaptive(self, node, module=None):
        return self.net.adaptive_pool(node.name, self.op(node), self.input(node),
                                      self.out_shape(node)[1:])

    def mean(self, node, module=None):
        """x.mean(dims) over every spatial extent (MNASNet's classifier head): a global
        average pool; the flat result is what the fully connected layer after it covers."""
        x = self.input(node)
        a = bind(node, ["input", "dim", "keepdim"], {"dim": None, "keepdim": False})
        rank = len(x.spatial) + 2
        dims = a["dim"] if isinstance(a["dim"], (list, tuple)) else [a["dim"]]
        if sorted(d % rank for d in dims if d is not None) != list(range(2, rank)):
            raise Unsupported(node.name, self.op(node), "a mean over other dimensions than "
                              "every spatial extent")
        return self.net.adaptive_pool(node.name, self.op(node), x, [1] * len(x.spatial))

    def linear(self, node, module):
        x = self.input(node)
        if module.in_features != x.channels * _prod(x.spatial):
            raise Unsupported(node.name, "Linear", "applied to the last extent of an unflattened "
                              "tensor")
        return self.net.fc(node.name, "Linear", x, module.out_features)

    def add(self, node, module=None):
        args = [a for a in node.args[:2]]
        if any(a not in self.values for a in args):
            raise Unsupported(node.name, self.op(node), "adds a constant or a parameter (only "
                              "tensors of the network: residual connections)")
        return self.net.add(node.name, self.op(node), [self.values[a] for a in args])

    def mul(self, node, module=None):
        args = [a for a in node.args[:2]]
        if any(a not in self.values for a in args):
            raise Unsupported(node.name, self.op(node), "multiplies by a constant or a parameter "
                              "(only tensors of the network: a squeeze-and-excitation scale)")
        return self.net.mul(node.name, self.op(node), self.values[args[0]],
                            self.values[args[1]])

    def cat(self, node, module=None):
        a = bind(node, ["tensors", "dim"], {"dim": 0})
        rank = len(self.out_shape(node)) + 1  # with the batch
        if a["dim"] not in (1, 1 - rank):
            raise Unsupported(node.name, "cat", "concatenates along dimension %s, not the "
                              "channels" % a["dim"])
        if any(t not in self.values for t in a["tensors"]):
            raise Unsupported(node.name, "cat", "an input that is not a tensor of the network")
        return self.net.concat(node.name, "cat", [self.values[t] for t in a["tensors"]])

    # ------------------------------------------------------------ the graph

    def walk(self):
        for node in self.gm.graph.nodes:
            if node.op == "placeholder":
                self.values[node] = self.net.sample
            elif node.op == "output":
                continue
            elif node.op == "call_module":
                module = self.gm.get_submodule(node.target)
                handler = self.modules.get(type(module))
                if handler is None:
                    raise Unsupported(node.name, type(module).__name__, "no workload layer type "
                                      "for it")
                self.values[node] = handler(node, module)
            elif node.op in ("call_function", "call_method"):
                table = self.functions if node.op == "call_function" else self.methods
                handler = table.get(node.target)
                if handler is None:
                    raise Unsupported(node.name, self.op(node), "no workload layer type for it")
                self.values[node] = handler(node)
            else:
                raise Unsupported(node.name, node.op, "the format has no such operation")


def _prod(values):
    p = 1
    for v in values:
        p *= v
    return p


def leaf_modules(torch):
    """Modules traced whole: torchvision's StochasticDepth (a mask drawn per sample)."""
    import torchvision.ops
    leaf = getattr(torchvision.ops, "StochasticDepth", None)
    return [leaf] if leaf else []


def trace(torch, model):
    """torch.fx's graph of model, with leaf_modules() kept whole."""
    import torch.fx
    leaves = tuple(leaf_modules(torch))

    class Tracer(torch.fx.Tracer):
        def is_leaf_module(self, m, qualified_name):
            return isinstance(m, leaves) or super().is_leaf_module(m, qualified_name)

    graph = Tracer().trace(model)
    return torch.fx.GraphModule(model, graph)


def load_module(model, input_shape, network_class, how):
    """The network of an nn.Module on one sample of input_shape (C, H, W)."""
    import torch
    from torch.fx.passes.shape_prop import ShapeProp

    try:
        gm = trace(torch, model)
    except Exception as e:  # data-dependent control flow cannot be traced
        raise ValueError("torch.fx cannot trace %s: %s" % (how, e))
    gm.eval()
    with torch.no_grad():
        ShapeProp(gm).propagate(torch.zeros((1,) + tuple(input_shape)))
    network = network_class(input_shape[0], input_shape[1:])
    Walker(torch, gm, network).walk()
    return network


def load(name, input_shape, network_class):
    """The network of torchvision model `name` on one sample of input_shape (C, H, W)."""
    import torch
    import torchvision

    model = build(torch, torchvision, name)
    network = load_module(model, input_shape, network_class, "torchvision:%s" % name)
    return network, "torchvision %s, torch.fx" % torchvision.__version__
