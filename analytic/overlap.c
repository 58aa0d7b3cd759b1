/* overlap.c: the backward of the built-in layer-wise strategies in the overlap order
 * (--overlap; PyTorch DDP's and Horovod's schedule), as a recurrence on a free network.
 *
 * The simulator's overlap order (sim/expand/expand_overlap.c) writes the backward layer by
 * layer, last layer first, on a rank's two streams: a layer's collective on its output
 * gradient (filter's, channel's, spatial's split point) on the communication stream, then its
 * input-gradient kernel on the compute stream, its halos after it; its weight-gradient kernel
 * waits in the list behind the next such collective (none below it: at once), so that it runs
 * while that collective does. The weight gradients fill buckets in the order they are
 * produced and a bucket closes each time it reaches the runtime's size (st->bucket_bytes;
 * CO_BUCKET_BYTES when none is said; the first at st->first_bucket_bytes where the runtime says
 * it, PyTorch DDP's 1 MiB), the last at the backward's end; a bucket's allreduces (inside the
 * group, then across the groups: an_grad_path) are posted after its last kernel on the
 * communication stream, where the next layer's collective queues behind them. Each stream runs
 * its tasks in order, so on a free network, with c the compute stream's end, f the
 * communication stream's and d the time the next layer's gradient is ready:
 *   collective a:  d = f = max(d, f) + a         kernel k after d:  c = max(c, d) + k
 *   bucket closed at c:  f = max(f, r) + g_k,    r = c,
 * g_k the bucket's allreduces (the chosen algorithm's closed forms). For data parallelism
 * (no collective, no halo) that is the recurrence f_k = max(f_{k-1}, r_k) + g_k over the
 * buckets' ready times r_k in the backward. Under a runtime with a background cycle
 * (st->cycle_time_s, Horovod's HOROVOD_CYCLE_TIME) a bucket's allreduce is launched at the
 * first cycle at or after r, the cycles counted from the iteration's start (the forward's
 * seconds before the backward), as the simulation's TG_FLAG_CYCLE tasks wait
 * (sim/engine/engine.c): r = ceil((F + c) / T) T - F. Under a runtime that hands every
 * gradient over when the whole backward is done (st->after_backward: TensorFlow's XLA
 * cluster) every bucket waits for the backward's last kernel. What is exposed is the
 * backward's end, max(c, f), past its kernels. */
#include "analytic_int.h"

#include <math.h>
#include <stdlib.h>

#include "collective.h"

double an__cycle_launch_s(double ready_s, double fwd_s, double period_s)
{
    if (period_s <= 0)
        return ready_s;
    return ceil((fwd_s + ready_s) / period_s) * period_s - fwd_s;
}

/* The recurrence's state, in seconds from the backward's start. */
typedef struct {
    const an_bwd_layer *ly; /* the layers' backward, priced (analytic.c) */
    const an_grad_path *gp; /* the ranks and links of a bucket's allreduces */
    const st_strategy *st;  /* its buckets, cycle and after_backward */
    double fwd_s;        /* the forward before the backward: the cycles' origin */
    double c_s, f_s;     /* the compute and the communication streams' ends */
    double idle_s;       /* what the compute stream waited for the gradient's collectives */
    int *deferred;       /* layers whose weight-gradient kernel waits behind a collective */
    double *after_s;     /* and when the gradient each needs was ready */
    int n_deferred;
    double bucket_bytes; /* the gradients since the last bucket closed */
    bool first_closed;   /* the first bucket closed: the others take st->bucket_bytes */
    double held_s;       /* st->after_backward: the closed buckets' allreduces, not launched */
    an_overlap *out;
} order;

/* A bucket's allreduces of `bytes` (inside the group, then across), summed into o->out. */
static double bucket_s(order *o, double bytes)
{
    const an_grad_path *gp = o->gp;
    double sum_s = 0;
    if (gp->n_group > 1) {
        double g_s = an__allreduce_algo_s(gp->algo, gp->n_group, bytes, gp->group,
                                          gp->group_layout);
        o->out->group_s += g_s;
        sum_s += g_s;
    }
    if (gp->n_across > 1) {
        double a_s = an__allreduce_algo_s(gp->algo, gp->n_across, bytes, gp->across,
                                          gp->across_layout);
        o->out->across_s += a_s;
        sum_s += a_s;
    }
    return sum_s;
}

/* Close the bucket filled so far: its allreduces follow the compute stream's last kernel, at
 * the cycle's next launch, behind what the communication stream holds; with after_backward
 * they wait for the backward's end. */
