/* routes.c: the only place the analytic model reads the machine (analytic.h's an_links).
 *
 * The closed forms need an alpha and a beta per collective; they come from the platform's own
 * routes between the GPUs that take part, never from constants, so a what-if change to the
 * platform file reaches the analytic model and the simulator alike. Rank r runs on GPU r, or
 * where a placement puts it. */
#include "analytic.h"
#include "analytic_int.h"

#include "collective.h"

#include <stdlib.h>
#include <string.h>

/* alpha/beta of the ring gpu[0] -> gpu[1] -> ... -> gpu[n-1] -> gpu[0]. */
an_link an__ring_link(const plat_platform *plat, const int *gpu, int n)
{
    an_link l;
    plat_ring_cost(plat, gpu, n, &l.alpha_s, &l.beta_s_per_byte);
    return l;
}

an_link an__slowest(an_link a, an_link b)
{
    if (b.alpha_s > a.alpha_s)
        a.alpha_s = b.alpha_s;
    if (b.beta_s_per_byte > a.beta_s_per_byte)
        a.beta_s_per_byte = b.beta_s_per_byte;
    return a;
}

an_link an__pair_link(const plat_platform *plat, int a, int b)
{
    an_link l;
    double bw_Bps;
    plat_route(plat, a, b, &l.alpha_s, &bw_Bps);
    l.beta_s_per_byte = bw_Bps > 0 ? 1.0 / bw_Bps : 0.0;
    return l;
}

/* The link between GPU g and its host memory (its PCIe link): plat_host_link. Returns 0 when
 * the platform has a single node; the caller then falls back on the GPU-to-GPU route. */
static int host_link(const plat_platform *plat, int g, an_link *l)
{
    double bw_Bps;
    if (!plat_host_link(plat, g, &l->alpha_s, &bw_Bps))
        return 0;
    l->beta_s_per_byte = bw_Bps > 0 ? 1.0 / bw_Bps : 0.0;
    return 1;
}

an_link an__staged_link(const plat_platform *plat, int a, int b)
{
    an_link l = an__pair_link(plat, a, b);
    int per_node = plat->gpus_per_node > 0 ? plat->gpus_per_node : 1;
    an_link pcie;
    if (a / per_node == b / per_node && host_link(plat, a, &pcie))
        l = pcie;
    l.alpha_s += plat->staging_latency_s;
    return l;
}

/* The NIC of a node that GPU g uses (platforms/README.md: spread evenly, in GPU order). */
static int nic_of(const plat_platform *plat, int g, int nics)
{
    int gpn = plat->gpus_per_node > 0 ? plat->gpus_per_node : 1;
    int per_nic = gpn / nics > 0 ? gpn / nics : 1;
    int nic = g % gpn / per_nic;
    return nic < nics ? nic : nics - 1;
}

/* Keep edge e in set[0..*n) unless an edge there is as slow in both terms; drop those it is
 * as slow as; when the set is full, merge it into the last entry term by term. */
static void edge_kind_add(an_link *set, int *n, an_link e)
{
    for (int i = 0; i < *n; i++)
        if (set[i].alpha_s >= e.alpha_s && set[i].beta_s_per_byte >= e.beta_s_per_byte)
            return;
    int kept = 0;
    for (int i = 0; i < *n; i++)
        if (!(e.alpha_s >= set[i].alpha_s && e.beta_s_per_byte >= set[i].beta_s_per_byte))
            set[kept++] = set[i];
    *n = kept;
    if (*n < AN_EDGE_KINDS)
        set[(*n)++] = e;
    else
        set[*n - 1] = an__slowest(set[*n - 1], e);
}

/* The edges of the tree's chains over the group laid out by node in by[nodes * per], one chain
 * a channel of r (engine_tree.c): channel j's runs from its entry on, x handing to x - 1 (and
 * back), so the pair into x - 1 carries every channel but the one whose chain starts at x. By
 * kind (beta times the chains through the pair) into *lay, and their slowest terms. */
