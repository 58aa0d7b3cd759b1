"""from_fx.py: a torchvision model -> layers.Network, through torch.fx.

The model is built with weights=None (nothing is downloaded) and without initialising its
weights (only their shapes matter here, and initialising VGG's 133 million takes seconds), then
traced by torch.fx (every operation with its inputs, including the residual adds and
concatenations that forward hooks cannot see) with values: each operation also runs on a zero
sample while it is recorded, so that Python code reading shapes (`n, c, h, w = x.shape`) or
unpacking a chunk traces, and ShapeProp then records every value's shape. Both run on the
"meta" device (shapes, no data, no arithmetic; the CPU only for a model that fails there). Each graph node
becomes a layer, a view of another layer's output (flatten, identity, permute, reshape: no
work of its own; fx_tokens.py has the token operations), a constant (computed from parameters
alone), or an Unsupported error naming it. torchvision's StochasticDepth
(EfficientNet's randomly dropped residual branches) is kept whole, as a leaf: in training it
multiplies its branch by a random mask, which the format counts as a dropout.
"""

import contextlib
import operator

from fx_tokens import Chunks, Const, TokenOps
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


class Walker(TokenOps):
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
                        nn.Linear: self.linear, nn.Flatten: self.view,
                        nn.Identity: lambda node, module: self.values[node.args[0]]}
        for leaf in leaf_modules(torch):
            self.modules[leaf] = self.kind("dropout")
        self.functions = {F.relu: self.kind("relu"), torch.relu: self.kind("relu"),
                          F.relu6: self.kind("relu"), F.dropout: self.kind("dropout"),
                          F.softmax: self.kind("softmax"), torch.softmax: self.kind("softmax"),
                          F.max_pool2d: self.max_pool, F.max_pool3d: self.max_pool,
                          F.avg_pool2d: self.avg_pool, F.avg_pool3d: self.avg_pool,
                          F.adaptive_avg_pool2d: self.adaptive,
                          F.adaptive_avg_pool3d: self.adaptive,
                          torch.flatten: self.view, torch.cat: self.cat,
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
        self.methods = {"relu": self.kind("relu"), "add": self.add,
                        "add_": self.add, "sigmoid": self.kind("sigmoid"), "mul": self.mul,
                        "mul_": self.mul, "mean": self.mean}
        modules, functions, methods = self.token_tables(torch)
        self.modules.update(modules)
        self.functions.update(functions)
        self.methods.update(methods)
        for m in (nn.Dropout, nn.Dropout2d):  # p = 0 does nothing (ViT's)
            self.modules[m] = self.dropout_module
        self.functions[F.dropout] = self.dropout_function
        self.functions[F.softmax] = self.functions[torch.softmax] = self.softmax
        self.modules[nn.Softmax] = self.softmax
        self.methods["flatten"] = self.view
        self.function_names.update({torch.permute: "torch.permute", operator.getitem: "[]",
                                    torch.matmul: "torch.matmul", operator.matmul: "@",
                                    torch.einsum: "torch.einsum", torch.roll: "torch.roll",
                                    torch.chunk: "torch.chunk", torch.transpose: "transpose"})

    # ------------------------------------------------------------ values

    def out_shape(self, node):
        meta = node.meta.get("tensor_meta")
        if meta is None or not hasattr(meta, "shape"):
            raise Unsupported(node.name, self.op(node), "its output is not one tensor")
        return tuple(meta.shape)[1:]

    def input(self, node, index=0, contiguous=False):
        """The value of argument `index` as a layer output of its own shape (a permuted view
        copied first when the kernel needs contiguous memory)."""
        arg = node.args[index]
        if arg not in self.values or not isinstance(self.values[arg], Tensor):
            raise Unsupported(node.name, self.op(node), "an input that is not a tensor of the "
                              "network")
        return self.values[arg]

    def settled_input(self, node, contiguous):
        return self.settled(node, self.input(node), contiguous)

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
        return lambda node, module=None: self.net.same_shape(
            node.name, self.op(node), kind, self.settled_input(node, False))

    def dropout_module(self, node, module):
        return self.input(node) if module.p == 0 else self.kind("dropout")(node)

    def dropout_function(self, node, module=None):
        a = bind(node, ["input", "p", "training"], {"p": 0.5, "training": True})
        if a["p"] == 0 or not a["training"]:
            return self.input(node)
        return self.kind("dropout")(node)

    def conv(self, node, module):
        x, shape = self.settled_input(node, True), self.out_shape(node)
        n = len(x.spatial)
        padding = module.padding
        if isinstance(padding, str):  # "same" or "valid"
            padding = [(k - 1) // 2 if padding == "same" else 0 for k in module.kernel_size]
        y = Tensor(None, shape[0], shape[1:])
        return self.net.conv(node.name, self.op(node), x, y, per_extent(module.kernel_size, n),
                             per_extent(module.stride, n), per_extent(padding, n),
                             module.groups, per_extent(module.dilation, n))

    def pool(self, node, kernel, stride, padding, dilation):
        x, shape = self.settled_input(node, True), self.out_shape(node)
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
        x = self.settled_input(node, True)
        if x.cdim != 1:
            raise Unsupported(node.name, self.op(node), "pooling a channels-last tensor")
        return self.net.adaptive_pool(node.name, self.op(node), x, self.out_shape(node)[1:])

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
        return self.linear_over(node, self.input(node), module.in_features,
                                module.out_features)

    def operands(self, node, kind):
        """The settled network tensors of a binary add or mul; one when the other factor is
        a parameter or a constant (then the layer has one input)."""
        args = self.tensor_args(node)
        if len(args) == 1:
            return [self.net.settle(node.name, self.op(node), self.values[args[0]], False)]
        ts = [self.values[a] for a in args]
        if len(ts) == 2 and ts[0].dims == ts[1].dims and ts[0].cdim != ts[1].cdim:
            ts[1] = ts[1].view(ts[1].dims, ts[0].cdim, ts[1].strided)
        return [self.net.settle(node.name + ("_%d" % i if i else ""), self.op(node), t, False)
                for i, t in enumerate(ts)]

    def add(self, node, module=None):
        ts = self.operands(node, "add")
        if len(ts) == 1:
            return self.net.by_constant(node.name, self.op(node), "add", ts[0])
        return self.net.add(node.name, self.op(node), ts)

    def mul(self, node, module=None):
        ts = self.operands(node, "mul")
        if len(ts) == 1:
            return self.net.by_constant(node.name, self.op(node), "mul", ts[0])
        return self.net.mul(node.name, self.op(node), ts[0], ts[1])

    def cat(self, node, module=None):
        """Along the channels: a concat; of one network tensor and parameters (ViT's class
        token): a copy into the larger tensor."""
        a = bind(node, ["tensors", "dim"], {"dim": 0})
        rank = len(self.out_shape(node)) + 1  # with the batch
        ins = [t for t in a["tensors"] if t in self.values and
               not isinstance(self.values[t], Const)]
        if len(ins) == 1 and len(a["tensors"]) > 1:
            return self.copy_of(node, self.values[ins[0]])
        if len(ins) != len(a["tensors"]):
            raise Unsupported(node.name, "cat", "an input that is not a tensor of the network")
        ts = [self.values[t] for t in ins]
        if any(t.cdim != a["dim"] % rank for t in ts):
            raise Unsupported(node.name, "cat", "concatenates along dimension %s, not the "
                              "channels" % a["dim"])
        ts = [self.net.settle("%s_%d" % (node.name, i), "cat", t, False)
              for i, t in enumerate(ts)]
        y = self.net.concat(node.name, "cat", ts)
        return y.view(self.dims(node), ts[0].cdim)

    def copy_of(self, node, t):
        dims = self.dims(node)
        cdim = t.cdim if len(dims) == len(t.dims) else len(dims) - 1
        return self.net.move(node.name, self.op(node), t, dims, cdim)

    # ------------------------------------------------------------ the graph

    def walk(self):
        for node in self.gm.graph.nodes:
            if node.op == "placeholder":
                self.values[node] = self.net.sample
            elif node.op == "output":
                continue
            elif node.op == "get_attr" or not self.tensor_args(node) and not (
                    node.op == "call_function" and node.target is operator.getitem and
                    node.args[0] in self.values and
                    isinstance(self.values[node.args[0]], (tuple, list, Chunks))):
                self.values[node] = Const()  # parameters and what is computed from them
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


@contextlib.contextmanager
def traced_through(fx):
    """Let the tracer enter the functions torchvision's models wrap whole for torch.fx
    (Swin's shifted_window_attention and _patch_merging_pad): their operations are what the
    workload needs."""
    table = fx._symbolic_trace._wrapped_fns_to_patch
    saved = list(table)
    table[:] = [(g, n) for g, n in table
                if not str(g.get("__name__", "")).startswith("torchvision.models.")]
    try:
        yield
    finally:
        table[:] = saved


def trace(torch, model, sample):
    """torch.fx's graph of model, with leaf_modules() kept whole, traced with values: every
    proxy also carries what the operation gives on `sample`, so that shapes are numbers
    (`n, c, h, w = x.shape`, `x.size()`, unpacking a chunk: what symbolic tracing cannot
    follow) and the graph is the one for this input shape."""
    import torch.fx
    leaves = tuple(leaf_modules(torch))

    def value(v):
        return v.value if isinstance(v, torch.fx.Proxy) else v

    class ValueProxy(torch.fx.Proxy):
        def __getattr__(self, k):
            if k in ("shape", "ndim") and "value" in self.__dict__:
                return getattr(self.value, k)
            return super().__getattr__(k)

        def size(self, dim=None):
            return self.value.size() if dim is None else self.value.size(dim)

        def dim(self):
            return self.value.dim()

        def __len__(self):
            return len(self.value)

        def __iter__(self):
            return iter([self[i] for i in range(len(self.value))])

        def __setitem__(self, key, item):  # Swin's shift mask, built in place
            self.tracer.create_proxy("call_function", operator.setitem, (self, key, item), {})

    class Tracer(torch.fx.Tracer):
        computing = False  # inside a value's computation: modules' attributes are plain

        def is_leaf_module(self, m, qualified_name):
            return isinstance(m, leaves) or super().is_leaf_module(m, qualified_name)

        def getattr(self, attr, attr_val, cache):
            return attr_val if self.computing else super().getattr(attr, attr_val, cache)

        def proxy(self, node):
            return ValueProxy(node, self)

        def create_proxy(self, kind, target, args, kwargs, name=None, type_expr=None,
                         proxy_factory_fn=None):
            rv = super().create_proxy(kind, target, args, kwargs, name, type_expr,
                                      proxy_factory_fn)
            self.computing = True
            try:
                rv.value = self.compute(kind, target, torch.fx.node.map_aggregate(args, value),
                                        torch.fx.node.map_aggregate(kwargs, value))
            finally:
                self.computing = False
            return rv

        def compute(self, kind, target, args, kwargs):
            if kind == "placeholder":
                return sample
            if kind == "get_attr":
                obj = self.root
                for atom in target.split("."):
                    obj = getattr(obj, atom)
                return obj
            if kind == "call_function":
                return target(*args, **kwargs)
            if kind == "call_method":
                return getattr(args[0], target)(*args[1:], **kwargs)
            module = self.root.get_submodule(target)
            training = module.training
            module.eval()  # one sample: batch norm's statistics need no batch
            try:
                return module.forward(*args, **kwargs)
            finally:
                module.train(training)

    with torch.no_grad(), traced_through(torch.fx):
        graph = Tracer().trace(model)
    return torch.fx.GraphModule(model, graph)


def shaped(torch, model, input_shape, device, how):
    """model traced on a zero sample of input_shape on `device`, every node's tensor_meta
    filled by ShapeProp."""
    from torch.fx.passes.shape_prop import ShapeProp

    model = model.to(device)
    try:
        gm = trace(torch, model, torch.zeros((1,) + tuple(input_shape), device=device))
    except Exception as e:  # data-dependent control flow cannot be traced
        raise ValueError("torch.fx cannot trace %s: %s" % (how, e))
    gm.eval()
    with torch.no_grad():
        ShapeProp(gm).propagate(torch.zeros((1,) + tuple(input_shape), device=device))
    return gm


def load_module(make, input_shape, network_class, how):
    """The network of the nn.Module make() builds, on one sample of input_shape (C, H, W).
    Traced on the "meta" device first: tensors with shapes and no data, so that no operation
    does its arithmetic (ViT-B/16's took 16 s of CPU) and the graph and shapes are the CPU's;
    on the CPU only when that fails (an operation with no meta kernel, or what fails on the
    CPU too: then the error is the CPU's)."""
    import torch

    try:
        gm = shaped(torch, make(), input_shape, "meta", how)
    except Exception:
        gm = shaped(torch, make(), input_shape, "cpu", how)
    network = network_class(input_shape[0], input_shape[1:])
    Walker(torch, gm, network).walk()
    return network


def load(name, input_shape, network_class):
    """The network of torchvision model `name` on one sample of input_shape (C, H, W)."""
    import torch
    import torchvision

    network = load_module(lambda: build(torch, torchvision, name), input_shape, network_class,
                          "torchvision:%s" % name)
    return network, "torchvision %s, torch.fx" % torchvision.__version__
