/* expand_overlap.c: the backward of the built-in layer-wise strategies in the overlap order
 * (--overlap): the weight-gradient kernels deferred behind the collectives on the data path, the
 * gradients reduced in buckets as the backward fills them (PyTorch DDP's), each bucket's
 * allreduces inside the group, then across. The forward, the blocking order and the plans they
 * share are expand.c's. */
#include "expand_int.h"

/* The gradient allreduces of `bytes` (inside the group, then across), after task `producer`;
 * returns the last one, or producer when there is none. */
static int ex_gradient(ex_cursor *c, const ex_plan *plan, const ex_rank_groups *grp,
                       double bytes, int producer)
{
    int grad = producer;
    double whole = plan->grad_across_bytes > 0 ? plan->grad_across_bytes : plan->grad_model_bytes;
    double share = whole > 0 ? bytes / whole : 0.0;
    uint8_t flags = plan->bucket_flags; /* the first allreduce waits for the cycle */
    if (plan->grad_model_bytes > 0 && grp->model >= 0) {
        grad = ex_comm(c, TG_ALLREDUCE, TG_GRADIENT, -1, grp->model,
                       plan->grad_model_bytes * share, flags, grad);
        flags = 0;
    }
    if (plan->grad_across_bytes > 0 && grp->across >= 0)
        grad = ex_comm(c, TG_ALLREDUCE, TG_GRADIENT, -1, grp->across,
                       plan->grad_across_bytes * share, flags, grad);
    return grad;
}

/* Close the bucket filled so far: its allreduce follows its last kernel, or with
 * plan->after_backward waits, held, for the backward's end (ex__write_backward_overlap). */
static void ex_close(ex_backward *b)
{
    if (b->plan->after_backward)
        b->held[b->n_held++] = b->bucket_bytes;
    else
        b->grad = ex_gradient(b->c, b->plan, b->grp, b->bucket_bytes, b->bucket_end);
    b->bucket_bytes = 0;
}

/* Write the deferred weight-gradient kernels and the buckets they fill: a bucket's allreduce
 * follows its last kernel (`all`: the rest of the gradients too, however few). */
static void ex_flush(ex_backward *b, bool all)
{
    for (int i = 0; i < b->n_deferred; i++) {
        const ex_layer_plan *lp = &b->plan->layers[b->deferred[i]];
        b->bucket_end = ex_exec(b->c, TG_BACKWARD_WEIGHT, b->deferred[i], lp->bw_s,
                                b->deferred_after[i]);
        b->bucket_bytes += lp->grad_bytes;
        double cap = b->first_closed ? b->plan->bucket_bytes : b->plan->first_bucket_bytes;
        if (b->bucket_bytes >= cap) {
            ex_close(b);
            b->first_closed = true;
        }
    }
    b->n_deferred = 0;
    if (all && b->bucket_bytes > 0)
        ex_close(b);
}

/* The overlap order's backward: a layer's weight-gradient kernel waits, in the list, until the
 * next collective on the data path has been posted, so that the compute stream runs it while
 * the collective runs (Zero Bubble's split of B and W, Qi et al. 2023); the weight gradients are
 * reduced in buckets of plan->bucket_bytes, the first of plan->first_bucket_bytes, in the order
 * they are produced (PyTorch DDP's reverse-order buckets), each as soon as its kernels are
 * done, or with plan->after_backward all when the backward's last kernel is. Returns the last
 * allreduce. */
int ex__write_backward_overlap(ex_backward *b, int ready)
{
    const ex_plan *plan = b->plan;
    const ex_rank_groups *grp = b->grp;
    int last_bx = ready; /* the backward's last input-gradient kernel */
    for (int l = plan->n_layers - 1; l >= 0; l--) {
        const ex_layer_plan *lp = &plan->layers[l];
        if (lp->dy_op != EX_NO_OP && grp->model >= 0) {
            ready = ex_comm(b->c, lp->dy_op, TG_BACKWARD_INPUT, l, grp->model, lp->dy_bytes,
                            lp->act_flags, ready);
            ex_flush(b, false); /* behind the collective just posted */
        }
        int bx = ex_exec(b->c, TG_BACKWARD_INPUT, l, lp->bx_s, ready);
        if (lp->has_weights) {
            b->deferred[b->n_deferred] = l;
            b->deferred_after[b->n_deferred++] = ready;
        }
        if (!lp->dy_below || grp->model < 0)
            ex_flush(b, false); /* no collective left to hide it behind */
        ready = last_bx = bx;
        if (lp->halo && (grp->lo >= 0 || grp->hi >= 0))
            ready = ex__halo(b->c, grp, TG_BACKWARD_INPUT, l, lp->halo_bytes, bx);
    }
    ex_flush(b, true);
    /* the backward's last kernel, not a halo after it: the held allreduces wait for the GPU's
     * work (a cycle counts from a kernel's end, the only end the engine records) */
    int end = b->bucket_end > last_bx ? b->bucket_end : last_bx;
    for (int i = 0; i < b->n_held; i++) /* the compute stream runs in list order */
        b->grad = ex_gradient(b->c, plan, grp, b->held[i], end);
    return b->grad;
}
