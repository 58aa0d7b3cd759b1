/* layerwise.c: one layer under one configuration, priced in closed form (analytic.h).
 *
 * What a layer costs by itself: its kernels (the per-sample calibration times its batch share,
 * cut by its model splits), its halo exchanges when its output is cut spatially (ParaDL's
 * terms: floor((K-1)/2) rows or columns per split face, forward and backward, each of two
 * messages staged through host memory with the node's GPUs sharing PCIe both ways), and its
 * weight-gradient allreduce. The gradients of a plan are fused per set of ranks (plan_model.c);
 * an_layer_price prices a layer's alone, so that a search can add layers up. */
#include "analytic_int.h"

#include "compute.h"

#include <string.h>

int an__layer_compute_s(const wl_workload *wl, const kt_compute *kc, int i,
                        const st_layer_config *c, double batch, double *compute_s, char *err)
{
    const wl_layer *l = &wl->layers[i];
    int weight_ways = c->whole ? 1 : c->filter * c->channel;
    double fw_s, bx_s, bw_s;
    int rc = st_layer_kernels_s(wl, kc, i, c, batch, &fw_s, &bx_s, &bw_s, err);
    if (rc != HS_OK)
        return rc;
    if (!kc) /* ParaDL's arithmetic, in its order, to the last bit */
        *compute_s = batch / c->batch * (l->fw_s + l->bw_s) / st_model_ways(c) +
                     l->wu_s / weight_ways;
    else
        *compute_s = fw_s + bx_s + bw_s + kt_compute_update_s(kc, wl, i, weight_ways);
    return HS_OK;
}

double an__layer_update_s(const wl_workload *wl, const kt_compute *kc, int i,
                          const st_layer_config *c)
{
    int weight_ways = c->whole ? 1 : c->filter * c->channel;
    return kc ? kt_compute_update_s(kc, wl, i, weight_ways) : wl->layers[i].wu_s / weight_ways;
}

/* One sample's halo along spatial axis `axis` (0 width, 1 height, 2 depth): its input channels
 * (cut by the channel split), floor((K-1)/2) of the axis, and the other axes as cut. */
static double halo_elems(const wl_layer *l, const st_layer_config *c, int axis)
{
    const int split[3] = {c->width, c->height, c->depth};
    int64_t k = l->w_kernel[axis];
    double face = (double)l->x.channels / c->channel * (double)((k - 1) / 2);
    for (int e = 0; e < l->x.n_spatial && e < 3; e++)
        if (e != axis)
            face *= (double)l->x.spatial[e] / split[e];
    return face;
}

double an__halo_s(an_net *net, const wl_workload *wl, const kt_compute *kc, int i,
                  const st_layer_config *c, double batch, bool chain)
{
    const wl_layer *l = &wl->layers[i];
    if (c->whole)
        return 0.0;
    const int split[3] = {c->width, c->height, c->depth};
    st_coords s = st_strides(c);
    const int stride[3] = {s.w, s.h, s.d};
    double sum_s = 0.0;
    for (int axis = 0; axis < l->x.n_spatial && axis < 3; axis++) {
        if (split[axis] < 2 || l->w_kernel[axis] <= 1)
            continue;
        an_lines line = {.base = c->base, .q = st_group_size(c), .stride = stride[axis],
                         .n = split[axis]};
        an_link staged = an__lines_staged(net, line);
        double bytes = batch / c->batch * halo_elems(l, c, axis) * kt_message_bytes(kc);
        /* x forward, dL/dx backward, each to both neighbours one after the other: in a chain
         * along the axis' split - 1 links, each alone on its links (the built-ins' default);
         * or (sendrecv) every GPU at once, the node's GPUs staging in both directions on the
         * links they share, as the built-in spatial form (analytic.c, model_spatial) */
        if (chain)
            sum_s += (split[axis] - 1) * 4 * (staged.alpha_s + bytes * staged.beta_s_per_byte);
        else {
            an_link shared = an__shared(staged, 2.0 * an__node_sharing(net));
            sum_s += 4 * (shared.alpha_s + bytes * shared.beta_s_per_byte);
        }
    }
    return sum_s;
}

/* ------------------------------------------------------------------ weight gradients */