static void chains_add(const plat_platform *plat, const int *by, int per, int nodes, int r,
                       an_layout *lay)
{
    for (int c = 0; c < nodes; c++)
        for (int x = 0; per > 1 && x < per; x++) {
            int through = r - co_channel_enters_at(x, per, r);
            for (int back = 0; through > 0 && back < 2; back++) {
                int a = by[(size_t)c * per + x], b = by[(size_t)c * per + (x + per - 1) % per];
                an_link e = an__pair_link(plat, back ? b : a, back ? a : b);
                lay->chain_slowest = an__slowest(lay->chain_slowest, e);
                e.beta_s_per_byte *= through;
                edge_kind_add(lay->chain, &lay->n_chain, e);
            }
        }
}

/* The edges of the hierarchical allreduce's rings over the group laid out by node in
 * by[nodes * per] (each node's members in order, the members of equal local index across the
 * nodes), by kind into *lay. An inter-node edge's beta is that of the links between the two
 * GPUs' own (the NIC the rings of a node's members share, collectives.c hier_s); its own
 * links' slowest goes into lay->hier_own_beta_s_per_byte. */
static void hier_add(const plat_platform *plat, const int *by, int per, int nodes,
                     an_layout *lay)
{
    for (int c = 0; per > 1 && c < nodes; c++)
        for (int l = 0; l < per; l++)
            edge_kind_add(lay->hier_intra, &lay->n_hier_intra,
                          an__pair_link(plat, by[(size_t)c * per + l],
                                        by[(size_t)c * per + (l + 1) % per]));
    for (int j = 0; nodes > 1 && j < per; j++)
        for (int c = 0; c < nodes; c++) {
            int a = by[(size_t)c * per + j], b = by[(size_t)((c + 1) % nodes) * per + j];
            an_link e = an__pair_link(plat, a, b);
            double ends_Bps, between_Bps;
            if (plat_route_ends(plat, a, b, &ends_Bps, &between_Bps) == 0) {
                e.beta_s_per_byte = 1.0 / between_Bps;
                if (1.0 / ends_Bps > lay->hier_own_beta_s_per_byte)
                    lay->hier_own_beta_s_per_byte = 1.0 / ends_Bps;
            }
            edge_kind_add(lay->hier_inter, &lay->n_hier_inter, e);
        }
}

/* NCCL's r rings over the group laid out by node in by[nodes * per] (collective.h): ring j
 * enters every node at co_channel_entry and leaves from the member before. Their edges'
 * kinds into *lay (an intra-node pair's beta times the rings through it), and the NICs the
 * first node's ring messages leave and enter by into nic_flows[2 * nics] (out, then in). The
 * edges' latencies are the rings' chains' (lay->rings_chain_s, the longest the 2(n-1) steps
 * ending on an edge accumulate: co_ring_chain_s), not theirs: alpha 0. -1 when out of memory. */
static int rings_add(const plat_platform *plat, const int *by, int per, int nodes, int r,
                     an_layout *lay, int *nic_flows)
{
    int nics = plat_nics_per_node(plat), n = per * nodes;
    if (r < 2)
        return 0;
    an_link *edge = malloc((size_t)n * sizeof *edge); /* ring j's, from position q to q + 1 */
    if (!edge)
        return -1;
    for (int j = 0; j < r; j++) {
        int in = co_channel_entry(j, per, r), out = (in + per - 1) % per;
        double lap_s = 0;
        for (int q = 0; q < n; q++) {
            int l = (q % per + in) % per, next = (l + 1) % per, c = q / per;
            int to = q % per == per - 1 ? by[(size_t)((c + 1) % nodes) * per + in]
                                        : by[(size_t)c * per + next];
            edge[q] = an__pair_link(plat, by[(size_t)c * per + l], to);
            lap_s += edge[q].alpha_s;
        }
        for (int q = 0; q < n; q++) {
            an_link e = edge[q];
            double chain_s = co_ring_chain_s(lap_s, edge[(q + 1) % n].alpha_s,
                                             edge[(q + 2) % n].alpha_s);
            if (chain_s > lay->rings_chain_s)
                lay->rings_chain_s = chain_s;
            e.alpha_s = 0;
            if (q % per == per - 1) {
                edge_kind_add(lay->rings_inter, &lay->n_rings_inter, e);
                continue;
            }
            /* every ring but the one entering at the pair's far end crosses it */
            e.beta_s_per_byte *= r - co_channel_enters_at((q % per + in + 1) % per, per, r);
            edge_kind_add(lay->rings_intra, &lay->n_rings_intra, e);
        }
        if (nic_flows) {
            nic_flows[nic_of(plat, by[out], nics)]++;
            nic_flows[nics + nic_of(plat, by[in], nics)]++;
        }
    }
    free(edge);
    return 0;
}

