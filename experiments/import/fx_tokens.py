"""fx_tokens.py: the torch.fx operations of token and channels-last networks (vision
transformers, Swin, MaxViT, ConvNeXt, ShuffleNet's channel split and shuffle), as a mixin of
from_fx.Walker.

A value keeps its PyTorch shape and which dimension holds the channels (layers.Tensor). Views
(permute, transpose, swapaxes, view, reshape of contiguous memory, unsqueeze) write no layer:
the next layer reads the same output, permuted (strided) or reshaped. A kernel that needs
contiguous memory (convolution, pooling, linear, layer norm, softmax, reshape of a permuted
view, contiguous()) copies a permuted view first: a `move` layer, as PyTorch does; element-wise
kernels read it in place. Slices, chunks, rolls, pads and a cat with a parameter (ViT's class
token) copy: `move`. Products of two activations (matmul, @, bmm, einsum) are `matmul`; layer
norm over the channels `layernorm`; an add or a mul by a parameter or a constant has one input.
Computations on parameters alone (Swin's relative position bias, MaxViT's, a shift mask) are
constants: once an iteration, whatever the batch, they are left out. nn.MultiheadAttention
(traced whole by torch.fx, as every torch.nn module) is written out as PyTorch 1.13's
F.multi_head_attention_forward runs it.
"""

import math
import operator

from layers import Unsupported


class Const:
    """A value computed from parameters and constants only (no layer)."""


class Chunks:
    """The pieces of chunk / split: each a copy when taken (getitem)."""

    def __init__(self, tensor):
        self.tensor = tensor


