/* search_configs.c: the candidate configurations of a vertex, and how a configuration lays out
 * the tensors the vertex reads and writes (search.h).
 *
 * The rules are PaSE's (GetConfigs, ConfigureReshape and each op's in/out tensor configs in
 * nn_ops.py): per dimension every divisor that leaves at least `cutoff` elements (not only
 * powers of two), [1] when none does; the cross product in the op's dimension order, kept when
 * it uses at most p devices (a layer may use fewer). The order is part of the result: the
 * search keeps the first of equal minima, and PaSE's AlexNet, ResNet-101 and Inception-v3
 * strategies are reproduced with candidates in this ascending order. */
#include "search.h"

#include "hs_grow.h"

#include <stddef.h>
#include <stdlib.h>

/* One dimension of an op's tuple: which field of sr_config, its extent, whether it may split. */
typedef struct {
    size_t field;
    int64_t extent;
    bool splittable;
} dim;

#define FIELD(name) offsetof(sr_config, name)

static int64_t *field_of(sr_config *c, size_t field)
{
    return (int64_t *)((char *)c + field);
}

static const size_t slot_fields[8] = {FIELD(b), FIELD(f), FIELD(c), FIELD(h),
                                      FIELD(w), FIELD(d), FIELD(kh), FIELD(kw)};

int64_t sr_slot(const sr_config *c, int i)
{
    return *field_of((sr_config *)c, slot_fields[i]);
}

static int tensor_dims(const sr_vertex *v, int n_axes, dim *d)
{
    if (v->n_slots > 0) { /* PaSE's attention ops: their slots in order */
        for (int i = 0; i < v->n_slots; i++)
            d[i] = (dim){slot_fields[i], sr_slot(&v->dom, i), true};
        return v->n_slots;
    }
    if (v->sequence) { /* (b, c, 1, w) in PaSE's order (b, w, c) */
        d[0] = (dim){FIELD(b), v->dom.b, true};
        d[1] = (dim){FIELD(w), v->dom.w, true};
        d[2] = (dim){FIELD(c), v->dom.c, true};
        return 3;
    }
    static const size_t fields[SR_MAX_AXES] = {FIELD(b), FIELD(c), FIELD(h), FIELD(w), FIELD(d)};
    sr_config dom = v->dom;
    for (int i = 0; i < n_axes; i++)
        d[i] = (dim){fields[i], *field_of(&dom, fields[i]), true};
    return n_axes;
}

/* The op's tuple, in PaSE's order for it; returns its length. */
static int op_dims(const sr_vertex *v, const sr_options *opt, dim *d)
{
    const sr_config *x = &v->dom;
    switch (v->op) {
    case SR_CONV: {
        int n = 0;
        d[n++] = (dim){FIELD(b), x->b, true};
        d[n++] = (dim){FIELD(c), x->c, true};
        d[n++] = (dim){FIELD(h), x->h, opt->conv_spatial};
        d[n++] = (dim){FIELD(w), x->w, opt->conv_spatial};
        if (v->n_axes == 5)
            d[n++] = (dim){FIELD(d), x->d, opt->conv_spatial};
        d[n++] = (dim){FIELD(kh), x->kh, opt->kernel_splits};
        d[n++] = (dim){FIELD(kw), x->kw, opt->kernel_splits};
        d[n++] = (dim){FIELD(f), x->f, true};
        return n;
    }
    case SR_FC:
    case SR_EMBED: /* PaSE's Einsum 'bsv,vd->bsd' (b, s, d, v), as an FC at every position */
        if (v->op == SR_FC && v->n_axes != 4) {
            d[0] = (dim){FIELD(b), x->b, true};
            d[1] = (dim){FIELD(f), x->f, true};
            d[2] = (dim){FIELD(c), x->c, true};
            return 3;
        }
        d[0] = (dim){FIELD(b), x->b, true};
        d[1] = (dim){FIELD(w), x->w, true};
        d[2] = (dim){FIELD(f), x->f, true};
        d[3] = (dim){FIELD(c), x->c, true};
        return 4;
    case SR_LSTM: /* PaSE's (layers, sequence, batch, units, inputs), the sequence unsplit */
        d[0] = (dim){FIELD(d), x->d, true};
        d[1] = (dim){FIELD(w), x->w, false};
        d[2] = (dim){FIELD(b), x->b, true};
        d[3] = (dim){FIELD(f), x->f, true};
        d[4] = (dim){FIELD(c), x->c, true};
        return 5;
    case SR_SOFTMAX: return tensor_dims(v, v->sequence ? 4 : 2, d);
    case SR_UNRAVEL: return tensor_dims(v, 2, d);
    default: return tensor_dims(v, v->n_axes, d);
    }
}

#define MAX_SPLITS 256 /* divisors per dimension; an extent of a CNN has far fewer */

/* The splits allowed along one dimension, ascending, into out; returns how many, or -1 when
 * the extent has more than MAX_SPLITS divisors on either side of its square root. */
static int splits_of(const dim *d, int64_t cutoff, int devices, int64_t *out)
{
    int64_t low[MAX_SPLITS], high[MAX_SPLITS]; /* divisors below and above the square root */
    int n_low = 0, n_high = 0, n = 0;
    for (int64_t e = 1; d->splittable && e * e <= d->extent; e++) {
        if (d->extent % e != 0)
            continue;
        if (n_low == MAX_SPLITS || n_high == MAX_SPLITS)
            return -1;
        low[n_low++] = e;
        if (e * e != d->extent)
            high[n_high++] = d->extent / e;
    }
    for (int i = 0; i < n_low + n_high; i++) {
        int64_t e = i < n_low ? low[i] : high[n_high - 1 - (i - n_low)];
        if (e <= devices && e * cutoff <= d->extent)
            out[n++] = e;
    }
    if (n == 0)
        out[n++] = 1;
    return n;
}

