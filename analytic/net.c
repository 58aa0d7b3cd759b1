/* net.c: the links of any group of ranks of a placed job, read from the platform once (an_net).
 *
 * A per-layer plan makes many groups talk (each layer's filter line, its batch line, its
 * spatial neighbours, pipeline stage pairs), and a search prices thousands of configurations;
 * asking SimGrid for routes inside those loops would make pricing slow. So every family of
 * lines is priced once, on first use, and kept in a small hash table keyed by what defines it
 * (base, group size, stride, length): after that, pricing a configuration is arithmetic. */
#include "analytic_int.h"

#include <stdlib.h>
#include <string.h>

#include "hs_grow.h"

enum { NET_RING, NET_STAGED, NET_PAIR, NET_LAYOUT };

typedef struct {
    int kind;             /* NET_*, -1: empty slot */
    an_lines lines;       /* NET_PAIR: base = a, q = b */
    an_link link;
    int layout;           /* NET_LAYOUT: its index in an_net.layouts */
} net_entry;

struct an_net {
    const plat_platform *plat;
    int p;                /* ranks */
    int *gpu;             /* GPU of each rank */
    int node_sharing;     /* GPUs of a node taking part (ParaDL's divisor) */
    net_entry *slots;
    int n_slots;          /* a power of two */
    int used;
    an_layout *layouts;   /* the families laid out by node (NET_LAYOUT entries point here) */
    int n_layouts;
    size_t cap_layouts;   /* room in layouts (hs_grow) */
};

int an_net_open(const plat_platform *plat, int p, const int *gpu_of_rank, an_net **out,
                char *err)
{
    *out = NULL;
    if (p < 1 || p > plat->n_gpus)
        return hs_fail(err, HS_EINPUT, "-g %d: platform %s has %d GPUs", p, plat->name,
                       plat->n_gpus);
    an_net *net = calloc(1, sizeof *net);
    if (net) {
        net->gpu = malloc((size_t)p * sizeof *net->gpu);
        net->n_slots = 256;
        net->slots = malloc((size_t)net->n_slots * sizeof *net->slots);
    }
    if (!net || !net->gpu || !net->slots) {
        an_net_close(net);
        return hs_fail(err, HS_EINTERNAL, "out of memory for the links of %d ranks", p);
    }
    net->plat = plat;
    net->p = p;
    for (int r = 0; r < p; r++)
        net->gpu[r] = gpu_of_rank ? gpu_of_rank[r] : r;
    for (int i = 0; i < net->n_slots; i++)
        net->slots[i].kind = -1;
    net->node_sharing = plat->gpus_per_node < p ? plat->gpus_per_node : p;
    if (net->node_sharing < 1)
        net->node_sharing = 1;
    *out = net;
    return HS_OK;
}

void an_net_close(an_net *net)
{
    if (!net)
        return;
    free(net->gpu);
    free(net->slots);
    free(net->layouts);
    free(net);
}

int an__node_sharing(const an_net *net)
{
    return net->node_sharing;
}

/* ------------------------------------------------------------------ the cache */

static unsigned hash_of(int kind, an_lines k)
{
    unsigned h = 2166136261u;
    int v[5] = {kind, k.base, k.q, k.stride, k.n};
    for (int i = 0; i < 5; i++)
        h = (h ^ (unsigned)v[i]) * 16777619u;
    return h;
}

static bool same(const net_entry *e, int kind, an_lines k)
{
    return e->kind == kind && e->lines.base == k.base && e->lines.q == k.q &&
           e->lines.stride == k.stride && e->lines.n == k.n;
}

static net_entry *slot_for(net_entry *slots, int n_slots, int kind, an_lines k)
{
    unsigned i = hash_of(kind, k) & (unsigned)(n_slots - 1);
    while (slots[i].kind >= 0 && !same(&slots[i], kind, k))
        i = (i + 1) & (unsigned)(n_slots - 1);
    return &slots[i];
}

