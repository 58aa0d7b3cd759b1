/* search_build_int.h: what the files that build a search graph share (search_graph.c, the walk
 * over a workload's layers, on top; search_attention.c, PaSE's attention ops in a sequence
 * model, below it; search_builder.c, the steps that add a vertex or an edge, at the bottom):
 * the builder's state, the tensors between vertices, and those steps. Private to
 * analytic/search (sr__ prefix). */
#ifndef SEARCH_BUILD_INT_H
#define SEARCH_BUILD_INT_H

#include "search.h"

/* The tensor a vertex produces. */
typedef struct {
    int n_axes;
    int64_t shape[SR_MAX_AXES];
} sr__tensor;

/* What the builder carries from layer to layer. */
typedef struct {
    const wl_workload *wl;
    sr_graph *g;
    sr__tensor *out;       /* per vertex: its output tensor */
    size_t cap_vertices;   /* room in g->v */
    size_t cap_out;        /* room in out */
    size_t cap_edges;      /* room in g->e */
    int status;            /* why a step returned -1: HS_EINPUT or HS_EINTERNAL */
    char *err;
} sr__builder;

/* Every split 1 (and the extents of a dimension an op lacks). */
static inline sr_config sr__ones(void)
{
    sr_config c = {1, 1, 1, 1, 1, 1, 1, 1};
    return c;
}

/* A new vertex for layer `layer` producing `out`; returns its id or -1 (b->status says why). */
int sr__add_vertex(sr__builder *b, sr_op op, int layer, const char *suffix, sr_config dom,
                   int n_axes, const sr__tensor *out);

/* The edge u -> v for v's input `input` (a second tensor between the same two vertices replaces
 * the first): HS_OK, or HS_EINTERNAL (b->status) when out of memory. */
int sr__add_edge(sr__builder *b, int u, int v, int input);

/* Whether layer i of a sequence model is one of PaSE's attention ops (a projection read by
 * moves, their unstack, a matmul, the softmax between two, a stack, an output projection);
 * if so *id is its vertex, or -1 on failure (b->status). `from` is its first producer vertex. */
bool sr__attention_vertex(sr__builder *b, int i, int from, const sr__tensor *in, int *id);

/* PaSE's dims' letters for each vertex of a sequence graph (sr_vertex.dims). */
void sr__name_dims(sr_graph *g);

#endif