static void close_bucket(order *o)
{
    if (o->gp->n_group < 2 && o->gp->n_across < 2) { /* no allreduce (filter, channel): no
                                                      * launch to wait for either */
        o->bucket_bytes = 0;
        o->first_closed = true;
        return;
    }
    double g_s = bucket_s(o, o->bucket_bytes);
    if (o->st->after_backward) {
        o->held_s += g_s;
    } else {
        double at = an__cycle_launch_s(o->c_s, o->fwd_s, o->st->cycle_time_s);
        o->f_s = (o->f_s > at ? o->f_s : at) + g_s;
    }
    o->bucket_bytes = 0;
    o->first_closed = true;
}

/* A layer's gradients into the bucket, which closes when full. */
static void fill_bucket(order *o, int l)
{
    o->bucket_bytes += o->ly[l].grad_bytes;
    double cap = o->st->bucket_bytes > 0 ? o->st->bucket_bytes : CO_BUCKET_BYTES;
    if (!o->first_closed && o->st->first_bucket_bytes > 0)
        cap = o->st->first_bucket_bytes;
    if (o->bucket_bytes > 0 && o->bucket_bytes >= cap)
        close_bucket(o);
}

/* The deferred weight-gradient kernels, each after its gradient and the stream's last kernel,
 * and the buckets they fill. */
static void flush(order *o)
{
    for (int i = 0; i < o->n_deferred; i++) {
        int l = o->deferred[i];
        double start = o->c_s > o->after_s[i] ? o->c_s : o->after_s[i];
        o->c_s = start + o->ly[l].dw_s;
        fill_bucket(o, l);
    }
    o->n_deferred = 0;
}

/* A collective on the data path (an output gradient's, or a halo) ready at *d_s. */
static void collective(order *o, double *d_s, double seconds)
{
    double start = o->f_s > *d_s ? o->f_s : *d_s;
    o->f_s = *d_s = start + seconds;
}

/* Layer l's backward from the gradient ready at *d_s. */
static void layer(order *o, int l, bool dy_below, double *d_s)
{
    const an_bwd_layer *ly = &o->ly[l];
    if (ly->dy) {
        collective(o, d_s, ly->dy_s);
        flush(o); /* behind the collective just posted */
    }
    double start = o->c_s > *d_s ? o->c_s : *d_s;
    o->idle_s += start - o->c_s;
    if (!dy_below) { /* no collective left to hide its weight kernel behind (the last one
                      * flushed the others): both kernels at once, as the blocking model adds
                      * them */
        o->c_s = start + ly->both_s;
        *d_s = start + ly->bx_s;
        if (ly->has_weights)
            fill_bucket(o, l);
    } else {
        if (ly->has_weights) { /* its weight kernel waits for the next collective */
            o->deferred[o->n_deferred] = l;
            o->after_s[o->n_deferred++] = *d_s;
        }
        o->c_s = start + ly->bx_s;
        *d_s = o->c_s;
    }
    if (ly->halo_s > 0)
        collective(o, d_s, ly->halo_s);
}

int an__overlap_backward(const an_bwd_layer *ly, int n, const an_grad_path *gp,
                         const st_strategy *st, double fwd_s, an_overlap *out, char *err)
{
    *out = (an_overlap){0};
    order o = {.ly = ly, .gp = gp, .st = st, .fwd_s = fwd_s, .out = out};
    o.deferred = malloc((size_t)(n > 0 ? n : 1) * sizeof *o.deferred);
    o.after_s = malloc((size_t)(n > 0 ? n : 1) * sizeof *o.after_s);
    if (!o.deferred || !o.after_s) {
        free(o.deferred);
        free(o.after_s);
        return hs_fail(err, HS_EINTERNAL, "out of memory for the backward of %d layers", n);
    }
    int lowest_dy = n; /* a layer above it has a collective below it */
    for (int l = n - 1; l >= 0; l--)
        if (ly[l].dy)
            lowest_dy = l;
    double d_s = 0;
    for (int l = n - 1; l >= 0; l--)
        layer(&o, l, l > lowest_dy, &d_s);
    flush(&o);
    if (o.bucket_bytes > 0)
        close_bucket(&o);
    free(o.deferred);
    free(o.after_s);
    if (st->after_backward && o.held_s > 0) { /* all launched at the end, one after another */
        double at = an__cycle_launch_s(o.c_s, fwd_s, st->cycle_time_s);
        at = o.f_s > at ? o.f_s : at;
        out->exposed_s = o.idle_s + (at - o.c_s + o.held_s);
    } else {
        out->exposed_s = o.idle_s + (o.f_s > o.c_s ? o.f_s - o.c_s : 0.0);
    }
    return HS_OK;
}