/* PaSE's "contiguous" reshape split: leading dimensions split whole, then one split partly,
 * then none. */
static bool contiguous(const dim *d, int n, const sr_config *c)
{
    int i = 0;
    while (i < n && *field_of((sr_config *)c, d[i].field) == d[i].extent)
        i++;
    for (i++; i < n; i++)
        if (*field_of((sr_config *)c, d[i].field) != 1)
            return false;
    return true;
}

/* The enumeration's state. */
typedef struct {
    sr_vertex *v;
    const dim *d;
    int n_dims;
    int64_t choices[8][2 * MAX_SPLITS]; /* per dimension, its allowed splits */
    int n_choices[8];
    int devices;
    size_t cap;               /* room in v->configs */
    char *err;
} enumeration;

static int keep(enumeration *en, const sr_config *c)
{
    sr_vertex *v = en->v;
    if ((v->op == SR_RAVEL || v->op == SR_UNRAVEL) && !contiguous(en->d, en->n_dims, c))
        return HS_OK;
    if (!hs_grow((void **)&v->configs, &en->cap, (size_t)v->n_configs + 1, sizeof *v->configs))
        return hs_fail(en->err, HS_EINTERNAL, "search: out of memory for configurations");
    v->configs[v->n_configs++] = *c;
    return HS_OK;
}

/* Dimensions k.. of every combination extending c (which uses `used` devices so far). */
static int enumerate(enumeration *en, int k, sr_config *c, int64_t used)
{
    if (k == en->n_dims)
        return keep(en, c);
    for (int i = 0; i < en->n_choices[k]; i++) {
        int64_t s = en->choices[k][i];
        if (used * s > en->devices)
            break; /* ascending: every later split uses more */
        *field_of(c, en->d[k].field) = s;
        int status = enumerate(en, k + 1, c, used * s);
        if (status != HS_OK)
            return status;
    }
    *field_of(c, en->d[k].field) = 1;
    return HS_OK;
}

int sr_configs(sr_vertex *v, const sr_options *opt, char *err)
{
    dim d[8];
    enumeration en = {.v = v, .d = d, .devices = opt->devices, .err = err};
    en.n_dims = op_dims(v, opt, d);
    for (int k = 0; k < en.n_dims; k++)
        if ((en.n_choices[k] = splits_of(&d[k], opt->cutoff, opt->devices, en.choices[k])) < 0)
            return hs_fail(err, HS_EINPUT, "search: vertex %s: an extent of %lld has more than "
                           "%d divisors", v->name, (long long)d[k].extent, MAX_SPLITS);
    free(v->configs);
    v->configs = NULL;
    v->n_configs = 0;
    sr_config c = {1, 1, 1, 1, 1, 1, 1, 1};
    int status = enumerate(&en, 0, &c, 1);
    if (status == HS_OK && v->n_configs == 0) /* cannot happen: all ones always qualifies */
        status = hs_fail(err, HS_EINTERNAL, "search: vertex %s has no configuration", v->name);
    return status;
}

int sr_tuple(const sr_vertex *v, const sr_config *c, int64_t t[8])
{
    dim d[8];
    sr_options any = {.conv_spatial = true, .kernel_splits = true};
    int n = op_dims(v, &any, d);
    for (int i = 0; i < n; i++)
        t[i] = *field_of((sr_config *)c, d[i].field);
    return n;
}

int64_t sr_devices(const sr_config *c)
{
    return c->b * c->f * c->c * c->h * c->w * c->d * c->kh * c->kw;
}

/* c's splits of a tensor with the op's axes (b, c, h, w, d), first n. */
static void tensor_split(const sr_config *c, int64_t channel, int n, int64_t *split)
{
    const int64_t all[SR_MAX_AXES] = {c->b, channel, c->h, c->w, c->d};
    for (int i = 0; i < SR_MAX_AXES; i++)
        split[i] = i < n ? all[i] : 1;
}

/* A tensor's splits through a slot map. */
static void mapped_split(const sr_config *c, const int8_t *map, int64_t *split)
{
    for (int i = 0; i < SR_MAX_AXES; i++)
        split[i] = map[i] >= 0 ? sr_slot(c, map[i]) : 1;
}

void sr_in_split(const sr_vertex *v, int input, const sr_config *c, int64_t split[SR_MAX_AXES])
{
    if (v->n_slots > 0) {
        mapped_split(c, v->in_map[input < 2 ? input : 2], split);
        return;
    }
    /* every input of an add or concat is split alike (PaSE) */
    switch (v->op) {
    case SR_FC:
    case SR_SOFTMAX: tensor_split(c, c->c, v->n_axes, split); break;
    case SR_UNRAVEL: tensor_split(c, 1, 0, split); split[0] = sr_devices(c); break;
    default: tensor_split(c, c->c, v->n_axes, split); break;
    }
}

void sr_out_split(const sr_vertex *v, const sr_config *c, int64_t split[SR_MAX_AXES])
{
    if (v->n_slots > 0) {
        mapped_split(c, v->out_map, split);
        return;
    }
    switch (v->op) {
    case SR_CONV:
    case SR_FC:
    case SR_EMBED:
    case SR_LSTM: tensor_split(c, c->f, v->n_axes, split); break;
    case SR_SOFTMAX: tensor_split(c, c->c, v->n_axes, split); break;
    case SR_MEAN:
    case SR_UNRAVEL: tensor_split(c, c->c, 2, split); break;
    case SR_RAVEL: tensor_split(c, 1, 0, split); split[0] = sr_devices(c); break;
    default: tensor_split(c, c->c, v->n_axes, split); break;
    }
}
