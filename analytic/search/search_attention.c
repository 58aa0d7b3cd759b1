/* search_attention.c: PaSE's attention ops in a sequence model's search graph
 * (search_build_int.h). A Transformer written in hybridsim's layers (a 1x1 convolution to q, k
 * and v read by three moves, two matmuls with a softmax between, a 1x1 output projection; a
 * concat read by a grouped convolution for cross-attention) becomes the vertices PaSE's
 * graph.Transformer creates, in its order, with their iteration spaces in slots
 * (search.h: sr_vertex.n_slots) and their tensors in PaSE's axis order (nn_ops.Einsum, Stack,
 * Unstack, Softmax). */
#include "search_build_int.h"

#include <stdio.h>
#include <string.h>


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

static int slot_vertex(sr__builder *b, int i, const slot_op *s, const sr__tensor *out)
{
    sr_config dom = sr__ones();
    int64_t *f[8] = {&dom.b, &dom.f, &dom.c, &dom.h, &dom.w, &dom.d, &dom.kh, &dom.kw};
    for (int k = 0; k < s->n; k++)
        *f[k] = s->ext[k];
    int id = sr__add_vertex(b, s->op, i, "", dom, out->n_axes, out);
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
static int qkv_vertex(sr__builder *b, int i, const sr__tensor *in, bool stacked)
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
    sr__tensor out = {5, {s.ext[0], s.ext[1], h, len, dk}};
    return slot_vertex(b, i, &s, &out);
}

/* Attention's output projection 'bhlk,hek->ble' after A V: slots (b, l, e, h, k). */
static int out_projection(sr__builder *b, int i, int mm, const sr__tensor *in)
{
    const wl_layer *l = &b->wl->layers[i], *p = &b->wl->layers[mm];
    slot_op s = {SR_EINSUM, 5, {b->g->batch, in->shape[2], l->y.channels, p->mm_products,
                                p->mm_n},
                 {0, 3, 1, 4, -1}, {-1, -1, -1, -1, -1}, {0, 2, -1, 1, -1},
                 0, BIT(0) | BIT(1), BIT(2), BIT(3) | BIT(4), 0, 0};
    sr__tensor out = {4, {b->g->batch, l->y.channels, 1, in->shape[2], 1}};
    return slot_vertex(b, i, &s, &out);
}

/* The moves taking q, k and v out of a projection: one unstack, (1, b, h, l, k). */
static int unstack_vertex(sr__builder *b, int i, int from, const sr__tensor *in)
{
    for (int e = 0; e < b->g->n_edges; e++)
        if (b->g->e[e].u == from && b->g->v[b->g->e[e].v].op == SR_UNSTACK)
            return b->g->e[e].v;
    slot_op s = {SR_UNSTACK, 5, {1, in->shape[1], in->shape[2], in->shape[3], in->shape[4]},
                 {0, 1, 2, 3, 4}, {-1, -1, -1, -1, -1}, {1, 2, 3, 4, -1}, 0, 0, 0, 0, 1, 0};
    sr__tensor out = {4, {in->shape[1], in->shape[2], in->shape[3], in->shape[4], 1}};
    return slot_vertex(b, i, &s, &out);
}

/* A matmul of attention: Q K^T (its first input from the unstack) or A V (from the softmax);
 * slots (b, h, m, n, k) as PaSE's 'bhlk,bhmk->bhlm' and 'bhlm,bhmk->bhlk'. */
static int matmul_vertex(sr__builder *b, int i, int from)
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
    sr__tensor out = {4, {b->g->batch, l->mm_products, l->mm_m, l->mm_n, 1}};
    return slot_vertex(b, i, &s, &out);
}

/* The softmax over attention's scores (b, h, l, m), along m. */
static int attn_vertex(sr__builder *b, int i, const sr__tensor *in)
{
    slot_op s = {SR_ATTN, 4, {in->shape[0], in->shape[1], in->shape[2], in->shape[3]},
                 {0, 1, 2, 3, -1}, {-1, -1, -1, -1, -1}, {0, 1, 2, 3, -1}, 0, 0, 0, 0, 0, 3};
    return slot_vertex(b, i, &s, in);
}

/* A concat of sequences a grouped projection reads: PaSE's Stack, (1, b, l, e). */
static int stack_vertex(sr__builder *b, int i, const sr__tensor *in)
{
    const wl_layer *l = &b->wl->layers[i];
    int n = wl_n_inputs(l);
    slot_op s = {SR_STACK, 4, {1, b->g->batch, in->shape[3], in->shape[1]},
                 {1, 3, -1, 2, -1}, {1, 3, -1, 2, -1}, {0, 1, 2, 3, -1}, 0, 0, 0, 0, 1, 0};
    sr__tensor out = {4, {n, b->g->batch, in->shape[3], in->shape[1], 1}};
    return slot_vertex(b, i, &s, &out);
}

/* A sequence layer that is one of PaSE's attention ops, or 0 when it is not one (*id set
 * otherwise: the vertex or -1). */
bool sr__attention_vertex(sr__builder *b, int i, int from, const sr__tensor *in, int *id)
{
    const wl_workload *wl = b->wl;
    const wl_layer *l = &wl->layers[i];
    sr_op producer = from >= 0 ? b->g->v[from].op : SR_OP_COUNT;
    int next = consumer(wl, i), before = wl_input_of(wl, i, 0);
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

/* PaSE's letters for the dims of each vertex of a sequence graph (its paper's Table II and its
 * Einsum equations: b batch, s sequence, d/e width, v vocabulary, l layers (lstm) or
 * positions (attention), n/k units and inputs (lstm), h heads, k/m head width and positions). */
void sr__name_dims(sr_graph *g)
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
