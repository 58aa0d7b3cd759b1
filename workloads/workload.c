/* workload.c: what every workload format shares (workload_load.c dispatches to a reader).
 *
 * The interesting part is wl__finish(): a workload file carries one measured number, the
 * forward+backward seconds of one sample on one GPU, and the models need it per layer. Like
 * the ParaDL oracle we spread it over layers in proportion to a FLOP estimate per layer, and
 * we reproduce the oracle's numbers exactly (tests/test_workload.c checks them against its
 * logs), so that analytic results can be compared with the oracle's line by line. */
#define _POSIX_C_SOURCE 200809L
#include "workload_internal.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_grow.h"

/* ------------------------------------------------------------------ small shared helpers */

char *wl__trim(char *s)
{
    while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')
        s++;
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r' || s[n - 1] == '\n'))
        s[--n] = '\0';
    return s;
}

int wl__parse_dims(const char *text, int64_t *dims, int max_dims)
{
    const char *p = text;
    int n = 0;
    while (*p == ' ' || *p == '\t')
        p++;
    for (;;) {
        if (!isdigit((unsigned char)*p) || n == max_dims)
            return -1;
        errno = 0;
        char *end;
        long long v = strtoll(p, &end, 10);
        if (errno == ERANGE)
            return -1;
        dims[n++] = v;
        p = end;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p == '\0')
            return n;
        if (*p != 'x')
            return -1;
        p++;
        while (*p == ' ' || *p == '\t')
            p++;
    }
}

int wl__parse_shape(const char *text, wl_shape *shape)
{
    int64_t d[1 + WL_MAX_SPATIAL];
    int n = wl__parse_dims(text, d, 1 + WL_MAX_SPATIAL);
    if (n < 3) /* channels and at least two extents */
        return -1;
    memset(shape, 0, sizeof *shape);
    shape->channels = d[0];
    shape->n_spatial = n - 1;
    for (int i = 0; i < WL_MAX_SPATIAL; i++)
        shape->spatial[i] = i < n - 1 ? d[1 + i] : 1;
    int64_t elems;
    for (int i = 0; i < n; i++)
        if (d[i] <= 0)
            return -1;
    return wl__dims_product(d, n, &elems); /* a tensor of more than WL_MAX_ELEMS: refused */
}

int wl__dims_product(const int64_t *dims, int n, int64_t *out)
{
    int64_t p = 1;
    for (int i = 0; i < n; i++) {
        if (dims[i] > 0 && p > WL_MAX_ELEMS / dims[i])
            return -1;
        p *= dims[i];
    }
    *out = p;
    return 0;
}

int64_t wl__shape_elems(const wl_shape *shape)
{
    int64_t n = shape->channels;
    for (int i = 0; i < shape->n_spatial; i++)
        n *= shape->spatial[i];
    return n;
}

int wl__shape_equal(const wl_shape *a, const wl_shape *b)
{
    if (a->channels != b->channels || a->n_spatial != b->n_spatial)
        return 0;
    for (int i = 0; i < a->n_spatial; i++)
        if (a->spatial[i] != b->spatial[i])
            return 0;
    return 1;
}

const char *wl__shape_str(const wl_shape *shape, char *buf, size_t len)
{
    int used = snprintf(buf, len, "%lld", (long long)shape->channels);
    for (int i = 0; i < shape->n_spatial && used > 0 && (size_t)used < len; i++)
        used += snprintf(buf + used, len - used, "x%lld", (long long)shape->spatial[i]);
    return buf;
}

wl_layer *wl__add_layer(wl_workload *wl, size_t *capacity)
{
    if (!hs_grow((void **)&wl->layers, capacity, (size_t)wl->n_layers + 1, sizeof *wl->layers))
        return NULL;
    wl_layer *l = &wl->layers[wl->n_layers++];
    memset(l, 0, sizeof *l);
    l->stride = 1;
    l->groups = 1;
    return l;
}