/* Lay the group gpu[0..n) out by node into *lay, its links the slowest of those it has
 * already (several groups of one shape, run at once, are laid out into one), counting its
 * rings' NIC use into nic_flows (rings_add). -1 when out of memory. */
static int layout_add(const plat_platform *plat, const int *gpu, int n, an_layout *lay,
                      int *nic_flows)
{
    int gpn = plat->gpus_per_node > 0 ? plat->gpus_per_node : 1;
    int *node_of = malloc((size_t)n * sizeof *node_of), *count = calloc((size_t)n, sizeof *count);
    int *first = malloc((size_t)n * sizeof *first), *by = malloc((size_t)n * sizeof *by);
    int *local_of = malloc((size_t)n * sizeof *local_of);
    int nodes = 0, status = node_of && count && first && by && local_of ? 0 : -1;
    for (int i = 0; status == 0 && i < n; i++) {
        int c = nodes - 1; /* a node's members are usually adjacent in the group */
        if (c < 0 || first[c] / gpn != gpu[i] / gpn)
            for (c = 0; c < nodes && first[c] / gpn != gpu[i] / gpn; c++)
                ;
        if (c == nodes)
            first[nodes++] = gpu[i];
        node_of[i] = c;
        local_of[i] = count[c]++;
    }
    int per = status == 0 ? count[0] : 0;
    for (int c = 1; c < nodes; c++)
        if (count[c] != per)
            per = 0;
    for (int i = 0; per > 0 && i < n; i++)
        by[(size_t)node_of[i] * per + local_of[i]] = gpu[i];
    for (int c = 0; per > 0 && c < nodes; c++)
        lay->intra = an__slowest(lay->intra, an__ring_link(plat, by + (size_t)c * per, per));
    for (int j = 0; per > 0 && j < per; j++) {
        for (int c = 0; c < nodes; c++)
            first[c] = by[(size_t)c * per + j];
        lay->inter = an__slowest(lay->inter, an__ring_link(plat, first, nodes));
    }
    if (per > 0) { /* NCCL's channels: its rings, and a tree on each */
        lay->rings = co_ring_count(per, nodes, plat_nics_per_node(plat));
        chains_add(plat, by, per, nodes, lay->rings, lay);
        hier_add(plat, by, per, nodes, lay);
        if (rings_add(plat, by, per, nodes, lay->rings, lay, nic_flows) != 0)
            status = -1;
    }
    if (lay->n_nodes == 0 && status == 0)
        lay->per_node = per, lay->n_nodes = nodes;
    else if (per != lay->per_node || nodes != lay->n_nodes)
        lay->per_node = 0;
    free(node_of), free(count), free(first), free(by), free(local_of);
    return status;
}

/* The NIC sharing of `groups` groups of this layout running at once; nic_flows: the rings'
 * (rings_add). */
static void layout_share(const plat_platform *plat, int groups, const int *nic_flows,
                         an_layout *lay)
{
    int gpn = plat->gpus_per_node > 0 ? plat->gpus_per_node : 1;
    lay->nics = plat_nics_per_node(plat);
    int per_nic = gpn / lay->nics > 0 ? gpn / lay->nics : 1;
    int on_node = lay->per_node * groups;
    int u = on_node < per_nic ? on_node : per_nic;
    lay->nic_share = u > 0 ? u : 1;
    lay->masters_per_nic = groups < u ? groups : lay->nic_share;
    lay->rings_nic_share = 1;
    for (int i = 0; i < 2 * lay->nics; i++)
        if (nic_flows[i] > lay->rings_nic_share)
            lay->rings_nic_share = nic_flows[i];
}