an_grad_sets an__grad_sets(const st_layer_config *c, bool reduce_replicas)
{
    st_coords s = st_strides(c);
    int q = st_group_size(c), slabs = c->depth * c->height * c->width;
    an_grad_sets g = {.inner = {c->base, q, 1, slabs}, .outer = {c->base, q, s.b, c->batch}};
    if (!reduce_replicas || c->replicas < 2)
        return g;
    if (c->channel * c->filter == 1) /* replicas and slabs are one contiguous block */
        g.inner.n = c->replicas * slabs;
    else /* replicas and batch blocks are one line of the replicas' stride */
        g.outer = (an_lines){c->base, q, s.r, c->batch * c->replicas};
    return g;
}

double an__grad_bytes(const wl_workload *wl, double elem_bytes, int i, const st_layer_config *c)
{
    const wl_layer *l = &wl->layers[i];
    int ways = c->whole ? 1 : c->filter * c->channel;
    return (double)l->w_elems / ways * elem_bytes;
}

/* One family's allreduce: the ring on `ring`, or another algorithm on the family's layout
 * (the simulator's per group, engine_comm.c; a layout uneven over its nodes runs the ring),
 * NCCL's choice (CO_AUTO) made for a buffer of choice_bytes. */
static double grad_allreduce_s(an_net *net, an_lines lines, double bytes, double choice_bytes,
                               co_algo algo, an_link ring)
{
    an_layout lay;
    if (algo == CO_RING || an__lines_layout(net, lines, &lay) != 0)
        return an__allreduce_s(lines.n, bytes, ring);
    if (algo == CO_AUTO && lay.per_node > 0 && lines.n > 1)
        algo = co_nccl_choice(lines.n, lay.n_nodes, lay.nics, choice_bytes);
    return an__allreduce_algo_s(algo, lines.n, bytes, ring, &lay);
}

/* Concurrent rings of the outer sets share the node's uplink (ParaDL's data+filter divides
 * the inter-node bandwidth by the node's GPUs); after an allreduce inside the group, ParaDL's
 * data+spatial charges the outer one at the uplink shared both ways by the node's GPUs. */
void an__grad_price(an_net *net, an_grad_sets g, double bytes, double choice_bytes, co_algo algo,
                    double *comm_s)
{
    bool inner = g.inner.n > 1, outer = g.outer.n > 1;
    if (inner)
        comm_s[HS_TERM_GRAD_GROUP] += grad_allreduce_s(net, g.inner, bytes, choice_bytes, algo,
                                                       an__lines_ring(net, g.inner));
    if (!outer)
        return;
    double flows = inner ? 2.0 * an__node_sharing(net)
                 : g.outer.q / g.outer.n > 1 ? an__node_sharing(net) : 1.0;
    an_link across = an__shared(an__lines_ring(net, g.outer), flows);
    comm_s[HS_TERM_GRAD_ACROSS] += grad_allreduce_s(net, g.outer, bytes, choice_bytes, algo, across);
}

/* ------------------------------------------------------------------ public */

double an_price_s(const an_price *pr)
{
    double sum_s = pr->compute_s;
    for (int k = 0; k < HS_TERM_COUNT; k++)
        sum_s += pr->comm_s[k];
    return sum_s;
}

int an_layer_price(an_net *net, const wl_workload *wl, const kt_compute *kc,
                   const st_plan *rules, int layer, const st_layer_config *c, int64_t batch,
                   an_price *out, char *err)
{
    memset(out, 0, sizeof *out);
    if (layer < 0 || layer >= wl->n_layers || st_group_size(c) < 1)
        return hs_fail(err, HS_EINPUT, "an_layer_price: layer %d of %d, group of %d", layer,
                       wl->n_layers, st_group_size(c));
    const wl_layer *l = &wl->layers[layer];
    int rc = an__layer_compute_s(wl, kc, layer, c, (double)batch, &out->compute_s, err);
    if (rc != HS_OK)
        return rc;
    out->comm_s[HS_TERM_HALO] =
        an__halo_s(net, wl, kc, layer, c, (double)batch, !rules->halo_sendrecv);
    if (l->w_elems > 0) {
        double bytes = an__grad_bytes(wl, st_gradient_bytes(&rules->train, kc), layer, c);
        an__grad_price(net, an__grad_sets(c, rules->reduce_replicas), bytes, bytes,
                       rules->allreduce, out->comm_s);
    }
    return HS_OK;
}

void an_plan_rules(const st_plan *rules, st_plan *plan)
{
    plan->allreduce = rules->allreduce;
    plan->train = rules->train;
    plan->halo_sendrecv = rules->halo_sendrecv;
    plan->filter_allreduce = rules->filter_allreduce;
    plan->cycle_time_s = rules->cycle_time_s;
}
