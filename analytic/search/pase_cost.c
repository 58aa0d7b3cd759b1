/* pase_cost.c: PaSE's vertex and edge costs (pase_cost.h), formula by formula as PASE-MODEL.md
 * and the research notes state them (nn_ops.py: GetGemmCompCosts, GetGemmCommCosts,
 * ComputeGhostCommCosts, Norm, Elementwise, ReduceMean, SoftmaxCrossEntropy, GetEdgeCosts).
 *
 * Everything is float64, with per-device extents as real quotients (a pool split 3 ways over 55
 * input rows holds 18.33 of them), and the operations in the code's order, so that the totals
 * PaSE prints come out digit for digit. */
#include "pase_cost.h"

double pase_ratio(double tflops, double gbytes_per_s)
{
    return tflops * 1000.0 / (gbytes_per_s / 8.0);
}

sr_options pase_options(const wl_workload *wl, int devices)
{
    sr_options o = {.devices = devices, .cutoff = PASE_CUTOFF, .conv_spatial = false,
                    .kernel_splits = true};
    if (sr_is_sequence(wl))
        o.cutoff = PASE_SEQUENCE_CUTOFF;
    return o;
}

int pase_check(const sr_graph *g, char *err)
{
    if (g->n_spatial != 2)
        return hs_fail(err, HS_EINPUT, "--cost-model pase: PaSE's model has no %d-D operations "
                       "(2-D images only)", g->n_spatial);
    return HS_OK;
}

/* AR(w, q): ring all-reduce of w words per device over q devices. */
static double all_reduce(double r, double words, double procs)
{
    double chunks = words / procs;
    double steps = 2.0 * (procs - 1.0);
    return r * (chunks * steps);
}

/* A GEMM of M x K by K x N split (cM, cN, cK) ways, with pw point-wise ops on its output:
 * 3 GEMMs (forward, two gradients) and the three all-reduces a split reduction needs. */
static double gemm(double r, const double dom[3], const double cfg[3], int pw)
{
    double m = dom[0] / cfg[0], n = dom[1] / cfg[1], k = dom[2] / cfg[2];
    double comp = m * n * k * 3.0;
    if (pw > 0)
        comp += (3.0 * pw) * (m * n);
    double comm = all_reduce(r, m * n, cfg[2]); /* forward partial sums when K is split */
    comm += all_reduce(r, m * k, cfg[1]);       /* input gradient when N is split */
    comm += all_reduce(r, n * k, cfg[0]);       /* weight gradient when M (batch) is split */
    return comp + comm;
}

static double conv_cost(double r, const sr_vertex *v, const sr_config *c)
{
    const sr_config *x = &v->dom;
    double dom[3] = {(double)(x->b * x->h * x->w * x->d), (double)x->f,
                     (double)(x->c * x->kh * x->kw)};
    double cfg[3] = {(double)(c->b * c->h * c->w * c->d), (double)c->f,
                     (double)(c->c * c->kh * c->kw)};
    return gemm(r, dom, cfg, v->pw);
}

/* An fc, also one at every position of a sequence (M = b s), and an embedding, which PaSE
 * prices as the product of the one-hot tokens (b s x v) by the table (v x d). */
static double fc_cost(double r, const sr_vertex *v, const sr_config *c)
{
    double dom[3] = {(double)(v->dom.b * v->dom.w), (double)v->dom.f, (double)v->dom.c};
    double cfg[3] = {(double)(c->b * c->w), (double)c->f, (double)c->c};
    return gemm(r, dom, cfg, v->pw);
}

/* PaSE's LSTM: per stacked layer one GEMM of (s b) x (inputs + units) by 4 units (its four
 * gates; 3 point-wise ops on them), then, each step of each layer, the output (b, units)
 * brought to the layout the next step reads it in (b, inputs), once (nn_ops.LSTM). */
static double lstm_cost(double r, const sr_vertex *v, const sr_config *c)
{
    const sr_config *x = &v->dom;
    double dom[3] = {(double)(x->w * x->b), 4.0 * (double)x->f, (double)(x->c + x->f)};
    double cfg[3] = {(double)(c->w * c->b), (double)c->f, (double)c->c};
    double cost = ((double)x->d / (double)c->d) * gemm(r, dom, cfg, 3);
    double b = (double)x->b / (double)c->b;
    double out_n = (double)x->f / (double)c->f, in_k = (double)x->c / (double)c->c;
    double need = b * in_k;
    double held = c->b * c->c > c->b * c->f ? 0.0 : b * (out_n < in_k ? out_n : in_k);
    double words = need - held > 0.0 ? need - held : 0.0;
    return cost + (double)(x->d * x->w) * (r * words);
}