/* ------------------------------------------------------------------ calibration spread */

/* Forward FLOPs of one sample, as the ParaDL oracle estimates them. Pooling is the oracle's
 * own formula: although its files write a pool's weights as 0x0xKxK, it reads C and F as the
 * input and output channel counts, so a pool costs C*F*prod(K)*prod(Y). Layer types the oracle
 * has no formula for (dropout, softmax, LRN, concat) get 0: their cost is part of the measured
 * total anyway, they just take no share of it. A transposed convolution (not in ParaDL) is
 * counted as the convolution it is the input gradient of: the same products, at its input. */
static double layer_flops(const wl_layer *l)
{
    double kernel = 1, y_spatial = 1, x_spatial = 1;
    for (int i = 0; i < l->y.n_spatial; i++) {
        kernel *= (double)l->w_kernel[i];
        y_spatial *= (double)l->y.spatial[i];
        x_spatial *= (double)l->x.spatial[i];
    }
    switch (l->type) {
    case WL_CONV: /* each output channel sees C/groups inputs */
        return 2.0 * (double)l->w_in * (double)l->w_out * kernel * y_spatial /
               (double)(l->groups > 1 ? l->groups : 1);
    case WL_DECONV: /* each input element meets every output channel's window once */
        return 2.0 * (double)l->w_in * (double)l->w_out * kernel * x_spatial;
    case WL_POOL:
        return (double)l->x.channels * (double)l->y.channels * kernel * y_spatial;
    case WL_RELU:
    case WL_ADD:
    case WL_SIGMOID: /* ParaDL has no formula for these; element-wise as its relu and add */
    case WL_SILU:
    case WL_HARDSWISH:
    case WL_HARDSIGMOID:
    case WL_TANH:
    case WL_GELU:
    case WL_MUL:
        return (double)l->y_elems;
    case WL_BNORM:
    case WL_LAYERNORM: /* statistics and a normalisation, as batch normalisation */
        return 4.0 * (double)l->x_elems;
    case WL_MATMUL:
        return 2.0 * (double)l->mm_products * (double)l->mm_m * (double)l->mm_n *
               (double)l->mm_k;
    case WL_FC:
        return (double)l->w_elems;
    case WL_LSTM: /* every weight is one multiply-add (2 FLOPs, as conv) a position */
        return 2.0 * (double)l->w_elems * y_spatial;
    default: /* an embedding gathers rows: no arithmetic */
        return 0.0;
    }
}

/* A layer's share of the per-sample time: forward once, then the two gradients (input and
 * weights) each about a forward, which the oracle writes as 2*flops + |w|. */
static double layer_weight(const wl_layer *l)
{
    return 2.0 * l->flops + (double)l->w_elems;
}

/* The oracle keeps the output of ReLU and batch normalisation in place (they overwrite their
 * input), so its |x| and |y| totals, which size the activation memory, leave them out; a
 * reshape is a view of its input, no memory of its own. */
static int counts_activations(wl_type type)
{
    return type != WL_RELU && type != WL_BNORM && type != WL_RESHAPE;
}

int wl__finish(wl_workload *wl, const double *layer_time_s, char *err)
{
    double total_weight = 0, measured_s = 0;
    wl->x_total = wl->y_total = wl->w_total = 0;
    for (int i = 0; i < wl->n_layers; i++) {
        wl_layer *l = &wl->layers[i];
        l->x_elems = wl__shape_elems(&l->x);
        l->y_elems = wl__shape_elems(&l->y);
        l->flops = layer_flops(l);
        total_weight += layer_weight(l);
        if (counts_activations(l->type)) {
            wl->x_total += l->x_elems;
            wl->y_total += l->y_elems;
        }
        wl->w_total += l->w_elems;
        if (layer_time_s)
            measured_s += layer_time_s[i];
    }
    wl->layer_times = layer_time_s != NULL;
    if (layer_time_s)
        wl->sample_time_s = measured_s;
    else if (wl->sample_time_s > 0 && total_weight <= 0)
        return hs_fail(err, HS_EINPUT,
                       "%s: no layer has a FLOP estimate to spread the measured %g s over",
                       wl->path, wl->sample_time_s);

    for (int i = 0; i < wl->n_layers; i++) {
        wl_layer *l = &wl->layers[i];
        double t = layer_time_s ? layer_time_s[i]
                                : wl->sample_time_s * layer_weight(l) / total_weight;
        /* A layer with weights runs three passes of about equal cost (forward, input gradient,
         * weight gradient); one without runs two (forward, input gradient). */
        double fw_share = l->w_elems > 0 ? 1.0 / 3.0 : 0.5;
        l->fw_s = t * fw_share;
        l->bw_s = t - l->fw_s;
    }
    return HS_OK;
}

