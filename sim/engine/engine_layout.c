/* engine_layout.c: where a rank stands in its groups and the rings their collectives run
 * on, as the actors read them while the simulation runs (engine_int.h, "engine_layout.c"):
 * the rank's position in a group, the group's own ring, and the intra-node and inter-node
 * rings of a hierarchical layout, each with its barrier and private state. engine_prepare.c
 * builds what they read (the member index, the layouts, the barriers). */
#include "engine_int.h"

/* The rank's groups are increasing in its slice of the member index: a binary search. */
int eng_group_pos(const eng_sim *s, int rank, int group)
{
    int lo = s->member_start[rank], end = s->member_start[rank + 1], hi = end;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (s->member_group[mid] < group)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < end && s->member_group[lo] == group ? s->member_pos[lo] : -1;
}

eng_ring eng_group_ring(const eng_sim *s, int group, int pos)
{
    const tg_group *gr = &s->g->groups[group];
    eng_ring v = {gr->ranks, gr->n, 1, pos, s->ring_bar ? s->ring_bar[group] : NULL,
                  s->ring_priv ? s->ring_priv[group] : NULL,
                  s->ring_exposed && s->ring_exposed[group], 1};
    if (s->ring_over && s->ring_over[group])
        v.blocks = s->ring_blocks;
    return v;
}

eng_ring eng_intra_ring(const eng_hier *h, int pos, sg_bar_t *bars)
{
    int c = h->node_of[pos];
    return (eng_ring){h->by_node + (size_t)c * h->per_node, h->per_node, 1, h->local_of[pos],
                      bars ? bars[c] : NULL, h->intra_priv ? h->intra_priv[c] : NULL, h->exposed,
                      1};
}

eng_ring eng_inter_ring(const eng_hier *h, int pos, sg_bar_t *bars)
{
    int j = h->local_of[pos];
    return (eng_ring){h->by_node + j, h->n_nodes, h->per_node, h->node_of[pos],
                      bars ? bars[j] : NULL, h->inter_priv ? h->inter_priv[j] : NULL, h->exposed,
                      1};
}
