/* search_graph.c: a workload as the search sees it (search.h): operations and the tensors
 * between them, built the way PaSE's graph.py builds its networks, so that a hybridsim workload
 * of PaSE's AlexNet, ResNet-101 or Inception-v3 gives PaSE's vertices, in PaSE's id order.
 *
 * Walking the layers in file order, each layer either becomes a vertex or passes its producer's
 * tensor on (relu, dropout, lrn: PaSE has no such ops; a relu right after a conv, fc or add is
 * that op's point-wise op, pw). A tensor is the producing vertex's output: (b, c, h, w(, d)) for
 * images, (b, c) after an fc or a global average pool, one flat axis after a ravel. An fc fed
 * by an image gets PaSE's Reshape in front: a ravel and an unravel vertex. A sequence model (an
 * embed first; PaSE's RNNLM and Transformer) has sequences (b, c, 1, w) of w positions: an embed,
 * an lstm, a 1x1 convolution as an fc at every position, and PaSE's attention ops
 * (search_attention.c). */
#include "search_build_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const op_names[SR_OP_COUNT] = {
    "conv", "fc", "pool", "bnorm", "add", "concat", "mean", "softmax", "ravel", "unravel",
    "embed", "lstm", "lnorm", "einsum", "unstack", "stack", "attn"};

const char *sr_op_name(sr_op op)
{
    return op >= 0 && op < SR_OP_COUNT ? op_names[op] : "?";
}

static sr__tensor image_tensor(int64_t batch, const wl_shape *s)
{
    /* hybridsim writes CxWxH(xD); the search's axes are (b, c, h, w, d) as PaSE's (b, c, h, w). */
    sr__tensor t = {s->n_spatial + 2, {batch, s->channels, s->spatial[1], s->spatial[0], 1}};
    if (s->n_spatial == 3)
        t.shape[4] = s->spatial[2];
    return t;
}

static sr__tensor flat_tensor(int64_t batch, int64_t features)
{
    sr__tensor t = {2, {batch, features, 1, 1, 1}};
    return t;
}

static int64_t tensor_elems(const sr__tensor *t)
{
    int64_t n = 1;
    for (int i = 0; i < t->n_axes; i++)
        n *= t->shape[i];
    return n;
}


/* The iteration space of a tensor-shaped op: its axes as (b, c, h, w, d). */
static sr_config tensor_dom(const sr__tensor *t)
{
    sr_config d = sr__ones();
    d.b = t->shape[0];
    d.c = t->shape[1];
    if (t->n_axes >= 4) {
        d.h = t->shape[2];
        d.w = t->shape[3];
    }
    if (t->n_axes == 5)
        d.d = t->shape[4];
    return d;
}

/* The vertices feeding layer i, as vertex ids (-1: the input data), and how many. */
static int producers(const sr__builder *b, int i, int *from)
{
    const wl_layer *l = &b->wl->layers[i];
    if (l->n_inputs == 0) {
        from[0] = i == 0 ? -1 : b->g->vertex_of_layer[i - 1];
        return 1;
    }
    for (int k = 0; k < l->n_inputs; k++)
        from[k] = l->inputs[k] == WL_INPUT_DATA ? -1 : b->g->vertex_of_layer[l->inputs[k]];
    return l->n_inputs;
}

/* The tensor vertex u produces, or the data sample for u = -1. */
static sr__tensor tensor_of(const sr__builder *b, int u)
{
    return u < 0 ? image_tensor(b->g->batch, &b->wl->sample) : b->out[u];
}

/* A global average pool: the window is the whole input and leaves one element per channel. */
static bool is_global_pool(const wl_layer *l)
{
    for (int i = 0; i < l->x.n_spatial; i++)
        if (l->w_kernel[i] != l->x.spatial[i] || l->y.spatial[i] != 1 || l->padding[i] != 0)
            return false;
    return true;
}

/* A layer that computes each position of a sequence alike (a 1x1 convolution, unpadded, stride
 * 1, over a tensor of height 1): PaSE's FC on a (batch, sequence, width) tensor. */
static bool per_position(const sr__builder *b, const wl_layer *l, const sr__tensor *in)
{
    return b->g->sequence && in->n_axes == 4 && in->shape[2] == 1 && l->stride == 1 &&
           l->w_kernel[0] == 1 && l->w_kernel[1] == 1 && l->padding[0] == 0 &&
           l->padding[1] == 0 && (l->groups <= 1);
}

/* A sequence layer's iteration space (sr_vertex.dom) and its output (b, f, 1, positions). */
static int sequence_vertex(sr__builder *b, int i, sr_op op, const sr__tensor *in)
{
    const wl_layer *l = &b->wl->layers[i];
    sr__tensor out = image_tensor(b->g->batch, &l->y);
    sr_config dom = sr__ones();
    dom.b = b->g->batch;
    dom.w = in->shape[3];
    dom.f = l->y.channels;
    dom.c = op == SR_EMBED ? l->w_in : l->x.channels;
    if (op == SR_LSTM)
        dom.d = l->w_kernel[0];
    return sr__add_vertex(b, op, i, "", dom, 4, &out);
}