/* ------------------------------------------------------------------ public entry points */

void wl_free(wl_workload *wl)
{
    if (!wl)
        return;
    free(wl->layers);
    memset(wl, 0, sizeof *wl);
}

const char *wl_type_name(wl_type type)
{
    static const char *const names[WL_TYPE_COUNT] = {
        [WL_CONV] = "conv",       [WL_POOL] = "pool",       [WL_RELU] = "relu",
        [WL_BNORM] = "bnorm",     [WL_ADD] = "add",         [WL_FC] = "fc",
        [WL_DROPOUT] = "dropout", [WL_SOFTMAX] = "softmax", [WL_LRN] = "lrn",
        [WL_CONCAT] = "concat",   [WL_SIGMOID] = "sigmoid", [WL_SILU] = "silu",
        [WL_HARDSWISH] = "hardswish", [WL_HARDSIGMOID] = "hardsigmoid", [WL_GELU] = "gelu",
        [WL_MUL] = "mul",         [WL_LAYERNORM] = "layernorm", [WL_MATMUL] = "matmul",
        [WL_RESHAPE] = "reshape", [WL_MOVE] = "move",         [WL_TANH] = "tanh",
        [WL_EMBED] = "embed",     [WL_LSTM] = "lstm",         [WL_DECONV] = "deconv",
        [WL_UPSAMPLE] = "upsample",
    };
    return (unsigned)type < WL_TYPE_COUNT ? names[type] : "?";
}

const char *wl_default_dir(void)
{
    /* The one buffer here is per thread and rewritten on every call, so that a changed
     * HYBRIDSIM_HOME is honoured and no state survives between calls in any useful sense. */
    static _Thread_local char dir[1024];
    const char *home = getenv("HYBRIDSIM_HOME");
    if (!home || !*home)
        return HYBRIDSIM_SOURCE_DIR "/workloads";
    int n = snprintf(dir, sizeof dir, "%s/workloads", home);
    return n > 0 && (size_t)n < sizeof dir ? dir : HYBRIDSIM_SOURCE_DIR "/workloads";
}

int wl_input_of(const wl_workload *wl, int i, int k)
{
    const wl_layer *l = &wl->layers[i];
    return l->n_inputs == 0 ? i - 1 : l->inputs[k];
}

int wl_n_inputs(const wl_layer *l) { return l->n_inputs > 0 ? l->n_inputs : 1; }

bool wl_input_resized(const wl_layer *consumer, const wl_layer *producer)
{
    return (consumer->type == WL_ADD || consumer->type == WL_MUL) &&
           (producer->y.channels != consumer->x.channels ||
            producer->y_elems != consumer->x_elems);
}

bool wl_is_activation(wl_type type)
{
    return type == WL_RELU || type == WL_SIGMOID || type == WL_SILU || type == WL_HARDSWISH ||
           type == WL_HARDSIGMOID || type == WL_GELU || type == WL_TANH;
}

bool wl_reshapes(wl_type type)
{
    return type == WL_MATMUL || type == WL_RESHAPE || type == WL_MOVE || type == WL_UPSAMPLE;
}