int an__layout_lines(const plat_platform *plat, const int *gpu_of_rank, int p, an_lines k,
                     an_layout *lay)
{
    memset(lay, 0, sizeof *lay);
    int nics = plat_nics_per_node(plat), lines = 0, failed = 0;
    int *flows = calloc(2 * (size_t)nics, sizeof *flows);
    int *gpu = malloc((size_t)(k.n > 0 ? k.n : 1) * sizeof *gpu);
    failed = flows && gpu ? 0 : -1;
    for (int t = 0; !failed && k.n > 1 && t < k.q; t++) {
        if ((t / k.stride) % k.n != 0)
            continue;
        int n = 0;
        for (int i = 0; i < k.n && k.base + t + i * k.stride < p; i++)
            gpu[n++] = gpu_of_rank[k.base + t + i * k.stride];
        failed = n == k.n ? layout_add(plat, gpu, n, lay, flows) : 0;
        lines++;
    }
    if (!failed && lines > 0)
        layout_share(plat, lines, flows, lay);
    free(flows);
    free(gpu);
    return failed;
}

/* How the n GPUs of a group fall on nodes, for a message: "8 on each of 10 nodes, 4 on 1". */
static void describe_nodes(const plat_platform *plat, const int *gpu, int n, char *buf,
                           size_t len)
{
    int gpn = plat->gpus_per_node > 0 ? plat->gpus_per_node : 1, nodes = 0;
    int *count = calloc((size_t)n, sizeof *count); /* GPUs on each node, in first-seen order */
    snprintf(buf, len, "%d GPUs", n);
    if (!count)
        return;
    for (int i = 0; i < n; i++) {
        bool seen = false; /* quadratic, but only on the way to an error */
        for (int k = 0; k < i && !seen; k++)
            seen = gpu[k] / gpn == gpu[i] / gpn;
        for (int k = i; k < n && !seen; k++)
            count[nodes] += gpu[k] / gpn == gpu[i] / gpn;
        nodes += !seen;
    }
    size_t at = 0;
    for (int c = 0; c < nodes && at < len; c++) {
        int same = 0;
        for (int k = 0; k < nodes; k++)
            same += count[k] == count[c];
        bool listed = false;
        for (int k = 0; k < c && !listed; k++)
            listed = count[k] == count[c];
        if (!listed)
            at += (size_t)snprintf(buf + at, len - at, "%s%d on %s%d node%s", at ? ", " : "",
                                   count[c], same > 1 ? "each of " : "", same,
                                   same > 1 ? "s" : "");
    }
    free(count);
}

/* The layouts of the gradient allreduces: across the p2-strided groups, inside group 0. */
static int layouts_load(const plat_platform *plat, const st_strategy *st,
                        const int *gpu_of_rank, an_links *links, int *gpu, char *err)
{
    int p1 = st->p1, p2 = st->p2, nics = plat_nics_per_node(plat);
    int *flows = calloc(4 * (size_t)nics, sizeof *flows), failed = flows ? 0 : -1;
    for (int k = 0; !failed && k < p2; k++) {
        for (int j = 0; j < p1; j++)
            gpu[j] = gpu_of_rank ? gpu_of_rank[j * p2 + k] : j * p2 + k;
        failed |= layout_add(plat, gpu, p1, &links->grad_across, flows);
    }
    for (int k = 0; !failed && k < p2; k++)
        gpu[k] = gpu_of_rank ? gpu_of_rank[k] : k;
    /* group 0's rings stand for the p1 groups' (spatial: one node each, so one ring) */
    failed |= failed ? 0 : layout_add(plat, gpu, p2, &links->grad_group, flows + 2 * nics);
    if (!failed) {
        layout_share(plat, p2, flows, &links->grad_across);
        layout_share(plat, p1, flows + 2 * nics, &links->grad_group);
    }
    free(flows);
    if (failed)
        return hs_fail(err, HS_EINTERNAL, "out of memory laying out %d ranks by node", st->p);
    bool across = p1 > 1 && !links->grad_across.per_node;
    if ((across || (p2 > 1 && !links->grad_group.per_node)) && st->allreduce != CO_AUTO) {
        int n = across ? p1 : p2; /* the uneven group: across ranks 0, p2, 2 p2..., or group 0 */
        for (int j = 0; j < n; j++)
            gpu[j] = gpu_of_rank ? gpu_of_rank[across ? j * p2 : j] : (across ? j * p2 : j);
        char found[160], hint[96] = "";
        describe_nodes(plat, gpu, n, found, sizeof found);
        int gpn = plat->gpus_per_node;
        if (p2 == 1 && gpn > 0 && p1 > gpn) /* data parallel: whole nodes, packed */
            snprintf(hint, sizeof hint, " (-g %d or %d fills whole nodes)", p1 / gpn * gpn,
                     p1 / gpn * gpn + gpn);
        return hs_fail(err, HS_EINPUT, "--allreduce %s: the gradient allreduce's %d ranks are "
                       "not spread evenly over their nodes (%s; %s has %d GPUs a node); hier, "
                       "tree and rings need the same number on every node%s",
                       co_algo_name(st->allreduce), n, found, plat->name, gpn, hint);
    }
    return HS_OK;
}

