/* overlap.c: data parallelism with its gradients reduced in buckets while the backward runs
 * (--overlap; PyTorch DDP's and Horovod's schedule).
 *
 * The simulator's overlap order (sim/expand/expand_overlap.c) writes the backward layer by layer,
 * last layer first, each layer's input-gradient kernel then its weight-gradient kernel, and closes
 * a bucket of the gradients produced so far each time it reaches the runtime's bucket size
 * (st->bucket_bytes; CO_BUCKET_BYTES when none is said; the first bucket at st->first_bucket_bytes
 * where the runtime says it, PyTorch DDP's 1 MiB); a bucket's allreduce starts when its last kernel
 * is done and the previous bucket's allreduce has finished (one communication stream). On a free
 * network that is the recurrence
 *   f_k = max(f_{k-1}, r_k) + c_k,
 * r_k the bucket's ready time in the backward, c_k its allreduce (the chosen algorithm's closed
 * form); the communication left when the backward ends, f_K - r_end, is exposed. Under a
 * runtime with a background cycle (st->cycle_time_s, Horovod's HOROVOD_CYCLE_TIME) a bucket's
 * allreduce is launched at the first cycle at or after r_k, the cycles counted from the
 * iteration's start (the forward's F seconds before the backward), as the simulation's
 * TG_FLAG_CYCLE tasks wait (sim/engine/engine.c):
 *   f_k = max(f_{k-1}, ceil((F + r_k) / T) T - F) + c_k.
 * Under a runtime that hands every gradient over when the whole backward is done
 * (st->after_backward: TensorFlow's XLA cluster) every r_k is the backward's end. */
#include "analytic_int.h"

#include <math.h>

#include "collective.h"

double an__cycle_launch_s(double ready_s, double fwd_s, double period_s)
{
    if (period_s <= 0)
        return ready_s;
    return ceil((fwd_s + ready_s) / period_s) * period_s - fwd_s;
}

/* The forward's kernels of one rank, the time before its backward starts. */
static double forward_s(const wl_workload *wl, const kt_compute *kc, const st_strategy *st,
                        double batch)
{
    double b = batch / st->p, sum = 0;
    for (int l = 0; l < wl->n_layers; l++) {
        double fw_s = b * wl->layers[l].fw_s, bw_s;
        if (kc && an__layer_kernels_s(wl, kc, st, l, batch, &fw_s, &bw_s, NULL) != HS_OK)
            fw_s = b * wl->layers[l].fw_s; /* cannot happen, as below */
        sum += fw_s;
    }
    return sum;
}

double an__data_overlap_exposed_s(const wl_workload *wl, const kt_compute *kc,
                                  const st_strategy *st, double batch, const an_links *ln,
                                  double *comm_s)
{
    double b = batch / st->p, t_s = 0, f_s = 0, bucket = 0;
    double cap = st->bucket_bytes > 0 ? st->bucket_bytes : CO_BUCKET_BYTES;
    double first_cap = st->first_bucket_bytes > 0 ? st->first_bucket_bytes : cap;
    bool first = true; /* the first bucket is not closed yet */
    double period = st->cycle_time_s, fwd = period > 0 ? forward_s(wl, kc, st, batch) : 0;
    *comm_s = 0;
    for (int l = wl->n_layers - 1; l >= 0; l--) {
        const wl_layer *ly = &wl->layers[l];
        double bw_s = b * ly->bw_s, fw_s; /* its input- and weight-gradient kernels */
        if (kc && an__layer_kernels_s(wl, kc, st, l, batch, &fw_s, &bw_s, NULL) != HS_OK)
            bw_s = b * ly->bw_s; /* cannot happen: an_model timed the same kernels first */
        t_s += bw_s;
        if (ly->w_elems > 0)
            bucket += (double)ly->w_elems * st_gradient_bytes(&st->train, kc);
        /* a bucket closes when full, and the last at the first layer (weights or not) */
        if (bucket <= 0 || (bucket < (first ? first_cap : cap) && l > 0))
            continue;
        double c_s = an__allreduce_algo_s(st->allreduce, st->p, bucket, ln->ring,
                                          &ln->grad_across);
        double at = an__cycle_launch_s(t_s, fwd, period);
        f_s = (f_s > at ? f_s : at) + c_s;
        *comm_s += c_s;
        bucket = 0;
        first = false;
    }
    if (st->after_backward && *comm_s > 0) /* all launched at the end, one after the other */
        return an__cycle_launch_s(t_s, fwd, period) - t_s + *comm_s;
    return f_s > t_s ? f_s - t_s : 0.0;
}