/* The per-device extents of a tensor-shaped op, (b, c, h, w, d) truncated to its axes. */
static int per_device(const sr_vertex *v, const sr_config *c, double *e)
{
    const sr_config *x = &v->dom;
    e[0] = (double)x->b / (double)c->b;
    e[1] = (double)x->c / (double)c->c;
    e[2] = (double)x->h / (double)c->h;
    e[3] = (double)x->w / (double)c->w;
    e[4] = (double)x->d / (double)c->d;
    return v->n_axes;
}

static double product(const double *e, int n)
{
    double p = 1.0;
    for (int i = 0; i < n; i++)
        p *= e[i];
    return p;
}

/* Pooling: one operation per output element, plus the halo rows and columns of the input a
 * spatial split needs from its neighbours. */
static double pool_cost(double r, const sr_vertex *v, const sr_config *c)
{
    double e[SR_MAX_AXES];
    double cost = product(e, per_device(v, c, e));
    double h = (double)v->in_h / (double)c->h, w = (double)v->in_w / (double)c->w;
    double h_ghost = h + (c->h > 1 ? (double)v->win_h : 0.0);
    double w_ghost = w + (c->w > 1 ? (double)v->win_w : 0.0);
    double ghost = h_ghost * w_ghost - h * w;
    ghost *= e[0];
    ghost *= e[1];
    return cost + r * ghost;
}

/* Batch normalisation: 16 operations an element, the statistics' all-reduces over the batch
 * split (4: two forward, two backward) and the scale/bias vectors' over the others. */
static double bnorm_cost(double r, const sr_vertex *v, const sr_config *c)
{
    double e[SR_MAX_AXES];
    double elems = product(e, per_device(v, c, e));
    double others = (double)(c->c * c->h * c->w * c->d);
    double cost = 16.0 * elems;
    cost += 4.0 * all_reduce(r, elems / e[0], (double)c->b);
    cost += 4.0 * all_reduce(r, e[0], others);
    return cost;
}

/* Softmax with cross-entropy over (b, classes), or (b, classes, 1, positions) a prediction a
 * position: exponent (3) and sum per element, two per prediction, and when the classes are
 * split one word per prediction each way. */
static double softmax_cost(double r, const sr_vertex *v, const sr_config *c)
{
    double e[SR_MAX_AXES];
    int n = per_device(v, c, e);
    double elems = product(e, n);
    double samples = e[0];
    for (int i = 2; i < n; i++)
        samples *= e[i];
    double cost = (3.0 + 1.0) * elems;
    cost += samples;
    cost += samples;
    if (c->c > 1)
        cost += r * (2.0 * samples);
    return cost;
}

/* Layer normalisation over the channels c of (b, c, 1, w) (PaSE's Norm with axis -1): as batch
 * normalisation with the roles of the axes swapped. */
static double lnorm_cost(double r, const sr_vertex *v, const sr_config *c)
{
    double e[SR_MAX_AXES];
    double elems = product(e, per_device(v, c, e));
    double cost = 16.0 * elems;
    cost += 4.0 * all_reduce(r, elems / e[1], (double)c->c);
    cost += 4.0 * all_reduce(r, e[1], (double)(c->b * c->h * c->w * c->d));
    return cost;
}

/* PaSE's Einsum: the batch dims' product times a GEMM over the products of the m, n and
 * reduced dims (nn_ops.Einsum, ComputeGemmCosts). */
static double einsum_cost(double r, const sr_vertex *v, const sr_config *c)
{
    double dom[3] = {1.0, 1.0, 1.0}, cfg[3] = {1.0, 1.0, 1.0}, batches = 1.0;
    int64_t d[3] = {1, 1, 1}, k[3] = {1, 1, 1};
    const unsigned sets[3] = {v->m_dims, v->n_dims, v->k_dims};
    for (int i = 0; i < v->n_slots; i++) {
        int64_t x = sr_slot(&v->dom, i), s = sr_slot(c, i);
        if (v->batch_dims & (1u << i))
            batches *= (double)x / (double)s;
        for (int j = 0; j < 3; j++)
            if (sets[j] & (1u << i))
                d[j] *= x, k[j] *= s;
    }
    for (int j = 0; j < 3; j++)
        dom[j] = (double)d[j], cfg[j] = (double)k[j];
    return batches * gemm(r, dom, cfg, v->pw);
}

