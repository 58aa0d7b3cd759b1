/* collectives.c: the closed forms of the collectives: ParaDL's ring allreduce and allgather,
 * the allreduce algorithms beyond it (collective.h) on a group laid out by node (an_layout,
 * read by routes.c), and the sum of an iteration's communication terms (an_terms_comm_s). The
 * strategies' models (analytic.c, layerwise.c, redist.c, plan_model.c) price with these.
 *
 * Each is the time the simulator's version takes on a free network (sim/engine/engine_comm.c
 * for hier, engine_tree.c for the tree, engine_rings.c for NCCL's rings), NIC sharing
 * included: the members' messages that leave a node at once through one NIC share it, as
 * SimGrid's max-min sharing divides a link among equal flows. n members, g = n/N per node on
 * N nodes, m bytes; alpha/beta of the layout's slowest intra-node and inter-node edges (hier and
 * rings: the slowest edge at the step's size, which on a cube mesh is not the slowest latency
 * and the slowest bandwidth of two different edges):
 *   hier  2(g-1)(alpha_i + m/g beta_i) + 2(N-1)(alpha_o + m/(gN) max(beta_o u, beta_own)), u
 *         inter-node rings per NIC sharing the links past the GPUs' own PCIe links (beta_o),
 *         which each ring has to itself (beta_own) (reduce-scatter and allgather inside the
 *         node, the rings across between);
 *   tree  2 [max(K alpha_i + m beta_i, K alpha_o + m/2 s beta_o) + (D-1)(alpha + c beta)], per
 *         phase (reduce, broadcast): K chunks of c = m/2/K per edge, the chain carrying both
 *         trees' halves, a master's NIC s of the trees' halves at once (co_tree_node_share
 *         times the groups' masters behind it), then the fill of a pipeline of depth D = g-1
 *         plus the binary trees' depth, at the slowest edge;
 *   rings A + 2(n-1) max over the rings' edges of m/(r n) beta, r rings each carrying m/r
 *         (engine_rings.c): NCCL's latency plus bytes over bandwidth (src/graph/tuning.cc,
 *         ncclTopoGetAlgoTime), A the longest chain of latencies the 2(n-1) steps cross, each
 *         step its own edge's (co_ring_chain_s); inside a node beta times the rings crossing
 *         that pair, between nodes times the rings' messages through one NIC (routes.c,
 *         rings_add). */
#include "analytic_int.h"

#include "collective.h"

/* ------------------------------------------------------------------ ParaDL's ring */

double an__allreduce_s(int n, double bytes, an_link l)
{
    return n > 1 ? 2.0 * (n - 1) * (l.alpha_s + bytes / n * l.beta_s_per_byte) : 0.0;
}

double an__allgather_s(int n, double bytes, an_link l)
{
    return n > 1 ? (double)(n - 1) * (l.alpha_s + bytes * l.beta_s_per_byte) : 0.0;
}

an_link an__shared(an_link l, double flows)
{
    l.beta_s_per_byte *= flows;
    return l;
}

/* ------------------------------------------------------------------ terms */

/* The model's comm_s is this very sum, so the terms add up to it to the last bit. */
double an_terms_comm_s(const an_terms *terms)
{
    double sum_s = 0.0;
    for (int k = 0; k < HS_TERM_COUNT; k++)
        sum_s += terms->comm_s[k];
    return sum_s;
}

/* ------------------------------------------------------------------ the other allreduces */

/* The slowest of n edge kinds for a step of `chunk` bytes, beta times `share`, and no less than
 * own_beta (links a flow has to itself, which the sharing does not divide; 0: none). */
static double step_s(const an_link *kinds, int n, double chunk, double share, double own_beta)
{
    double worst_s = 0;
    for (int i = 0; i < n; i++) {
        double beta = kinds[i].beta_s_per_byte * share;
        double s = kinds[i].alpha_s + chunk * (beta > own_beta ? beta : own_beta);
        worst_s = s > worst_s ? s : worst_s;
    }
    return worst_s;
}

/* The inter-node rings of a node's members share its NICs past their own PCIe links: a GPU's
 * link slower than its share of the NIC (dgx1: 12 GB/s against 12.5 / 2) is not divided. */
static double hier_s(const an_layout *lay, double bytes)
{
    int g = lay->per_node, nodes = lay->n_nodes;
    double intra_s = 2.0 * (g - 1) * step_s(lay->hier_intra, lay->n_hier_intra, bytes / g, 1, 0);
    double inter_s = 2.0 * (nodes - 1) * step_s(lay->hier_inter, lay->n_hier_inter,
                                                bytes / g / nodes, lay->nic_share,
                                                lay->hier_own_beta_s_per_byte);
    return intra_s + inter_s;
}

static double tree_s(const an_layout *lay, double bytes)
{
    int g = lay->per_node, nodes = lay->n_nodes, r = lay->rings > 0 ? lay->rings : 1;
    bytes /= r; /* a tree a channel, each carrying its share (engine_tree.c) */
    int chunks = co_tree_chunks(bytes);
    int d0 = co_btree_depth(0, nodes), d1 = co_btree_depth(1, nodes);
    int depth = g - 1 + (d0 > d1 ? d0 : d1);
    double edge_s = 0, alpha_s = 0, beta = 0;
    if (g > 1) { /* the chain's slowest edge for the phase; its slowest terms for the fill */
        for (int i = 0; i < lay->n_chain; i++) {
            double c_s = chunks * lay->chain[i].alpha_s + bytes * lay->chain[i].beta_s_per_byte;
            edge_s = c_s > edge_s ? c_s : edge_s;
        }
        alpha_s = lay->chain_slowest.alpha_s, beta = lay->chain_slowest.beta_s_per_byte;
    }
    if (nodes > 1) {
        double share = (double)co_tree_node_share(nodes) * lay->masters_per_nic;
        double o_s = chunks * lay->inter.alpha_s + bytes / 2 * share * lay->inter.beta_s_per_byte;
        edge_s = o_s > edge_s ? o_s : edge_s;
        alpha_s = lay->inter.alpha_s > alpha_s ? lay->inter.alpha_s : alpha_s;
        beta = lay->inter.beta_s_per_byte > beta ? lay->inter.beta_s_per_byte : beta;
    }
    double fill_s = depth > 1 ? (depth - 1) * (alpha_s + bytes / 2 / chunks * beta) : 0.0;
    return 2.0 * (edge_s + fill_s);
}

static double rings_s(const an_layout *lay, int n, double bytes)
{
    double chunk = bytes / lay->rings / n;
    double intra_s = step_s(lay->rings_intra, lay->n_rings_intra, chunk, 1, 0);
    double inter_s = step_s(lay->rings_inter, lay->n_rings_inter, chunk, lay->rings_nic_share, 0);
    return lay->rings_chain_s + 2.0 * (n - 1) * (intra_s > inter_s ? intra_s : inter_s);
}

double an__allreduce_algo_s(co_algo algo, int n, double bytes, an_link ring,
                            const an_layout *lay)
{
    if (n < 2)
        return 0.0;
    if (algo == CO_AUTO)
        algo = lay->per_node > 0 ? co_nccl_choice(n, lay->n_nodes, lay->nics, bytes) : CO_RING;
    if (algo == CO_RINGS && lay->rings < 2)
        algo = CO_RING; /* one ring: the group's own */
    if (algo == CO_RING || lay->per_node < 1)
        return an__allreduce_s(n, bytes, ring);
    if (algo == CO_RINGS)
        return rings_s(lay, n, bytes);
    return algo == CO_HIER ? hier_s(lay, bytes) : tree_s(lay, bytes);
}
