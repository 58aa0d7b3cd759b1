/* collective.c: allreduce algorithms: names, NCCL's double binary tree, NCCL 2.4's choice
 * (collective.h). */
#include "collective.h"

#include <math.h>
#include <string.h>

static const char *const names[CO_ALGO_COUNT] = {"ring", "hier", "tree", "rings", "auto"};

const char *co_algo_name(co_algo a)
{
    return a >= 0 && a < CO_ALGO_COUNT ? names[a] : "?";
}

int co_algo_parse(const char *text, co_algo *a)
{
    for (int i = 0; i < CO_ALGO_COUNT; i++)
        if (strcmp(text, names[i]) == 0) {
            *a = (co_algo)i;
            return 0;
        }
    return -1;
}

/* Tree 0: node 0 is the root, with one child, the largest power of two below n; every other
 * node r is at the level of its lowest set bit b, its children r -+ b/2 (the right one
 * lowered while it is past the end), its parent r - b or r + b, whichever clears the next bit,
 * or r - b when r + b is past the end. The odd nodes are the leaves. */
static void btree0(int n, int r, int *up, int *d0, int *d1)
{
    int bit = 1;
    while (bit < n && !(bit & r))
        bit <<= 1;
    if (r == 0) {
        *up = *d0 = -1;
        *d1 = n > 1 ? bit >> 1 : -1;
        return;
    }
    *up = (r ^ bit) | (bit << 1);
    if (*up >= n)
        *up = r ^ bit;
    int low = bit >> 1;
    *d0 = low ? r - low : -1;
    *d1 = low ? r + low : -1;
    while (*d1 >= n) {
        low >>= 1;
        *d1 = low ? r + low : -1;
    }
}

void co_btree(int tree, int n, int r, int *parent, int *child0, int *child1)
{
    if (tree == 0 || n < 2) {
        btree0(n, r, parent, child0, child1);
        return;
    }
    /* tree 1: tree 0 over renumbered nodes, shifted by one (n even) or mirrored (n odd) */
    bool shift = n % 2 == 0;
    int v = shift ? (r - 1 + n) % n : n - 1 - r;
    int x[3];
    btree0(n, v, &x[0], &x[1], &x[2]);
    for (int i = 0; i < 3; i++)
        if (x[i] >= 0)
            x[i] = shift ? (x[i] + 1) % n : n - 1 - x[i];
    *parent = x[0], *child0 = x[1], *child1 = x[2];
}

int co_btree_depth(int tree, int n)
{
    int depth = 0;
    for (int r = 0; r < n; r++) {
        int d = 0, up, c0, c1;
        for (int v = r; (co_btree(tree, n, v, &up, &c0, &c1), up >= 0) && d < n; v = up)
            d++;
        depth = d > depth ? d : depth;
    }
    return depth;
}

int co_tree_node_share(int n)
{
    int share = n > 1 ? 1 : 0;
    for (int r = 0; r < n; r++) {
        int parents = 0, children = 0;
        for (int t = 0; t < 2; t++) {
            int up, c0, c1;
            co_btree(t, n, r, &up, &c0, &c1);
            parents += up >= 0;
            children += (c0 >= 0) + (c1 >= 0);
        }
        /* up: sends to the parents, receives from the children; down: the reverse */
        int most = parents > children ? parents : children;
        share = most > share ? most : share;
    }
    return share;
}

int co_tree_chunks(double bytes)
{
    double k = ceil(bytes / 2.0 / CO_TREE_CHUNK_BYTES);
    return k < 1 ? 1 : k > 1e9 ? 1000000000 : (int)k;
}

/* NCCL 2.4's constants: MB/s per channel, microseconds per ring step, per tree level, per
 * GPU of the node's chain. */
#define NCCL_BW_PER_CHANNEL 5000.0
#define NCCL_RING_LAT_US 6.0
#define NCCL_TREE_LAT_INTER_US 15.0
#define NCCL_TREE_LAT_INTRA_US 4.0

/* NCCL 2.4's rings through a node: a ring enters and leaves on two GPUs near one NIC. */
static int nccl_rings(int per_node, int nics)
{
    int rings = per_node / 2 < nics ? per_node / 2 : nics;
    return rings < 1 ? 1 : rings;
}

int co_ring_count(int per_node, int nodes, int nics)
{
    if (nodes < 2 || per_node < 2)
        return 1;
    int rings = nccl_rings(per_node, nics);
    if (rings > CO_RINGS_MAX)
        rings = CO_RINGS_MAX;
    while (rings > 1 && per_node % rings != 0)
        rings--;
    return rings < 1 ? 1 : rings;
}

int co_channel_entry(int j, int per_node, int rings)
{
    return rings > 0 ? j * per_node / rings : 0;
}

bool co_channel_enters_at(int local, int per_node, int rings)
{
    return rings > 0 && per_node >= rings && local % (per_node / rings) == 0;
}

double co_ring_chain_s(double lap_s, double next_s, double after_s)
{
    return 2 * lap_s - next_s - after_s;
}

co_algo co_nccl_choice(int n, int nodes, int nics, double bytes)
{
    if (nodes < 2 || n < 2)
        return CO_RING;
    int per_node = n / nodes;
    /* NCCL 2.4 doubles its rings into channels across nodes when the GPUs have NVLink; its
     * bandwidth estimate counts them, what the rings carry does not change */
    int rings = nccl_rings(per_node, nics);
    co_algo ring = co_ring_count(per_node, nodes, nics) > 1 ? CO_RINGS : CO_RING;
    double ring_bw = NCCL_BW_PER_CHANNEL * 2 * rings;
    double tree_bw = ring_bw * 3.0 / 4.0 * (nodes == 2 ? 2.0 : 1.0);
    double ring_lat = NCCL_RING_LAT_US * (n - 1);
    double tree_lat = NCCL_TREE_LAT_INTER_US * floor(log2((double)nodes)) +
                      NCCL_TREE_LAT_INTRA_US * (per_node - 1);
    if (ring_lat <= tree_lat)
        return ring;
    if (tree_bw > ring_bw)
        return CO_TREE;
    double threshold_bytes = ring_bw * tree_bw / (ring_bw - tree_bw) * (ring_lat - tree_lat);
    return bytes <= threshold_bytes ? CO_TREE : ring;
}
