/* search_order.c: the order in which the search eliminates vertices (search.h), PaSE's
 * greedy minimum-degree rule (Processor.SortNodes in scheduler.py):
 *
 *   D(v) starts as v's neighbours (producers and consumers). Repeatedly take the vertex not
 *   yet taken whose |D| is smallest, the lowest id on a tie; every w in D(v) then depends on
 *   D(w) u D(v) minus v and w.
 *
 * D(v) at the moment v is taken is the dependent set the search's table for v is keyed by, so
 * the order decides the tables' sizes: 1 vertex on a chain, 2 in ResNet and Inception blocks.
 * Dependent sets are bit sets: the graph has hundreds of vertices, not millions. */
#include "search.h"

#include <stdlib.h>

static void set_bit(uint64_t *set, int i)
{
    set[i / 64] |= UINT64_C(1) << (i % 64);
}

static void clear_bit(uint64_t *set, int i)
{
    set[i / 64] &= ~(UINT64_C(1) << (i % 64));
}

static int count_bits(const uint64_t *set, size_t words)
{
    int n = 0;
    for (size_t i = 0; i < words; i++)
        n += __builtin_popcountll(set[i]);
    return n;
}

/* The vertex not yet taken with the smallest key, the lowest id on a tie. */
static int smallest(const int *key, const char *taken, int n)
{
    int best = -1;
    for (int v = 0; v < n; v++)
        if (!taken[v] && (best < 0 || key[v] < key[best]))
            best = v;
    return best;
}

int sr_order(const sr_graph *g, int *order, char *err)
{
    int n = g->n_vertices;
    size_t words = ((size_t)n + 63) / 64;
    uint64_t *dep = calloc((size_t)n * words + 1, sizeof *dep);
    int *key = calloc((size_t)n + 1, sizeof *key);
    char *taken = calloc((size_t)n + 1, 1);
    if (!dep || !key || !taken) {
        free(dep);
        free(key);
        free(taken);
        return hs_fail(err, HS_EINTERNAL, "search: out of memory for the vertex order");
    }
    for (int i = 0; i < g->n_edges; i++) {
        const sr_edge *e = &g->e[i];
        if (e->u != e->v) {
            set_bit(&dep[(size_t)e->u * words], e->v);
            set_bit(&dep[(size_t)e->v * words], e->u);
        }
    }
    for (int v = 0; v < n; v++)
        key[v] = count_bits(&dep[(size_t)v * words], words);
    for (int step = 0; step < n; step++) {
        int v = smallest(key, taken, n);
        const uint64_t *dv = &dep[(size_t)v * words];
        order[step] = v;
        taken[v] = 1;
        for (int w = 0; w < n; w++) {
            if (!(dv[w / 64] >> (w % 64) & 1))
                continue;
            uint64_t *dw = &dep[(size_t)w * words];
            for (size_t k = 0; k < words; k++)
                dw[k] |= dv[k];
            clear_bit(dw, v);
            clear_bit(dw, w);
            key[w] = count_bits(dw, words);
        }
    }
    free(dep);
    free(key);
    free(taken);
    return HS_OK;
}