/* PaSE's Softmax over one slot (attention's scores): an exponent and a sum an element, a
 * product an element per element of the row backward, and three all-reduces when the row is
 * split (nn_ops.Softmax). */
static double attn_cost(double r, const sr_vertex *v, const sr_config *c)
{
    double elems = 1.0, rows = 1.0, row = (double)sr_slot(&v->dom, v->axis);
    for (int i = 0; i < v->n_slots; i++) {
        double e = (double)sr_slot(&v->dom, i) / (double)sr_slot(c, i);
        elems *= e;
        if (i != v->axis)
            rows *= e;
    }
    double q = (double)sr_slot(c, v->axis);
    double cost = 0.0;
    cost += (3.0 + 1.0) * elems;
    cost += elems * row;
    cost += all_reduce(r, rows, q);
    cost += all_reduce(r, rows * row, q);
    cost += all_reduce(r, rows, q);
    return cost;
}

static int vertex_cost(void *ctx, const sr_graph *g, int vi, const sr_config *c, double *cost,
                       char *err)
{
    double r = ((const pase_model *)ctx)->r, e[SR_MAX_AXES];
    const sr_vertex *v = &g->v[vi];
    switch (v->op) {
    case SR_CONV: *cost = conv_cost(r, v, c); break;
    case SR_FC:
    case SR_EMBED: *cost = fc_cost(r, v, c); break;
    case SR_LSTM: *cost = lstm_cost(r, v, c); break;
    case SR_LNORM: *cost = lnorm_cost(r, v, c); break;
    case SR_EINSUM: *cost = einsum_cost(r, v, c); break;
    case SR_ATTN: *cost = attn_cost(r, v, c); break;
    case SR_POOL: *cost = pool_cost(r, v, c); break;
    case SR_BNORM: *cost = bnorm_cost(r, v, c); break;
    case SR_ADD: *cost = (1.0 + v->pw) * product(e, per_device(v, c, e)); break;
    case SR_MEAN:
        *cost = all_reduce(r, product(e, per_device(v, c, e)), (double)(c->h * c->w * c->d));
        break;
    case SR_SOFTMAX: *cost = softmax_cost(r, v, c); break;
    case SR_CONCAT:
    case SR_STACK:
    case SR_UNSTACK:
    case SR_RAVEL:
    case SR_UNRAVEL: *cost = 0.0; break;
    default: return hs_fail(err, HS_EINTERNAL, "pase: no cost for vertex %s", v->name);
    }
    return HS_OK;
}

/* Redistribution: per device, the part of the consumer's slice the producer's slice lacks
 * (assumed aligned at best; none when the consumer is split over more devices than the
 * producer's output), forward and backward. */
static int edge_cost(void *ctx, const sr_graph *g, int ei, const sr_config *cu,
                     const sr_config *cv, double *cost, char *err)
{
    (void)err;
    const sr_edge *e = &g->e[ei];
    int64_t su[SR_MAX_AXES], sv[SR_MAX_AXES];
    sr_out_split(&g->v[e->u], cu, su);
    sr_in_split(&g->v[e->v], e->input, cv, sv);
    double pu = 1.0, pv = 1.0, need = 1.0, held = 1.0;
    for (int i = 0; i < e->n_axes; i++) {
        double s = (double)e->shape[i] / (double)su[i], d = (double)e->shape[i] / (double)sv[i];
        pu *= (double)su[i];
        pv *= (double)sv[i];
        need *= d;
        held *= d < s ? d : s;
    }
    if (pv > pu)
        held = 0.0;
    double words = need - held;
    if (words < 0.0)
        words = 0.0;
    *cost = ((const pase_model *)ctx)->r * (words * 2.0);
    return HS_OK;
}

/* The edge cost sees a configuration only through its split of the tensor (edge_cost). */
static int edge_key(void *ctx, const sr_graph *g, int ei, int side, const sr_config *c,
                    int64_t key[SR_EDGE_KEY_WORDS], char *err)
{
    (void)ctx, (void)err;
    const sr_edge *e = &g->e[ei];
    if (side == 0)
        sr_out_split(&g->v[e->u], c, key);
    else
        sr_in_split(&g->v[e->v], e->input, c, key);
    return HS_OK;
}

sr_costs pase_costs(const pase_model *model)
{
    sr_costs c = {.vertex = vertex_cost, .edge = edge_cost, .fits = NULL, .edge_key = edge_key,
                  .ctx = (void *)model};
    return c;
}