static int conv_vertex(sr__builder *b, int i, const sr__tensor *in)
{
    const wl_layer *l = &b->wl->layers[i];
    if (per_position(b, l, in))
        return sequence_vertex(b, i, SR_FC, in);
    sr__tensor out = image_tensor(b->g->batch, &l->y);
    sr_config dom = tensor_dom(&out);
    dom.f = l->y.channels;
    dom.c = l->x.channels;
    dom.kw = l->w_kernel[0];
    dom.kh = l->w_kernel[1];
    return sr__add_vertex(b, SR_CONV, i, "", dom, in->n_axes, &out);
}

static int pool_vertex(sr__builder *b, int i, const sr__tensor *in)
{
    const wl_layer *l = &b->wl->layers[i];
    if (is_global_pool(l)) {
        sr__tensor out = flat_tensor(b->g->batch, l->y.channels);
        return sr__add_vertex(b, SR_MEAN, i, "", tensor_dom(in), in->n_axes, &out);
    }
    sr__tensor out = image_tensor(b->g->batch, &l->y);
    int id = sr__add_vertex(b, SR_POOL, i, "", tensor_dom(&out), in->n_axes, &out);
    if (id >= 0) {
        sr_vertex *v = &b->g->v[id];
        v->in_h = in->shape[2];
        v->in_w = in->shape[3];
        v->in_d = in->n_axes == 5 ? in->shape[4] : 1;
        v->win_w = l->w_kernel[0];
        v->win_h = l->w_kernel[1];
    }
    return id;
}

/* PaSE's Reshape before an fc fed by an image: ravel to one axis, unravel to (b, features).
 * Returns the unravel's id (the fc's producer) or -1. */
static int reshape_vertices(sr__builder *b, int i, int from, const sr__tensor *in)
{
    sr__tensor flat = {1, {tensor_elems(in), 1, 1, 1, 1}};
    int ravel = sr__add_vertex(b, SR_RAVEL, i, ":ravel", tensor_dom(in), in->n_axes, &flat);
    if (ravel < 0 || (from >= 0 && sr__add_edge(b, from, ravel, 0)))
        return -1;
    sr__tensor rows = flat_tensor(b->g->batch, tensor_elems(in) / b->g->batch);
    int unravel = sr__add_vertex(b, SR_UNRAVEL, i, ":unravel", tensor_dom(&rows), 1, &rows);
    if (unravel < 0 || sr__add_edge(b, ravel, unravel, 0))
        return -1;
    return unravel;
}

/* An fc (after the reshape it needs, if any); returns its id or -1, and *from is updated to
 * the vertex it reads. */
static int fc_vertex(sr__builder *b, int i, int *from, const sr__tensor *in)
{
    const wl_layer *l = &b->wl->layers[i];
    sr__tensor x = *in;
    if (in->n_axes != 2) {
        if ((*from = reshape_vertices(b, i, *from, in)) < 0)
            return -1;
        x = b->out[*from];
    }
    sr__tensor out = flat_tensor(b->g->batch, l->y.channels);
    sr_config dom = sr__ones();
    dom.b = b->g->batch;
    dom.f = l->y.channels;
    dom.c = x.shape[1];
    return sr__add_vertex(b, SR_FC, i, "", dom, 2, &out);
}

/* The vertex for layer i reading the tensor `in` of vertex *from; -1 on failure. */
/* Mark vertex id (if any) as working on a sequence tensor (b, c, 1, w). */
static int sequence_op(sr__builder *b, int id)
{
    if (id >= 0 && b->g->sequence && b->g->v[id].n_axes == 4 && b->out[id].shape[2] == 1)
        b->g->v[id].sequence = true;
    return id;
}

static int layer_vertex(sr__builder *b, int i, int *from, const sr__tensor *in)
{
    const wl_layer *l = &b->wl->layers[i];
    int id;
    if (b->g->sequence && sr__attention_vertex(b, i, *from, in, &id))
        return id;
    switch (l->type) {
    case WL_CONV:
        if (in->n_axes < 4)
            break;
        return conv_vertex(b, i, in);
    case WL_POOL:
        if (in->n_axes < 4)
            break;
        return pool_vertex(b, i, in);
    case WL_FC: return fc_vertex(b, i, from, in);
    case WL_SOFTMAX:
        if (in->n_axes != 2 && !(b->g->sequence && in->n_axes == 4 && in->shape[2] == 1))
            break;
        return sequence_op(b, sr__add_vertex(b, SR_SOFTMAX, i, "", tensor_dom(in), in->n_axes, in));
    case WL_EMBED:
    case WL_LSTM:
        if (!b->g->sequence || in->n_axes != 4 || in->shape[2] != 1)
            break;
        return sequence_vertex(b, i, l->type == WL_EMBED ? SR_EMBED : SR_LSTM, in);
    case WL_BNORM: return sr__add_vertex(b, SR_BNORM, i, "", tensor_dom(in), in->n_axes, in);
    case WL_ADD:
        return sequence_op(b, sr__add_vertex(b, SR_ADD, i, "", tensor_dom(in), in->n_axes, in));
    case WL_LAYERNORM:
        if (!b->g->sequence || in->n_axes != 4 || in->shape[2] != 1)
            break;
        return sequence_op(b, sr__add_vertex(b, SR_LNORM, i, "", tensor_dom(in), 4, in));
    case WL_CONCAT: {
        sr__tensor out = *in;
        out.shape[1] = l->y.channels;
        sr_config dom = tensor_dom(in);
        dom.c = 1; /* PaSE never splits the concatenated axis */
        return sr__add_vertex(b, SR_CONCAT, i, "", dom, in->n_axes, &out);
    }
    default: break;
    }
    b->status = hs_fail(b->err, HS_EINPUT, "layer %s (%s): the search has no %s on a%s tensor",
                        l->name, wl_type_name(l->type), wl_type_name(l->type),
                        in->n_axes == 2 ? " flattened (batch, features)"
                        : b->g->sequence ? " sequence (an embed first: sequences of height 1)"
                                         : "n image");
    return -1;
}