int an_links_load(const plat_platform *plat, const st_strategy *st, an_links *links, char *err)
{
    return an_links_load_placed(plat, st, NULL, links, err);
}

/* The GPU rank r runs on. */
static int gpu_of(const int *gpu_of_rank, int r) { return gpu_of_rank ? gpu_of_rank[r] : r; }

int an_links_load_placed(const plat_platform *plat, const st_strategy *st,
                         const int *gpu_of_rank, an_links *links, char *err)
{
    memset(links, 0, sizeof *links);
    int p = st->p, p1 = st->p1, p2 = st->p2;
    if (p < 1 || p1 < 1 || p2 < 1 || (long long)p1 * p2 != p)
        return hs_fail(err, HS_EINTERNAL, "strategy %s: bad shape p=%d p1=%d p2=%d",
                       st_kind_name(st->kind), p, p1, p2);
    if (p > plat->n_gpus)
        return hs_fail(err, HS_EINPUT, "-g %d: platform %s has only %d GPUs", p, plat->name,
                       plat->n_gpus);
    int *gpu = malloc((size_t)p * sizeof *gpu);
    if (!gpu)
        return hs_fail(err, HS_EINTERNAL, "out of memory for a ring of %d GPUs", p);

    for (int r = 0; r < p; r++)
        gpu[r] = gpu_of(gpu_of_rank, r);
    links->ring = an__ring_link(plat, gpu, p);
    links->group = an__ring_link(plat, gpu, p2);
    /* Data-parallel ring k links GPU k of every group; they all run at once. */
    for (int k = 0; k < p2; k++) {
        for (int j = 0; j < p1; j++)
            gpu[j] = gpu_of(gpu_of_rank, j * p2 + k);
        links->across = an__slowest(links->across, an__ring_link(plat, gpu, p1));
    }
    int status = st->allreduce == CO_RING ? HS_OK
                                          : layouts_load(plat, st, gpu_of_rank, links, gpu, err);
    free(gpu);
    if (status != HS_OK)
        return status;
    /* Halo neighbours: consecutive GPUs of a group. */
    links->staged = links->group;
    for (int i = 0; i + 1 < p2; i++)
        links->staged = i == 0 ? an__staged_link(plat, gpu_of(gpu_of_rank, 0),
                                                 gpu_of(gpu_of_rank, 1))
                               : an__slowest(links->staged,
                                             an__staged_link(plat, gpu_of(gpu_of_rank, i),
                                                             gpu_of(gpu_of_rank, i + 1)));
    links->node_sharing = plat->gpus_per_node < p ? plat->gpus_per_node : p;
    if (links->node_sharing < 1)
        links->node_sharing = 1;

    if (st->kind == ST_PIPELINE && p > 1) {
        links->stage = malloc((size_t)(p - 1) * sizeof *links->stage);
        if (!links->stage)
            return hs_fail(err, HS_EINTERNAL, "out of memory for %d pipeline links", p - 1);
        links->n_stage_links = p - 1;
        for (int i = 0; i < p - 1; i++)
            links->stage[i] = an__pair_link(plat, gpu_of(gpu_of_rank, i),
                                            gpu_of(gpu_of_rank, i + 1));
    }
    return HS_OK;
}

void an_links_free(an_links *links)
{
    free(links->stage);
    links->stage = NULL;
    links->n_stage_links = 0;
}
