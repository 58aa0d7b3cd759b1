/* search_graph.c: a workload as the search sees it (search.h): operations and the tensors
 * between them, built the way PaSE's graph.py builds its networks, so that a hybridsim workload
 * of PaSE's AlexNet, ResNet-101 or Inception-v3 gives PaSE's vertices, in PaSE's id order.
 *
 * Walking the layers in file order, each layer either becomes a vertex or passes its producer's
 * tensor on (relu, dropout, lrn: PaSE has no such ops; a relu right after a conv, fc or add is
 * that op's point-wise op, pw). A tensor is the producing vertex's output: (b, c, h, w(, d)) for
 * images, (b, c) after an fc or a global average pool, one flat axis after a ravel. An fc fed
 * by an image gets PaSE's Reshape in front: a ravel and an unravel vertex. */
#include "search.h"

#include "hs_grow.h"

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

/* The tensor a vertex produces. */
typedef struct {
    int n_axes;
    int64_t shape[SR_MAX_AXES];
} tensor;

/* What the builder carries from layer to layer. */
typedef struct {
    const wl_workload *wl;
    sr_graph *g;
    tensor *out;       /* per vertex: its output tensor */
    int cap_vertices;  /* room in g->v */
    int cap_out;       /* room in out */
    int cap_edges;     /* room in g->e */
    int status;        /* why a step returned -1: HS_EINPUT or HS_EINTERNAL */
    char *err;
} builder;

static tensor image_tensor(int64_t batch, const wl_shape *s)
{
    /* hybridsim writes CxWxH(xD); the search's axes are (b, c, h, w, d) as PaSE's (b, c, h, w). */
    tensor t = {s->n_spatial + 2, {batch, s->channels, s->spatial[1], s->spatial[0], 1}};
    if (s->n_spatial == 3)
        t.shape[4] = s->spatial[2];
    return t;
}

static tensor flat_tensor(int64_t batch, int64_t features)
{
    tensor t = {2, {batch, features, 1, 1, 1}};
    return t;
}

static int64_t tensor_elems(const tensor *t)
{
    int64_t n = 1;
    for (int i = 0; i < t->n_axes; i++)
        n *= t->shape[i];
    return n;
}

static sr_config ones(void)
{
    sr_config c = {1, 1, 1, 1, 1, 1, 1, 1};
    return c;
}