/* relu, dropout, lrn and the other activations: no vertex; the layer follows its producer. */
static void pass_through(sr__builder *b, int i, int from)
{
    b->g->vertex_of_layer[i] = from;
    wl_type t = b->wl->layers[i].type;
    bool pointwise = t == WL_RELU || (t == WL_DROPOUT && b->g->sequence); /* PaSE's FF: 2 */
    if (!pointwise || from < 0)
        return;
    sr_vertex *u = &b->g->v[from];
    if (u->op == SR_CONV || u->op == SR_FC || u->op == SR_ADD)
        u->pw++;
}

static bool same_tensor(const sr__tensor *a, const sr__tensor *t)
{
    return a->n_axes == t->n_axes && memcmp(a->shape, t->shape, sizeof a->shape) == 0;
}

static int add_layer(sr__builder *b, int i)
{
    const wl_layer *l = &b->wl->layers[i];
    int from[WL_MAX_INPUTS] = {-1, -1, -1, -1};
    int n = producers(b, i, from);
    if (wl_is_activation(l->type) || l->type == WL_DROPOUT || l->type == WL_LRN) {
        pass_through(b, i, from[0]);
        return HS_OK;
    }
    sr__tensor in = tensor_of(b, from[0]);
    int first = from[0];
    int id = layer_vertex(b, i, &first, &in);
    if (id < 0)
        return b->status;
    b->g->vertex_of_layer[i] = id;
    for (int k = 0; k < n; k++) {
        int u = k == 0 ? first : from[k];
        if (u < 0)
            continue;
        if (k > 0 && l->type == WL_ADD && !same_tensor(&b->out[u], &in))
            continue; /* a resized shortcut: its omitted projection takes any layout, free */
        if (k > 0 && b->out[u].n_axes != in.n_axes && b->g->v[id].n_slots == 0)
            return hs_fail(b->err, HS_EINPUT, "layer %s: its inputs have different layouts "
                           "(an image and a flattened tensor)", l->name);
        if (sr__add_edge(b, u, id, k))
            return HS_EINTERNAL;
    }
    return HS_OK;
}

void sr_graph_free(sr_graph *g)
{
    for (int i = 0; g->v && i < g->n_vertices; i++)
        free(g->v[i].configs);
    free(g->v);
    free(g->e);
    free(g->vertex_of_layer);
    memset(g, 0, sizeof *g);
}

bool sr_is_sequence(const wl_workload *wl)
{
    return wl->n_layers > 0 && wl->layers[0].type == WL_EMBED;
}

int sr_graph_build(const wl_workload *wl, int64_t batch, const sr_options *opt, sr_graph *g,
                   char *err)
{
    memset(g, 0, sizeof *g);
    if (batch < 1 || opt->devices < 1 || opt->cutoff < 1)
        return hs_fail(err, HS_EINPUT, "search: batch, devices and cutoff must be positive");
    g->batch = batch;
    g->devices = opt->devices;
    g->n_spatial = wl->sample.n_spatial;
    g->sequence = sr_is_sequence(wl);
    g->n_layers = wl->n_layers;
    g->vertex_of_layer = calloc((size_t)(wl->n_layers ? wl->n_layers : 1), sizeof(int));
    if (!g->vertex_of_layer)
        return hs_fail(err, HS_EINTERNAL, "search graph: out of memory");
    sr__builder b = {.wl = wl, .g = g, .err = err};
    int status = HS_OK;
    for (int i = 0; i < wl->n_layers && status == HS_OK; i++)
        status = add_layer(&b, i);
    if (status == HS_OK && g->sequence)
        sr__name_dims(g);
    for (int i = 0; i < g->n_vertices && status == HS_OK; i++)
        status = sr_configs(&g->v[i], opt, err);
    free(b.out);
    if (status != HS_OK)
        sr_graph_free(g);
    return status;
}
