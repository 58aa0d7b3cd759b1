/* collective.h: the allreduce algorithms both derivations know, and the facts about them that
 * the analytic model and the simulator must agree on (co_).
 *
 * The gradient allreduce of a training iteration can run as
 *   ring   reduce-scatter + allgather around all members in rank order (ParaDL's model):
 *          2(n-1) steps of m/n;
 *   rings  NCCL's ring as it runs on nodes with several NICs: r rings at once, each carrying
 *          m/r, each entering every node on a different member (so on a different NIC) and
 *          leaving it on the member before (co_ring_count);
 *   hier   a ring inside each node (reduce-scatter), rings across the nodes among the members
 *          of equal local index (allreduce of m/g), a ring inside the node (allgather)
 *          (ChainerMN's hierarchical communicator, Horovod's hierarchical allreduce);
 *   tree   NCCL's double binary tree (NCCL >= 2.4): inside a node the members form a chain,
 *          the nodes two complementary binary trees, each tree carrying half of the buffer in
 *          chunks, reduced up to the root and broadcast down, pipelined;
 *   auto   what NCCL 2.4 chooses between its rings and its tree for the size and the group
 *          (its tree threshold, computed from NCCL's own constants: co_nccl_choice).
 * The trees, the chunk and the choice live here so that the closed form (analytic/) and the
 * task graphs the engine runs (sim/) are built from the same shapes. */
#ifndef COLLECTIVE_H
#define COLLECTIVE_H

#include <stdbool.h>

typedef enum {
    CO_RING,      /* the default: ParaDL's ring */
    CO_HIER,
    CO_TREE,
    CO_RINGS,     /* NCCL's rings over every NIC of a node */
    CO_AUTO,      /* rings or tree, as NCCL 2.4 chooses */
    CO_ALGO_COUNT
} co_algo;

/* NCCL 2.4's pipeline chunk of a tree: its 4 MiB buffer in 8 slots (src/include/comm.h,
 * DEFAULT_BUFFER_SIZE; src/enqueue.cc). */
#define CO_TREE_CHUNK_BYTES 524288.0

/* PyTorch DDP's bucket_cap_mb (torch/nn/parallel/distributed.py; kDefaultBucketBytesCap in
 * c10d's reducer.hpp): the gradients reduced together when communication overlaps the
 * backward (--overlap), in the order the backward produces them. */
#define CO_BUCKET_BYTES (25.0 * 1024 * 1024)

const char *co_algo_name(co_algo a);
/* "ring", "hier", "tree", "rings", "auto" -> *a; 0, or -1 for an unknown name. */
int co_algo_parse(const char *text, co_algo *a);

/* Binary tree `tree` (0 or 1) over n nodes 0..n-1: node r's parent (-1 for the root) and its
 * children (-1 for none). Tree 0 numbers its nodes in order (the leaves are the odd nodes);
 * tree 1 is tree 0 shifted by one node when n is even, mirrored when n is odd, so that no node
 * is inside both trees and every node's links carry the same load (NCCL's double binary tree,
 * Sanders et al. 2009). */
void co_btree(int tree, int n, int r, int *parent, int *child0, int *child1);

/* Edges on the longest path from a leaf to the root of tree `tree` over n nodes. */
int co_btree_depth(int tree, int n);

/* The most messages one node sends or receives at once in one phase (up: reduce, down:
 * broadcast) of the two trees over n nodes: every one of them shares that node's NIC. */
int co_tree_node_share(int n);

/* Chunks a tree of m bytes moves per edge (each tree carries m/2): at least 1. */
int co_tree_chunks(double bytes);

/* The most rings co_ring_count gives (NCCL 2.4's MAXRINGS is 16). */
#define CO_RINGS_MAX 16

/* The rings NCCL runs at once for a group of per_node members on each of `nodes` nodes with
 * `nics` NICs a node: a ring enters and leaves a node through GPUs near a NIC, so one per two
 * members up to one per NIC (NCCL 2.4, src/init.cc) and CO_RINGS_MAX, lowered until it divides
 * per_node so that every ring enters a node at the same distance from the last (the members
 * are spread over the NICs in order: ring j enters at local index j * per_node / rings). 1 on
 * one node. */
int co_ring_count(int per_node, int nodes, int nics);

/* Where channel (ring or tree) j of `rings` enters a node of per_node members: the local index
 * j per_node / rings, which its tree's chain starts from; and whether some channel enters at
 * local index `local` (the intra-node pair into it then carries one channel fewer). */
int co_channel_entry(int j, int per_node, int rings);
bool co_channel_enters_at(int local, int per_node, int rings);

/* The latency of NCCL's ring allreduce (2(n-1) steps over a ring of n edges) as its pipeline
 * accumulates it: each step pays the latency of the edge it crosses, so the steps that end on an
 * edge pay the 2(n-1) edges up to it, two laps of the ring (lap_s) but the two edges after it
 * (next_s, then after_s); NVLink steps are cheaper than network steps (NCCL
 * src/graph/tuning.cc, ncclTopoTuneModel: latency += (nsteps - nInterSteps) intraLat +
 * nInterSteps interLat, nsteps = 2(nRanks-1)). The closed form's rings_s and the simulator's
 * rings (engine_rings.c) both price an edge by it. */
double co_ring_chain_s(double lap_s, double next_s, double after_s);

/* NCCL 2.4's choice for an allreduce of `bytes` over n members on `nodes` nodes (n/nodes on
 * each), with `nics` NICs a node offers the group: the tree when bytes are under its tree
 * threshold (NCCL src/init.cc ncclTreeThreshold, 2.4.8), else its rings (CO_RINGS, or CO_RING
 * when that is one ring); never hier. */
co_algo co_nccl_choice(int n, int nodes, int nics, double bytes);

#endif
