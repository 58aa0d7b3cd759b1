#!/usr/bin/env python3
"""make_pase_transformer.py: writes workloads/pase-transformer.xml, the Transformer exactly as
PaSE's graph.py builds it (graph.Transformer, baidu-research/PaSE at 32aa761; the small model:
6 encoder and 6 decoder layers, width 512, 8 heads of 64, feed-forward 2048, vocabulary 50000,
sentences of 256 tokens), in hybridsim's workload format, layer by layer in PaSE's vertex order.

PaSE's ops become hybridsim layers as the search reads them back (analytic/search/search_graph.c):
  Embedding                   embed (token ids of the sample, both the encoder's and decoder's)
  Elementwise(embed, pos_enc) add with one input (the position encoding is a constant)
  Einsum ble,shek->sbhlk      conv 1x1 to 3 x heads x 64, read by three moves (q, k, v)
  Stack + sble,shek->sbhlk    concat (decoder state, encoder output twice) + grouped conv (3)
  Unstack                     the three moves
  Einsum bhlk,bhmk->bhlm      matmul (q k^T), products = heads
  Softmax                     softmax
  Einsum bhlm,bhmk->bhlk      matmul (a v)
  Einsum bhlk,hek->ble        conv 1x1 reading the matmul
  Elementwise, Norm           add (residual), layernorm
  Einsum ble,ef->blf (pw 2)   conv 1x1, relu, dropout; then conv 1x1 back
  Einsum ble,ev->blv + loss   conv 1x1 to the vocabulary, softmax
Run from anywhere: python3 tests/search/make_pase_transformer.py
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "experiments", "lib"))
import hs_out  # noqa: E402 (the scripts' one safe writer: whole or not at all)

OUT = os.path.join(HERE, "..", "..", "workloads", "pase-transformer.xml")
L, V, E, H, DK, FF, NX = 256, 50000, 512, 8, 64, 2048, 6


def seq(c):
    return f"{c}x{L}x1"


class Net:
    def __init__(self):
        self.lines, self.last = [], None

    def add(self, lid, ltype, x, y, inputs=None, **attrs):
        a = [f'id="{lid}"', f'type="{ltype}"', f'x="{x}"']
        a += [f'{k}="{v}"' for k, v in attrs.items()]
        a.append(f'y="{y}"')
        if inputs:
            a.append(f'inputs="{" ".join(inputs)}"')
        self.lines.append("    <layer " + " ".join(a) + "/>")
        self.last = lid
        return lid

    def conv(self, lid, c, f, src=None, groups=1):
        extra = {"groups": groups} if groups > 1 else {}
        return self.add(lid, "conv", seq(c), seq(f), [src] if src else None,
                        w=f"{c // groups * groups}x{f}x1x1", **extra)

    def attention(self, p, x, memory=None):
        """PaSE's MultiheadAttention([x]) or ([x, memory, memory]); returns the norm's id."""
        if memory:
            self.add(p + "STACK", "concat", seq(3 * E), seq(3 * E), [x, memory, memory])
            self.conv(p + "QKV", 3 * E, 3 * E, groups=3)
        else:
            self.conv(p + "QKV", E, 3 * H * DK, x if self.last != x else None)
        self.add(p + "Q", "move", seq(3 * H * DK), seq(H * DK))
        self.add(p + "K", "move", seq(3 * H * DK), seq(H * DK), [p + "QKV"])
        self.add(p + "V", "move", seq(3 * H * DK), seq(H * DK), [p + "QKV"])
        self.add(p + "SCORES", "matmul", seq(H * DK), seq(H * L), [p + "Q", p + "K"],
                 m=L, n=L, k=DK, products=H)
        self.add(p + "ATTN", "softmax", seq(H * L), seq(H * L))
        self.add(p + "CTX", "matmul", seq(H * L), seq(H * DK), [p + "ATTN", p + "V"],
                 m=L, n=DK, k=L, products=H)
        self.conv(p + "OUT", H * DK, E)
        self.add(p + "ADD", "add", seq(E), seq(E), [x, p + "OUT"])
        return self.add(p + "NORM", "layernorm", seq(E), seq(E))

    def feed_forward(self, p, x):
        self.conv(p + "FF1", E, FF)
        self.add(p + "RELU", "relu", seq(FF), seq(FF))
        self.add(p + "DROP", "dropout", seq(FF), seq(FF))
        self.conv(p + "FF2", FF, E)
        self.add(p + "FFADD", "add", seq(E), seq(E), [x, p + "FF2"])
        return self.add(p + "FFNORM", "layernorm", seq(E), seq(E))


def build():
    n = Net()
    n.add("ENC_EMBED", "embed", seq(1), seq(E), w=f"{V}x{E}")
    x = n.add("ENC_POS", "add", seq(E), seq(E))
    for i in range(NX):
        x = n.feed_forward(f"E{i}_", n.attention(f"E{i}_", x))
    enc = x
    n.add("DEC_EMBED", "embed", seq(1), seq(E), w=f"{V}x{E}")
    x = n.add("DEC_POS", "add", seq(E), seq(E))
    for i in range(NX):
        a = n.attention(f"D{i}_", x)
        x = n.feed_forward(f"D{i}_", n.attention(f"D{i}_X", a, enc))
    n.conv("PROJ", E, V)
    n.add("SOFTMAX", "softmax", seq(V), seq(V))
    return n


DESCRIPTION = (
    "The Transformer as PaSE builds it (Elango, IPDPS 2021; graph.Transformer in "
    "baidu-research/PaSE at 32aa761, its small model), for the search with --cost-model pase "
    "and its check values (tests/test_search.c): sentences of 256 tokens, a 50000-word "
    "vocabulary, width 512, 8 heads of 64, feed-forward 2048, 6 encoder and 6 decoder layers, "
    "post-norm; the decoder's cross-attention stacks its state with the encoder's output twice "
    "and projects the three with one grouped 1x1 convolution, as PaSE's Einsum over the stack. "
    "No causal mask, no label smoothing, as PaSE. A sample is one sentence: 1x256x1 token ids, "
    "which both the encoder's and the decoder's embed read (PaSE has two inputs of that shape). "
    "Samples: the about 4.5 million sentence pairs of WMT 2014 English-German (Vaswani et al., "
    "2017). No time is measured: the compute comes from the kernel-time model. Written by "
    "tests/search/make_pase_transformer.py.")


def main():
    n = build()
    text = ['<?xml version="1.0" encoding="UTF-8"?>',
            '<!DOCTYPE workload SYSTEM "workload.dtd">',
            '<workload name="pase-transformer">',
            f"  <description>{DESCRIPTION}</description>",
            f'  <dataset name="WMT14-EN-DE" samples="4500000" sample="{seq(1)}"/>',
            '  <calibration method="none"/>', "  <layers>"] + n.lines + ["  </layers>",
                                                                     "</workload>"]
    try:
        hs_out.write("output", OUT, "\n".join(text) + "\n")
    except (hs_out.Refused, hs_out.Failed) as e:
        print("make_pase_transformer: %s" % e, file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