/* The iteration space of a tensor-shaped op: its axes as (b, c, h, w, d). */
static sr_config tensor_dom(const tensor *t)
{
    sr_config d = ones();
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

static int grow(void **p, int *cap, int need, size_t size, char *err)
{
    return hs_grow(p, cap, need, size) ? HS_OK
                                       : hs_fail(err, HS_EINTERNAL, "search graph: out of memory");
}

/* A new vertex for layer `layer` producing `out`; returns its id or -1. */
static int add_vertex(builder *b, sr_op op, int layer, const char *suffix, sr_config dom,
                      int n_axes, const tensor *out)
{
    sr_graph *g = b->g;
    if (grow((void **)&g->v, &b->cap_vertices, g->n_vertices + 1, sizeof *g->v, b->err) ||
        grow((void **)&b->out, &b->cap_out, g->n_vertices + 1, sizeof *b->out, b->err)) {
        b->status = HS_EINTERNAL;
        return -1;
    }
    int id = g->n_vertices++;
    sr_vertex *v = &g->v[id];
    memset(v, 0, sizeof *v);
    v->op = op;
    v->layer = layer;
    snprintf(v->name, sizeof v->name, "%s%s", b->wl->layers[layer].name, suffix);
    v->dom = dom;
    v->n_axes = n_axes;
    b->out[id] = *out;
    return id;
}

/* The edge u -> v for v's input `input`. Like PaSE's networkx DiGraph, a second tensor between
 * the same two vertices replaces the first. */
static int add_edge(builder *b, int u, int v, int input)
{
    sr_graph *g = b->g;
    sr_edge *e = NULL;
    for (int i = 0; i < g->n_edges && !e; i++)
        if (g->e[i].u == u && g->e[i].v == v)
            e = &g->e[i];
    if (!e) {
        if (grow((void **)&g->e, &b->cap_edges, g->n_edges + 1, sizeof *g->e, b->err))
            return b->status = HS_EINTERNAL;
        e = &g->e[g->n_edges++];
    }
    e->u = u;
    e->v = v;
    e->input = input;
    e->n_axes = b->out[u].n_axes;
    memcpy(e->shape, b->out[u].shape, sizeof e->shape);
    return HS_OK;
}

/* The vertices feeding layer i, as vertex ids (-1: the input data), and how many. */
static int producers(const builder *b, int i, int *from)
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
static tensor tensor_of(const builder *b, int u)
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
static bool per_position(const builder *b, const wl_layer *l, const tensor *in)
{
    return b->g->sequence && in->n_axes == 4 && in->shape[2] == 1 && l->stride == 1 &&
           l->w_kernel[0] == 1 && l->w_kernel[1] == 1 && l->padding[0] == 0 &&
           l->padding[1] == 0 && (l->groups <= 1);
}

/* A sequence layer's iteration space (sr_vertex.dom) and its output (b, f, 1, positions). */
static int sequence_vertex(builder *b, int i, sr_op op, const tensor *in)
{
    const wl_layer *l = &b->wl->layers[i];
    tensor out = image_tensor(b->g->batch, &l->y);
    sr_config dom = ones();
    dom.b = b->g->batch;
    dom.w = in->shape[3];
    dom.f = l->y.channels;
    dom.c = op == SR_EMBED ? l->w_in : l->x.channels;
    if (op == SR_LSTM)
        dom.d = l->w_kernel[0];
    return add_vertex(b, op, i, "", dom, 4, &out);
}

/* ---------------------------------------------------------------- PaSE's attention ops */

/* The first layer after i that reads layer i's output, or -1. */
static int consumer(const wl_workload *wl, int i)
{
    for (int j = i + 1; j < wl->n_layers; j++) {
        const wl_layer *l = &wl->layers[j];
        if (l->n_inputs == 0 && j == i + 1)
            return j;
        for (int k = 0; k < l->n_inputs; k++)
            if (l->inputs[k] == i)
                return j;
    }
    return -1;
}

/* A vertex of PaSE's attention ops: iteration space ext[n] in slots, the maps of its first
 * input (the others alike unless set after) and its output, and its GEMM sets. */
typedef struct {
    sr_op op;
    int n;
    int64_t ext[8];
    int8_t in0[SR_MAX_AXES], in1[SR_MAX_AXES], out[SR_MAX_AXES];
    unsigned batch, m, n_set, k;
    int batch_slot, axis;
} slot_op;

static int slot_vertex(builder *b, int i, const slot_op *s, const tensor *out)
{
    sr_config dom = ones();
    int64_t *f[8] = {&dom.b, &dom.f, &dom.c, &dom.h, &dom.w, &dom.d, &dom.kh, &dom.kw};
    for (int k = 0; k < s->n; k++)
        *f[k] = s->ext[k];
    int id = add_vertex(b, s->op, i, "", dom, out->n_axes, out);
    if (id < 0)
        return -1;
    sr_vertex *v = &b->g->v[id];
    v->n_slots = s->n;
    memcpy(v->in_map[0], s->in0, SR_MAX_AXES);
    memcpy(v->in_map[1], s->in1, SR_MAX_AXES);
    memcpy(v->in_map[2], s->in1, SR_MAX_AXES);
    memcpy(v->out_map, s->out, SR_MAX_AXES);
    v->batch_dims = s->batch;
    v->m_dims = s->m;
    v->n_dims = s->n_set;
    v->k_dims = s->k;
    v->batch_slot = s->batch_slot;
    v->axis = s->axis;
    return id;
}

#define BIT(i) (1u << (i))

/* The q, k, v projection of attention (PaSE's Einsum 'ble,shek->sbhlk', or 'sble,shek->sbhlk'
 * after a stack): slots (s, b, h, l, k, e). Heads and their width come from the product of
 * q and k that reads its moves. */
static int qkv_vertex(builder *b, int i, const tensor *in, bool stacked)
{
    const wl_workload *wl = b->wl;
    int move = consumer(wl, i), mm = move < 0 ? -1 : consumer(wl, move);
    if (mm < 0 || wl->layers[mm].type != WL_MATMUL) {
        b->status = hs_fail(b->err, HS_EINPUT, "layer %s: the search reads a projection into "
                            "moves as attention's q, k, v, but no matmul reads the first move",
                            wl->layers[i].name);
        return -1;
    }
    int64_t h = wl->layers[mm].mm_products, dk = wl->layers[mm].mm_k;
    int64_t e = stacked ? in->shape[3] : in->shape[1], len = stacked ? in->shape[2] : in->shape[3];
    slot_op s = {SR_EINSUM, 6, {wl->layers[i].y.channels / (h * dk), b->g->batch, h, len, dk, e},
                 {1, 5, -1, 3, -1}, {-1, -1, -1, -1, -1}, {0, 1, 2, 3, 4},
                 0, BIT(1) | BIT(3), BIT(0) | BIT(2) | BIT(4), BIT(5), 1, 0};
    if (stacked) {
        const int8_t m[SR_MAX_AXES] = {0, 1, 3, 5, -1};
        memcpy(s.in0, m, sizeof m);
        s.batch = BIT(0);
        s.n_set = BIT(2) | BIT(4);
    }
    tensor out = {5, {s.ext[0], s.ext[1], h, len, dk}};
    return slot_vertex(b, i, &s, &out);
}

/* Attention's output projection 'bhlk,hek->ble' after A V: slots (b, l, e, h, k). */
static int out_projection(builder *b, int i, int mm, const tensor *in)
{
    const wl_layer *l = &b->wl->layers[i], *p = &b->wl->layers[mm];
    slot_op s = {SR_EINSUM, 5, {b->g->batch, in->shape[2], l->y.channels, p->mm_products,
                                p->mm_n},
                 {0, 3, 1, 4, -1}, {-1, -1, -1, -1, -1}, {0, 2, -1, 1, -1},
                 0, BIT(0) | BIT(1), BIT(2), BIT(3) | BIT(4), 0, 0};
    tensor out = {4, {b->g->batch, l->y.channels, 1, in->shape[2], 1}};
    return slot_vertex(b, i, &s, &out);
}

/* The moves taking q, k and v out of a projection: one unstack, (1, b, h, l, k). */
static int unstack_vertex(builder *b, int i, int from, const tensor *in)
{
    for (int e = 0; e < b->g->n_edges; e++)
        if (b->g->e[e].u == from && b->g->v[b->g->e[e].v].op == SR_UNSTACK)
            return b->g->e[e].v;
    slot_op s = {SR_UNSTACK, 5, {1, in->shape[1], in->shape[2], in->shape[3], in->shape[4]},
                 {0, 1, 2, 3, 4}, {-1, -1, -1, -1, -1}, {1, 2, 3, 4, -1}, 0, 0, 0, 0, 1, 0};
    tensor out = {4, {in->shape[1], in->shape[2], in->shape[3], in->shape[4], 1}};
    return slot_vertex(b, i, &s, &out);
}

/* A matmul of attention: Q K^T (its first input from the unstack) or A V (from the softmax);
 * slots (b, h, m, n, k) as PaSE's 'bhlk,bhmk->bhlm' and 'bhlm,bhmk->bhlk'. */
static int matmul_vertex(builder *b, int i, int from)
{
    const wl_layer *l = &b->wl->layers[i];
    bool av = from >= 0 && b->g->v[from].op == SR_ATTN;
    slot_op s = {SR_EINSUM, 5, {b->g->batch, l->mm_products, l->mm_m, l->mm_n, l->mm_k},
                 {0, 1, 2, 4, -1}, {0, 1, 3, 4, -1}, {0, 1, 2, 3, -1},
                 BIT(0) | BIT(1), BIT(2), BIT(3), BIT(4), 0, 0};
    if (av) {
        const int8_t m[SR_MAX_AXES] = {0, 1, 4, 3, -1};
        memcpy(s.in1, m, sizeof m);
    }
    tensor out = {4, {b->g->batch, l->mm_products, l->mm_m, l->mm_n, 1}};
    return slot_vertex(b, i, &s, &out);
}

/* The softmax over attention's scores (b, h, l, m), along m. */
static int attn_vertex(builder *b, int i, const tensor *in)
{
    slot_op s = {SR_ATTN, 4, {in->shape[0], in->shape[1], in->shape[2], in->shape[3]},
                 {0, 1, 2, 3, -1}, {-1, -1, -1, -1, -1}, {0, 1, 2, 3, -1}, 0, 0, 0, 0, 0, 3};
    return slot_vertex(b, i, &s, in);
}

/* A concat of sequences a grouped projection reads: PaSE's Stack, (1, b, l, e). */
static int stack_vertex(builder *b, int i, const tensor *in)
{
    const wl_layer *l = &b->wl->layers[i];
    int n = l->n_inputs ? l->n_inputs : 1;
    slot_op s = {SR_STACK, 4, {1, b->g->batch, in->shape[3], in->shape[1]},
                 {1, 3, -1, 2, -1}, {1, 3, -1, 2, -1}, {0, 1, 2, 3, -1}, 0, 0, 0, 0, 1, 0};
    tensor out = {4, {n, b->g->batch, in->shape[3], in->shape[1], 1}};
    return slot_vertex(b, i, &s, &out);
}

/* The layer that produced the input of layer i (-1: the data). */
static int input_layer(const wl_workload *wl, int i)
{
    const wl_layer *l = &wl->layers[i];
    return l->n_inputs ? l->inputs[0] : i - 1;
}

/* A sequence layer that is one of PaSE's attention ops, or 0 when it is not one (*id set
 * otherwise: the vertex or -1). */
static bool attention_vertex(builder *b, int i, int from, const tensor *in, int *id)
{
    const wl_workload *wl = b->wl;
    const wl_layer *l = &wl->layers[i];
    sr_op producer = from >= 0 ? b->g->v[from].op : SR_OP_COUNT;
    int next = consumer(wl, i), before = input_layer(wl, i);
    switch (l->type) {
    case WL_CONV:
        if (producer == SR_STACK)
            *id = qkv_vertex(b, i, in, true);
        else if (before >= 0 && wl->layers[before].type == WL_MATMUL && producer == SR_EINSUM)
            *id = out_projection(b, i, before, in);
        else if (next >= 0 && wl->layers[next].type == WL_MOVE && in->shape[2] == 1)
            *id = qkv_vertex(b, i, in, false);
        else
            return false;
        return true;
    case WL_MOVE:
        if (producer != SR_EINSUM || in->n_axes != 5)
            return false;
        *id = unstack_vertex(b, i, from, in);
        return true;
    case WL_MATMUL: *id = matmul_vertex(b, i, from); return true;
    case WL_SOFTMAX:
        if (producer != SR_EINSUM)
            return false;
        *id = attn_vertex(b, i, in);
        return true;
    case WL_CONCAT:
        if (next < 0 || wl->layers[next].type != WL_CONV || wl->layers[next].groups <= 1)
            return false;
        *id = stack_vertex(b, i, in);
        return true;
    default: return false;
    }
}

static int conv_vertex(builder *b, int i, const tensor *in)
{
    const wl_layer *l = &b->wl->layers[i];
    if (per_position(b, l, in))
        return sequence_vertex(b, i, SR_FC, in);
    tensor out = image_tensor(b->g->batch, &l->y);
    sr_config dom = tensor_dom(&out);
    dom.f = l->y.channels;
    dom.c = l->x.channels;
    dom.kw = l->w_kernel[0];
    dom.kh = l->w_kernel[1];
    return add_vertex(b, SR_CONV, i, "", dom, in->n_axes, &out);
}

static int pool_vertex(builder *b, int i, const tensor *in)
{
    const wl_layer *l = &b->wl->layers[i];
    if (is_global_pool(l)) {
        tensor out = flat_tensor(b->g->batch, l->y.channels);
        return add_vertex(b, SR_MEAN, i, "", tensor_dom(in), in->n_axes, &out);
    }
    tensor out = image_tensor(b->g->batch, &l->y);
    int id = add_vertex(b, SR_POOL, i, "", tensor_dom(&out), in->n_axes, &out);
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
static int reshape_vertices(builder *b, int i, int from, const tensor *in)
{
    tensor flat = {1, {tensor_elems(in), 1, 1, 1, 1}};
    int ravel = add_vertex(b, SR_RAVEL, i, ":ravel", tensor_dom(in), in->n_axes, &flat);
    if (ravel < 0 || (from >= 0 && add_edge(b, from, ravel, 0)))
        return -1;
    tensor rows = flat_tensor(b->g->batch, tensor_elems(in) / b->g->batch);
    int unravel = add_vertex(b, SR_UNRAVEL, i, ":unravel", tensor_dom(&rows), 1, &rows);
    if (unravel < 0 || add_edge(b, ravel, unravel, 0))
        return -1;
    return unravel;
}

/* An fc (after the reshape it needs, if any); returns its id or -1, and *from is updated to
 * the vertex it reads. */
static int fc_vertex(builder *b, int i, int *from, const tensor *in)
{
    const wl_layer *l = &b->wl->layers[i];
    tensor x = *in;
    if (in->n_axes != 2) {
        if ((*from = reshape_vertices(b, i, *from, in)) < 0)
            return -1;
        x = b->out[*from];
    }
    tensor out = flat_tensor(b->g->batch, l->y.channels);
    sr_config dom = ones();
    dom.b = b->g->batch;
    dom.f = l->y.channels;
    dom.c = x.shape[1];
    return add_vertex(b, SR_FC, i, "", dom, 2, &out);
}

/* The vertex for layer i reading the tensor `in` of vertex *from; -1 on failure. */
/* Mark vertex id (if any) as working on a sequence tensor (b, c, 1, w). */
static int sequence_op(builder *b, int id)
{
    if (id >= 0 && b->g->sequence && b->g->v[id].n_axes == 4 && b->out[id].shape[2] == 1)
        b->g->v[id].sequence = true;
    return id;
}

static int layer_vertex(builder *b, int i, int *from, const tensor *in)
{
    const wl_layer *l = &b->wl->layers[i];
    int id;
    if (b->g->sequence && attention_vertex(b, i, *from, in, &id))
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
        return sequence_op(b, add_vertex(b, SR_SOFTMAX, i, "", tensor_dom(in), in->n_axes, in));
    case WL_EMBED:
    case WL_LSTM:
        if (!b->g->sequence || in->n_axes != 4 || in->shape[2] != 1)
            break;
        return sequence_vertex(b, i, l->type == WL_EMBED ? SR_EMBED : SR_LSTM, in);
    case WL_BNORM: return add_vertex(b, SR_BNORM, i, "", tensor_dom(in), in->n_axes, in);
    case WL_ADD:
        return sequence_op(b, add_vertex(b, SR_ADD, i, "", tensor_dom(in), in->n_axes, in));
    case WL_LAYERNORM:
        if (!b->g->sequence || in->n_axes != 4 || in->shape[2] != 1)
            break;
        return sequence_op(b, add_vertex(b, SR_LNORM, i, "", tensor_dom(in), 4, in));
    case WL_CONCAT: {
        tensor out = *in;
        out.shape[1] = l->y.channels;
        sr_config dom = tensor_dom(in);
        dom.c = 1; /* PaSE never splits the concatenated axis */
        return add_vertex(b, SR_CONCAT, i, "", dom, in->n_axes, &out);
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
static void pass_through(builder *b, int i, int from)
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

static bool same_tensor(const tensor *a, const tensor *t)
{
    return a->n_axes == t->n_axes && memcmp(a->shape, t->shape, sizeof a->shape) == 0;
}

static int add_layer(builder *b, int i)
{
    const wl_layer *l = &b->wl->layers[i];
    int from[WL_MAX_INPUTS] = {-1, -1, -1, -1};
    int n = producers(b, i, from);
    if (wl_is_activation(l->type) || l->type == WL_DROPOUT || l->type == WL_LRN) {
        pass_through(b, i, from[0]);
        return HS_OK;
    }
    tensor in = tensor_of(b, from[0]);
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
        if (add_edge(b, u, id, k))
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

/* PaSE's letters for the dims of each vertex of a sequence graph (its paper's Table II and its
 * Einsum equations: b batch, s sequence, d/e width, v vocabulary, l layers (lstm) or
 * positions (attention), n/k units and inputs (lstm), h heads, k/m head width and positions). */
static void name_dims(sr_graph *g)
{
    for (int i = 0; i < g->n_vertices; i++) {
        sr_vertex *v = &g->v[i];
        const char *d = "";
        switch (v->op) {
        case SR_EMBED: d = "bsdv"; break;
        case SR_LSTM: d = "lsbnk"; break;
        case SR_FC: d = "bsvd"; break;
        case SR_SOFTMAX: d = "bsv"; break;
        case SR_ADD:
        case SR_LNORM: d = "bse"; break;
        case SR_UNSTACK: d = "sbhlk"; break;
        case SR_STACK: d = "sble"; break;
        case SR_ATTN: d = "bhlm"; break;
        case SR_EINSUM:
            d = v->n_slots == 6 ? "sbhlke" : v->k_dims == (1u << 4) ? "bhlmk" : "blehk";
            if (v->n_slots == 5 && v->batch_dims && v->in_map[1][2] == 4)
                d = "bhlkm"; /* A V: its second input is (b, h, m, k) */
            break;
        default: break;
        }
        snprintf(v->dims, sizeof v->dims, "%s", d);
    }
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
    builder b = {.wl = wl, .g = g, .err = err};
    int status = HS_OK;
    for (int i = 0; i < wl->n_layers && status == HS_OK; i++)
        status = add_layer(&b, i);
    if (status == HS_OK && g->sequence)
        name_dims(g);
    for (int i = 0; i < g->n_vertices && status == HS_OK; i++)
        status = sr_configs(&g->v[i], opt, err);
    free(b.out);
    if (status != HS_OK)
        sr_graph_free(g);
    return status;
}