class TokenOps:
    """Handlers for from_fx.Walker (self.net, self.values, self.out_shape, self.op)."""

    def token_tables(self, torch):
        nn, F = torch.nn, torch.nn.functional
        modules = {nn.LayerNorm: self.layer_norm_module, nn.MultiheadAttention: self.mha,
                   nn.Tanh: self.kind("tanh")}
        functions = {torch.permute: self.permute, torch.transpose: self.transpose,
                     torch.swapaxes: self.transpose, torch.reshape: self.reshape,
                     torch.chunk: self.chunk, torch.split: self.chunk,
                     operator.getitem: self.getitem, torch.roll: self.copy, F.pad: self.pad,
                     F.layer_norm: self.layer_norm, F.normalize: self.normalize,
                     F.linear: self.linear_function, torch.matmul: self.matmul,
                     operator.matmul: self.matmul, torch.bmm: self.matmul,
                     torch.einsum: self.einsum, torch.tanh: self.kind("tanh"),
                     operator.sub: self.sub}
        methods = {"permute": self.permute, "transpose": self.transpose,
                   "swapaxes": self.transpose, "reshape": self.reshape, "view": self.view,
                   "contiguous": self.contiguous, "chunk": self.chunk, "split": self.chunk,
                   "unsqueeze": self.view, "squeeze": self.view, "matmul": self.matmul,
                   "softmax": self.softmax, "tanh": self.kind("tanh")}
        for m in ("new_zeros", "new_ones", "new_full", "new_empty"):  # a mask's constant
            methods[m] = lambda node, module=None: Const()
        return modules, functions, methods

    # ------------------------------------------------------------ helpers

    def tensor_args(self, node):
        """The network tensors among node's arguments (Const and numbers left out)."""
        found = []

        def visit(a):
            if hasattr(a, "op") and a in self.values and not isinstance(self.values[a], Const):
                found.append(a)
            elif isinstance(a, (list, tuple)):
                for b in a:
                    visit(b)
            elif isinstance(a, dict):
                for b in a.values():
                    visit(b)
        visit(list(node.args))
        visit(dict(node.kwargs))
        return found

    def dims(self, node):
        """node's PyTorch shape on one sample, the batch of 1 included."""
        meta = node.meta.get("tensor_meta")
        if meta is None or not hasattr(meta, "shape"):
            raise Unsupported(node.name, self.op(node), "its output is not one tensor")
        return tuple(meta.shape)

    def settled(self, node, t, contiguous):
        return self.net.settle(node.name, self.op(node), t, contiguous)

    def features_last(self, t):
        """t seen with its last dimension as the channels (layer norm, linear)."""
        return t if t.cdim == len(t.dims) - 1 else t.view(t.dims, len(t.dims) - 1, t.strided)

    # ------------------------------------------------------------ views and copies

    def permute(self, node, module=None):
        t = self.input(node)
        perm = node.args[1:] if len(node.args) > 2 else node.args[1]
        perm = node.kwargs.get("dims", perm)
        return self.permuted(node, t, [d % len(t.dims) for d in perm])

    def permuted(self, node, t, per):
        moved = [i for i in per if t.dims[i] != 1] != [i for i in sorted(per) if t.dims[i] != 1]
        return t.view(self.dims(node), per.index(t.cdim), t.strided or moved)

    def transpose(self, node, module=None):
        t = self.input(node)
        pair = [node.args[1] % len(t.dims), node.args[2] % len(t.dims)]
        per = list(range(len(t.dims)))
        per[pair[0]], per[pair[1]] = per[pair[1]], per[pair[0]]
        return self.permuted(node, t, per)

    def reshaped_cdim(self, t, dims):
        """The channels after a reshape: the first new dimension (not 1) that covers part of
        the old channel dimension in memory order (the channels split or merged stay
        channels)."""
        lo = math.prod(t.dims[:t.cdim])
        hi = lo * t.dims[t.cdim]
        below = 1
        for i, d in enumerate(dims):
            if d > 1 and below < hi and below * d > lo:
                return i
            below *= d
        return len(dims) - 1

    def view(self, node, module=None):
        """A view (view, unsqueeze, squeeze, reshape of contiguous memory): no layer. A
        sample flattened whole stays unflattened, which the fully connected layer covers."""
        t, dims = self.input(node), self.dims(node)
        if len(dims) == 2 and not t.strided and dims[1] == math.prod(t.dims):
            return t
        return t.view(dims, self.reshaped_cdim(t, dims), t.strided)

    def reshape(self, node, module=None):
        t = self.input(node)
        if t.strided:  # PyTorch copies a permuted view to reshape it
            t = self.settled(node, t, True)
        return self.view(node) if t is self.input(node) else \
            t.view(self.dims(node), self.reshaped_cdim(t, self.dims(node)))

    def contiguous(self, node, module=None):
        return self.settled(node, self.input(node), True)

    def copy(self, node, module=None):
        """A copy into the output's shape (roll, a slice, a pad)."""
        t = self.input(node)
        dims = self.dims(node)
        cdim = t.cdim if len(dims) == len(t.dims) else len(dims) - 1
        return self.net.move(node.name, self.op(node), t, dims, cdim)

    def pad(self, node, module=None):
        a = node.args[1] if len(node.args) > 1 else node.kwargs.get("pad")
        return self.input(node) if not any(a) else self.copy(node)

    def chunk(self, node, module=None):
        return Chunks(self.input(node))

    def getitem(self, node, module=None):
        v = self.values.get(node.args[0])
        if isinstance(v, (tuple, list)):
            return v[node.args[1]]
        if isinstance(v, Chunks):
            t = v.tensor
            return self.net.move(node.name, self.op(node), t, self.dims(node), t.cdim)
        t = self.input(node)
        if self.dims(node) == t.dims:  # a slice that keeps everything
            return t
        return self.copy(node)

    def sub(self, node, module=None):
        raise Unsupported(node.name, "-", "a difference of network tensors")

    # ------------------------------------------------------------ layers

    def layer_norm_module(self, node, module):
        shape = tuple(module.normalized_shape)
        return self.layer_norm_over(node, shape)

    def layer_norm(self, node, module=None):
        shape = node.args[1] if len(node.args) > 1 else node.kwargs["normalized_shape"]
        return self.layer_norm_over(node, tuple(shape))

    def layer_norm_over(self, node, shape):
        t = self.input(node)
        if len(shape) == 1 and shape[0] == math.prod(t.dims) == t.channels:  # a flat sample
            return self.net.same_shape(node.name, self.op(node), "layernorm", t)
        if len(shape) != 1 or shape[0] != t.dims[-1]:
            raise Unsupported(node.name, self.op(node), "a layer norm over %s, not the last "
                              "dimension of %s" % (shape, t.dims))
        t = self.settled(node, self.features_last(t), True)
        return self.net.same_shape(node.name, self.op(node), "layernorm", t)

    def normalize(self, node, module=None):
        """F.normalize over the last dimension: a norm and a divide per row, as a layer norm."""
        t = self.input(node)
        dim = node.kwargs.get("dim", node.args[2] if len(node.args) > 2 else 1)
        if dim % len(t.dims) != len(t.dims) - 1:
            raise Unsupported(node.name, self.op(node), "a normalisation over another "
                              "dimension than the last")
        t = self.settled(node, self.features_last(t), True)
        return self.net.same_shape(node.name, self.op(node), "layernorm", t)

    def softmax(self, node, module=None):
        t = self.settled(node, self.input(node), True)
        return self.net.same_shape(node.name, self.op(node), "softmax", t)

    def linear_over(self, node, t, in_features, out_features):
        if in_features == math.prod(t.dims) and not t.strided:  # the whole (flat) sample
            return self.net.fc(node.name, self.op(node), t, out_features)
        if t.dims[-1] != in_features:
            raise Unsupported(node.name, self.op(node), "a linear layer over neither the "
                              "sample nor its last dimension")
        t = self.settled(node, self.features_last(t), True)
        return self.net.token_linear(node.name, self.op(node), t, out_features)

    def linear_function(self, node, module=None):
        weight = node.args[1] if len(node.args) > 1 else node.kwargs["weight"]
        out_features, in_features = weight.meta["tensor_meta"].shape
        return self.linear_over(node, self.input(node), in_features, out_features)

    def matmul(self, node, module=None):
        a, b = (self.values.get(x) for x in node.args[:2])
        if any(isinstance(v, Const) or v is None for v in (a, b)):
            raise Unsupported(node.name, self.op(node), "a product with a parameter or a "
                              "constant (only of two activations)")
        if len(a.dims) < 2 or len(b.dims) < 2:
            raise Unsupported(node.name, self.op(node), "a product of vectors")
        m, k, n = a.dims[-2], a.dims[-1], b.dims[-1]
        dims = self.dims(node)
        return self.product(node, a, b, math.prod(dims[:-2]), m, n, k, dims)

    def product(self, node, a, b, products, m, n, k, dims):
        a = self.settled(node, a, False)
        b = self.net.settle(node.name + "_b", self.op(node), b, False)
        return self.net.matmul(node.name, self.op(node), a, b, products, m, n, k, dims)

    def einsum(self, node, module=None):
        """A batched product of two activations written as an einsum ("bhid,bhjd->bhij"):
        letters in both inputs and the output are products, in one input and the output its
        m or n, in both inputs only the k summed."""
        eq = node.args[0].replace(" ", "")
        ops = node.args[1:] if len(node.args) > 2 else node.args[1]
        if len(ops) != 2 or "..." in eq or "->" not in eq:
            raise Unsupported(node.name, "einsum", "not a product of two operands")
        lhs, out = eq.split("->")
        la, lb = lhs.split(",")
        a, b = (self.values.get(x) for x in ops)
        if any(isinstance(v, Const) or v is None for v in (a, b)):
            raise Unsupported(node.name, "einsum", "a product with a parameter or a constant")
        size = dict(zip(la, a.dims))
        size.update(zip(lb, b.dims))
        if any(c not in la + lb for c in out) or \
                any(c not in out and c not in (la if c in lb else "") for c in la + lb):
            raise Unsupported(node.name, "einsum", "'%s' is not a batched matrix product" % eq)
        ext = {"p": 1, "m": 1, "n": 1, "k": 1}
        for c in set(la + lb):
            role = "p" if c in la and c in lb and c in out else "k" if c not in out else \
                "m" if c in la else "n"
            ext[role] *= size[c]
        return self.product(node, a, b, ext["p"], ext["m"], ext["n"], ext["k"],
                            self.dims(node))

    def mha(self, node, module):
        """nn.MultiheadAttention(x, x, x), batch first, as F.multi_head_attention_forward runs
        it: x copied (transposed to tokens first), the packed input projection, q, k and v
        copied out of it, q scaled, Q K^T, softmax, dropout, A V, the heads merged (a copy),
        the output projection. Returns (output, None): need_weights=False."""
        args = [node.args[i] if i < len(node.args) else node.kwargs.get(k)
                for i, k in enumerate(("query", "key", "value"))]
        x = self.values.get(args[0])
        if len(set(args)) != 1 or not module.batch_first or \
                not module._qkv_same_embed_dim or module.bias_k is not None:
            raise Unsupported(node.name, "MultiheadAttention", "only self-attention, batch "
                              "first, packed projections, no added key bias")
        if len(x.dims) != 3:
            raise Unsupported(node.name, "MultiheadAttention", "an input of %s, not tokens x "
                              "features" % (x.dims[1:],))
        net, name, op = self.net, node.name, "MultiheadAttention"
        t, d = x.dims[1:]
        h = module.num_heads
        hd = d // h
        x = net.move(name + "_in", op, self.features_last(x), (1, t, d), 2)
        qkv = net.token_linear(name + "_in_proj", op, x, 3 * d)
        q, k, v = (net.move("%s_%s" % (name, c), op, qkv, (1, h, t, hd), 3) for c in "qkv")
        q = net.by_constant(name + "_scale", op, "mul", q)
        s = net.matmul(name + "_scores", op, q, k, h, t, t, hd, (1, h, t, t))
        s = net.same_shape(name + "_softmax", op, "softmax", s)
        if module.dropout > 0:
            s = net.same_shape(name + "_dropout", op, "dropout", s)
        c = net.matmul(name + "_context", op, s, v, h, t, hd, t, (1, h, t, hd))
        c = net.move(name + "_merge", op, c, (1, t, d), 2)
        return (net.token_linear(name + "_out_proj", op, c, module.out_proj.out_features),
                None)
