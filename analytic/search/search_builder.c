/* search_builder.c: the builder's two steps (search_build_int.h): a vertex added with the tensor
 * it produces, an edge added between two. Below the files that walk a workload's layers
 * (search_graph.c) and PaSE's attention ops (search_attention.c), which both call them. */
#include "search_build_int.h"

#include "hs_grow.h"

#include <stdio.h>
#include <string.h>

static int grow(void **p, size_t *cap, size_t need, size_t size, char *err)
{
    return hs_grow(p, cap, need, size) ? HS_OK
                                       : hs_fail(err, HS_EINTERNAL, "search graph: out of memory");
}

/* A new vertex for layer `layer` producing `out`; returns its id or -1. */
int sr__add_vertex(sr__builder *b, sr_op op, int layer, const char *suffix, sr_config dom,
                   int n_axes, const sr__tensor *out)
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
int sr__add_edge(sr__builder *b, int u, int v, int input)
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