/* Double the table when half full; on allocation failure keep going without caching more. */
static bool grow(an_net *net)
{
    if (2 * (net->used + 1) <= net->n_slots)
        return true;
    int n = 2 * net->n_slots;
    net_entry *slots = malloc((size_t)n * sizeof *slots);
    if (!slots)
        return false;
    for (int i = 0; i < n; i++)
        slots[i].kind = -1;
    for (int i = 0; i < net->n_slots; i++)
        if (net->slots[i].kind >= 0)
            *slot_for(slots, n, net->slots[i].kind, net->slots[i].lines) = net->slots[i];
    free(net->slots);
    net->slots = slots;
    net->n_slots = n;
    return true;
}

/* ------------------------------------------------------------------ pricing a family */

/* The family's slowest ring (or staged neighbour pair), asking the platform. */
static an_link price_lines(const an_net *net, int kind, an_lines k)
{
    an_link worst = {0, 0};
    int *gpu = malloc((size_t)(k.n > 0 ? k.n : 1) * sizeof *gpu);
    if (!gpu)
        return (an_link){1e30, 1e30}; /* out of memory: price it out of any choice */
    for (int t = 0; t < k.q; t++) {
        if ((t / k.stride) % k.n != 0)
            continue;
        int n = 0;
        for (int i = 0; i < k.n && k.base + t + i * k.stride < net->p; i++)
            gpu[n++] = net->gpu[k.base + t + i * k.stride];
        if (kind == NET_RING) {
            worst = an__slowest(worst, an__ring_link(net->plat, gpu, n));
            continue;
        }
        for (int i = 0; i + 1 < n; i++)
            worst = an__slowest(worst, an__staged_link(net->plat, gpu[i], gpu[i + 1]));
    }
    free(gpu);
    return worst;
}

static an_link lookup(an_net *net, int kind, an_lines k)
{
    if (k.n < 2 || k.stride < 1)
        return (an_link){0, 0};
    net_entry *e = slot_for(net->slots, net->n_slots, kind, k);
    if (e->kind >= 0)
        return e->link;
    an_link l = kind == NET_PAIR ? an__pair_link(net->plat, net->gpu[k.base], net->gpu[k.q])
                                 : price_lines(net, kind, k);
    if (grow(net)) {
        e = slot_for(net->slots, net->n_slots, kind, k);
        *e = (net_entry){.kind = kind, .lines = k, .link = l};
        net->used++;
    }
    return l;
}

an_link an__lines_ring(an_net *net, an_lines lines)
{
    return lookup(net, NET_RING, lines);
}

an_link an__lines_staged(an_net *net, an_lines lines)
{
    return lookup(net, NET_STAGED, lines);
}

an_link an__rank_pair(an_net *net, int a, int b)
{
    if (a == b || a < 0 || b < 0 || a >= net->p || b >= net->p)
        return (an_link){0, 0};
    return lookup(net, NET_PAIR, (an_lines){.base = a, .q = b, .stride = 1, .n = 2});
}

/* Keep lay as family k's layout; false when out of memory (it is then not kept). */
static bool keep_layout(an_net *net, an_lines k, const an_layout *lay)
{
    if (!hs_grow((void **)&net->layouts, &net->cap_layouts, (size_t)net->n_layouts + 1,
                 sizeof *net->layouts))
        return false;
    if (!grow(net))
        return false;
    net->layouts[net->n_layouts] = *lay;
    *slot_for(net->slots, net->n_slots, NET_LAYOUT, k) =
        (net_entry){.kind = NET_LAYOUT, .lines = k, .layout = net->n_layouts++};
    net->used++;
    return true;
}

/* Laid out once a family, as the links are: a search asks for the same families again and
 * again (every layer's gradient sets under every configuration). */
int an__lines_layout(an_net *net, an_lines lines, an_layout *lay)
{
    net_entry *e = slot_for(net->slots, net->n_slots, NET_LAYOUT, lines);
    if (e->kind >= 0) {
        *lay = net->layouts[e->layout];
        return 0;
    }
    int status = an__layout_lines(net->plat, net->gpu, net->p, lines, lay);
    if (status == 0)
        keep_layout(net, lines, lay);
    return status;
}
