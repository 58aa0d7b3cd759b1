/* workload_xml.c: hybridsim's own workload format (workloads/workload.dtd, README.md).
 *
 * Reading happens in three steps, each with "file:line: what is wrong" on failure:
 *   1. libxml2 parses the file (well-formedness, with line numbers; xml_doc.h);
 *   2. the document is validated against workload.dtd from the workloads folder, whatever
 *      DOCTYPE the file declares (xml_doc.h): element structure, attribute names, layer types,
 *      unique ids and inputs that name existing ids are all the DTD's business;
 *   3. this file checks the meaning: numbers and shapes parse, a layer's input shape is the
 *      output of the layers feeding it, convolution and pooling extents follow from kernel,
 *      stride and padding, inputs are earlier layers, the calibration is complete. */
#define _POSIX_C_SOURCE 200809L
#include "workload_internal.h"
#include "xml_doc.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#define ATTR_LEN 512 /* longest attribute value we accept (inputs lists are the longest) */

/* State of one file being read. */
typedef struct {
    wl_workload *wl;
    const char *path;
    char (*ids)[WL_NAME_LEN];   /* id of each layer read so far, to resolve inputs */
    int capacity;               /* allocated layers (wl->layers and ids) */
    double *time_s;             /* per-layer measured seconds, when the file gives them */
    int n_timed;                /* layers carrying time_s */
    int has_sample_time;        /* the calibration carries sample_time_s */
    char *err;
} xml_reader;

/* Report an error at the line of `node`. */
static int fail_at(const xml_reader *rd, const xmlNode *node, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail_at(const xml_reader *rd, const xmlNode *node, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int status = wl_xml_vfail(rd->err, rd->path, node, fmt, ap);
    va_end(ap);
    return status;
}

/* Copy attribute `name` of node into buf; returns 1 when present, 0 when absent, -1 when too
 * long (reported). */
static int get_attr(const xml_reader *rd, xmlNode *node, const char *name, char *buf)
{
    return wl_xml_attr(rd->path, node, name, buf, ATTR_LEN, rd->err);
}

static int parse_double(const char *text, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    while (*end == ' ')
        end++;
    if (end == text || *end || errno == ERANGE || !(v >= 0) || v > 1e12)
        return -1;
    *out = v;
    return 0;
}

static int parse_int(const char *text, long long min, long long max, long long *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    while (*end == ' ')
        end++;
    if (end == text || *end || errno == ERANGE || v < min || v > max)
        return -1;
    *out = v;
    return 0;
}

/* ------------------------------------------------------------------ step 3: header */

static int read_dataset(xml_reader *rd, xmlNode *node)
{
    char v[ATTR_LEN];
    long long samples;
    if (get_attr(rd, node, "name", v) < 0)
        return HS_EINPUT;
    if (strlen(v) >= WL_NAME_LEN)
        return fail_at(rd, node, "dataset name longer than %d characters", WL_NAME_LEN - 1);
    strcpy(rd->wl->dataset, v);
    if (get_attr(rd, node, "samples", v) < 0)
        return HS_EINPUT;
    if (parse_int(v, 1, INT64_MAX, &samples))
        return fail_at(rd, node, "dataset samples '%s' is not a positive integer", v);
    rd->wl->samples = samples;
    if (get_attr(rd, node, "sample", v) < 0)
        return HS_EINPUT;
    if (wl__parse_shape(v, &rd->wl->sample))
        return fail_at(rd, node, "dataset sample '%s' is not CxWxH or CxWxHxD with positive "
                       "integers", v);
    return HS_OK;
}

/* method="none": no time anywhere, so nothing that would describe one may be given. */
static int check_untimed(xml_reader *rd, xmlNode *node)
{
    static const char *const timed_attrs[] = {"device", "sample_time_s", "batch", "source"};
    for (int i = 0; i < 4; i++)
        if (xmlHasProp(node, (const xmlChar *)timed_attrs[i]))
            return fail_at(rd, node, "calibration method=\"none\" has no measured time, so no "
                           "%s", timed_attrs[i]);
    return HS_OK;
}

static int read_calibration(xml_reader *rd, xmlNode *node)
{
    char v[ATTR_LEN];
    long long batch;
    int got = get_attr(rd, node, "method", v); /* the DTD admits measured, derived, none */
    if (got < 0)
        return HS_EINPUT;
    rd->wl->calibration = strcmp(v, "none") == 0      ? WL_CAL_NONE
                          : strcmp(v, "derived") == 0 ? WL_CAL_DERIVED
                                                      : WL_CAL_MEASURED;
    if (rd->wl->calibration == WL_CAL_NONE && check_untimed(rd, node))
        return HS_EINPUT;
    if ((got = get_attr(rd, node, "device", v)) < 0)
        return HS_EINPUT;
    if (!got && rd->wl->calibration != WL_CAL_NONE)
        return fail_at(rd, node, "calibration: device=\"...\" says where the time was measured "
                       "(method=\"none\" when there is no time)");
    if (strlen(v) >= WL_NAME_LEN)
        return fail_at(rd, node, "device name longer than %d characters", WL_NAME_LEN - 1);
    strcpy(rd->wl->device, v);
    if ((got = get_attr(rd, node, "batch", v)) < 0)
        return HS_EINPUT;
    if (got && parse_int(v, 1, INT64_MAX, &batch))
        return fail_at(rd, node, "calibration batch '%s' is not a positive integer", v);
    rd->wl->calibration_batch = got ? batch : 0;
    if ((got = get_attr(rd, node, "sample_time_s", v)) < 0)
        return HS_EINPUT;
    if (got && parse_double(v, &rd->wl->sample_time_s))
        return fail_at(rd, node, "sample_time_s '%s' is not a time in seconds (> 0)", v);
    if (got && !(rd->wl->sample_time_s > 0)) /* every kernel would take no time */
        return fail_at(rd, node, "sample_time_s is %s: the measured time of one sample must be "
                       "more than 0 (method=\"none\" says there is no time)", v);
    rd->has_sample_time = got;
    /* The DTD admits only the three names; the state they keep per weight: */
    if ((got = get_attr(rd, node, "optimizer", v)) < 0)
        return HS_EINPUT;
    rd->wl->optimizer_states = strcmp(v, "adam") == 0 ? 2 : strcmp(v, "momentum") == 0 ? 1 : 0;
    return HS_OK;
}

/* ------------------------------------------------------------------ step 3: one layer */

static int type_from_text(const char *text, wl_type *type)
{
    for (int t = 0; t < WL_TYPE_COUNT; t++)
        if (strcmp(text, wl_type_name((wl_type)t)) == 0) {
            *type = (wl_type)t;
            return 0;
        }
    return -1;
}

/* The output extent of a window of k over x, as the frameworks compute it. */
static int64_t out_extent(int64_t x, int64_t k, int stride, int padding, int same, int ceil_mode)
{
    if (same) /* TensorFlow's "same": pad as needed so that only the stride shrinks */
        return (x + stride - 1) / stride;
    int64_t span = x + 2 * (int64_t)padding - k;
    if (span < 0)
        return 0;
    return (ceil_mode ? (span + stride - 1) / stride : span / stride) + 1;
}

/* padding="P" (every extent) or "P1xP2(xP3)" (one per extent, in the order of the shapes). */
static int read_padding(const char *text, wl_layer *l)
{
    int64_t d[WL_MAX_SPATIAL];
    int n = wl__parse_dims(text, d, WL_MAX_SPATIAL);
    if (n != 1 && n != l->x.n_spatial)
        return -1;
    for (int i = 0; i < l->x.n_spatial; i++) {
        int64_t p = d[n == 1 ? 0 : i];
        if (p > (1 << 20))
            return -1;
        l->padding[i] = (int)p;
    }
    return 0;
}

/* Window parameters of a conv or pool layer (stride, padding, round), checked against the
 * declared output extents. */
static int read_window(xml_reader *rd, xmlNode *node, wl_layer *l, const int64_t *kernel)
{
    char v[ATTR_LEN];
    long long n;
    int same = 0, ceil_mode = 0, got;
    if ((got = get_attr(rd, node, "stride", v)) < 0)
        return HS_EINPUT;
    if (got) {
        if (parse_int(v, 1, 1 << 20, &n))
            return fail_at(rd, node, "layer %s: stride '%s' is not a positive integer",
                           l->name, v);
        l->stride = (int)n;
    }
    if ((got = get_attr(rd, node, "padding", v)) < 0)
        return HS_EINPUT;
    if (got && strcmp(v, "same") == 0) {
        same = 1;
        for (int i = 0; i < l->x.n_spatial; i++) /* per side; an even kernel pads one more after */
            l->padding[i] = (int)((kernel[i] - 1) / 2);
    } else if (got && read_padding(v, l))
        return fail_at(rd, node, "layer %s: padding '%s' is not a non-negative integer, one per "
                       "extent (P1x..), or \"same\"", l->name, v);
    if ((got = get_attr(rd, node, "round", v)) < 0)
        return HS_EINPUT;
    ceil_mode = got && strcmp(v, "ceil") == 0;

    for (int i = 0; i < l->x.n_spatial; i++) {
        int64_t want = out_extent(l->x.spatial[i], kernel[i], l->stride, l->padding[i], same,
                                  ceil_mode);
        if (l->y.spatial[i] != want)
            return fail_at(rd, node, "layer %s: output extent %d is %lld but x=%lld, kernel=%lld,"
                           " stride=%d, padding=%s%d%s give %lld", l->name, i + 1,
                           (long long)l->y.spatial[i], (long long)l->x.spatial[i],
                           (long long)kernel[i], l->stride, same ? "same (" : "", l->padding[i],
                           same ? ")" : ceil_mode ? ", round=ceil" : "", (long long)want);
    }
    return HS_OK;
}

/* groups="G" of a conv: C and F both divide into G groups, each output channel seeing the C/G
 * inputs of its group, so the layer holds F x C/G x K weights. */
static int read_groups(xml_reader *rd, xmlNode *node, wl_layer *l)
{
    char v[ATTR_LEN];
    long long g = 1;
    int got = get_attr(rd, node, "groups", v);
    if (got < 0)
        return HS_EINPUT;
    if (got && parse_int(v, 1, INT64_MAX, &g))
        return fail_at(rd, node, "layer %s: groups '%s' is not a positive integer", l->name, v);
    if (l->w_in % g != 0 || l->w_out % g != 0)
        return fail_at(rd, node, "layer %s: groups %lld must divide both the %lld input and the "
                       "%lld output channels", l->name, g, (long long)l->w_in,
                       (long long)l->w_out);
    l->groups = g;
    l->w_elems /= g;
    return HS_OK;
}

/* Weights of conv and fc ("CxFxK.."), kernel of pool, ParaDL's convention for the rest. */
static int read_weights(xml_reader *rd, xmlNode *node, wl_layer *l)
{
    char v[ATTR_LEN];
    int64_t d[WL_MAX_DIMS] = {0};
    int n_s = l->x.n_spatial;
    int has_w = get_attr(rd, node, "w", v);
    if (has_w < 0)
        return HS_EINPUT;
    int weighted = l->type == WL_CONV || l->type == WL_FC;
    if (has_w != weighted)
        return fail_at(rd, node, weighted ? "layer %s: a %s layer needs w=\"CxFxK..\""
                                          : "layer %s: a %s layer has no weights (w)",
                       l->name, wl_type_name(l->type));
    if (weighted) {
        if (wl__parse_dims(v, d, WL_MAX_DIMS) != 2 + n_s)
            return fail_at(rd, node, "layer %s: w '%s' is not CxF and %d kernel extents",
                           l->name, v, n_s);
        l->w_in = d[0];
        l->w_out = d[1];
        for (int i = 0; i < 2 + n_s; i++)
            if (d[i] <= 0)
                return fail_at(rd, node, "layer %s: w '%s' has a zero extent", l->name, v);
        if (wl__dims_product(d, 2 + n_s, &l->w_elems))
            return fail_at(rd, node, "layer %s: w '%s' has more than 2^40 weights", l->name, v);
        for (int i = 0; i < n_s; i++)
            l->w_kernel[i] = d[2 + i];
        if (l->w_in != l->x.channels || l->w_out != l->y.channels)
            return fail_at(rd, node, "layer %s: w is %lldx%lld.. but x has %lld channels and y "
                           "%lld", l->name, (long long)l->w_in, (long long)l->w_out,
                           (long long)l->x.channels, (long long)l->y.channels);
        return read_groups(rd, node, l);
    } else if (l->type == WL_POOL) {
        int has_k = get_attr(rd, node, "kernel", v);
        if (has_k < 0)
            return HS_EINPUT;
        if (!has_k || wl__parse_dims(v, d, WL_MAX_SPATIAL) != n_s)
            return fail_at(rd, node, "layer %s: a pool layer needs kernel=\"%s\"", l->name,
                           n_s == 3 ? "K1xK2xK3" : "K1xK2");
        for (int i = 0; i < n_s; i++) {
            if (d[i] <= 0)
                return fail_at(rd, node, "layer %s: kernel '%s' has a zero extent", l->name, v);
            l->w_kernel[i] = d[i]; /* ParaDL writes a pool's weights as 0x0xK1xK2 */
        }
    } else {
        l->w_in = l->w_out = l->x.channels; /* ParaDL writes e.g. 64x64x0x0 for a ReLU */
    }
    return HS_OK;
}

/* Shape rules per type, beyond the window arithmetic. */
static int check_type_shapes(xml_reader *rd, xmlNode *node, wl_layer *l)
{
    switch (l->type) {
    case WL_CONV:
        return read_window(rd, node, l, l->w_kernel);
    case WL_POOL:
        if (l->y.channels != l->x.channels)
            return fail_at(rd, node, "layer %s: pooling keeps the channels, but x has %lld and "
                           "y %lld", l->name, (long long)l->x.channels, (long long)l->y.channels);
        return read_window(rd, node, l, l->w_kernel);
    case WL_FC:
        for (int i = 0; i < l->x.n_spatial; i++)
            if (l->w_kernel[i] != l->x.spatial[i] || l->y.spatial[i] != 1)
                return fail_at(rd, node, "layer %s: a fully connected layer's kernel covers x "
                               "and its output extents are 1", l->name);
        break;
    default:
        if (!wl__shape_equal(&l->x, &l->y))
            return fail_at(rd, node, "layer %s: a %s layer's output has its input's shape",
                           l->name, wl_type_name(l->type));
    }
    return HS_OK;
}

/* Attributes that only make sense on some layer types. */
static int check_misplaced(xml_reader *rd, xmlNode *node, const wl_layer *l)
{
    static const char *const window_attrs[] = {"stride", "padding", "round"};
    int windowed = l->type == WL_CONV || l->type == WL_POOL;
    for (int i = 0; i < 3; i++)
        if (!windowed && xmlHasProp(node, (const xmlChar *)window_attrs[i]))
            return fail_at(rd, node, "layer %s: %s applies to conv and pool layers only",
                           l->name, window_attrs[i]);
    if (l->type != WL_POOL && xmlHasProp(node, (const xmlChar *)"kernel"))
        return fail_at(rd, node, "layer %s: kernel applies to pool layers only (conv and fc "
                       "give it in w)", l->name);
    if (l->type != WL_ADD && xmlHasProp(node, (const xmlChar *)"shortcut"))
        return fail_at(rd, node, "layer %s: shortcut applies to add layers only", l->name);
    if (l->type != WL_CONV && xmlHasProp(node, (const xmlChar *)"groups"))
        return fail_at(rd, node, "layer %s: groups applies to conv layers only", l->name);
    return HS_OK;
}

static const wl_shape *output_of(const xml_reader *rd, int input)
{
    return input == WL_INPUT_DATA ? &rd->wl->sample : &rd->wl->layers[input].y;
}

/* inputs="a b": earlier layers, and x must be what they produce. */
static int read_inputs(xml_reader *rd, xmlNode *node, wl_layer *l, int index)
{
    char v[ATTR_LEN];
    int got = get_attr(rd, node, "inputs", v);
    if (got < 0)
        return HS_EINPUT;
    for (char *save, *tok = got ? strtok_r(v, " \t\r\n", &save) : NULL; tok;
         tok = strtok_r(NULL, " \t\r\n", &save)) {
        int found = -1;
        for (int j = 0; j < index && found < 0; j++)
            if (strcmp(rd->ids[j], tok) == 0)
                found = j;
        if (found < 0)
            return fail_at(rd, node, "layer %s: input '%s' is not an earlier layer", l->name,
                           tok);
        if (l->n_inputs == WL_MAX_INPUTS)
            return fail_at(rd, node, "layer %s: more than %d inputs", l->name, WL_MAX_INPUTS);
        l->inputs[l->n_inputs++] = found;
    }

    char want[64], have[64];
    int projection = get_attr(rd, node, "shortcut", v) > 0 && strcmp(v, "projection") == 0;
    if (l->n_inputs == 0) {
        const wl_shape *prev = output_of(rd, index == 0 ? WL_INPUT_DATA : index - 1);
        if (!wl__shape_equal(prev, &l->x))
            return fail_at(rd, node, "layer %s: x is %s but the %s is %s", l->name,
                           wl__shape_str(&l->x, have, sizeof have),
                           index == 0 ? "dataset sample" : "previous layer's output",
                           wl__shape_str(prev, want, sizeof want));
    } else if (l->type == WL_CONCAT) {
        int64_t channels = 0;
        for (int i = 0; i < l->n_inputs; i++) {
            const wl_shape *in = output_of(rd, l->inputs[i]);
            channels += in->channels;
            if (in->n_spatial != l->x.n_spatial ||
                memcmp(in->spatial, l->x.spatial, sizeof in->spatial) != 0)
                return fail_at(rd, node, "layer %s: input %s has extents unlike x", l->name,
                               rd->ids[l->inputs[i]]);
        }
        if (channels != l->x.channels)
            return fail_at(rd, node, "layer %s: the inputs have %lld channels in all, x has %lld",
                           l->name, (long long)channels, (long long)l->x.channels);
    } else {
        if (l->n_inputs > 1 && l->type != WL_ADD)
            return fail_at(rd, node, "layer %s: only add and concat layers take several inputs",
                           l->name);
        /* A projection shortcut is resized by a convolution the table does not list, so
         * only the first (main-path) input must already have x's shape. */
        int checked = projection ? 1 : l->n_inputs;
        for (int i = 0; i < checked; i++) {
            const wl_shape *in = output_of(rd, l->inputs[i]);
            if (!wl__shape_equal(in, &l->x))
                return fail_at(rd, node, "layer %s: x is %s but input %s produces %s%s", l->name,
                               wl__shape_str(&l->x, have, sizeof have), rd->ids[l->inputs[i]],
                               wl__shape_str(in, want, sizeof want),
                               l->type == WL_ADD ? " (a resized shortcut needs "
                                                   "shortcut=\"projection\")" : "");
        }
    }
    return HS_OK;
}

static int read_split(xml_reader *rd, xmlNode *node, wl_layer *l)
{
    char v[ATTR_LEN];
    int got = get_attr(rd, node, "split", v);
    if (got < 0)
        return HS_EINPUT;
    for (char *save, *tok = got ? strtok_r(v, " \t\r\n", &save) : NULL; tok;
         tok = strtok_r(NULL, " \t\r\n", &save)) {
        if (strcmp(tok, "filter") == 0)
            l->split_mask |= WL_SPLIT_FILTER;
        else if (strcmp(tok, "channel") == 0)
            l->split_mask |= WL_SPLIT_CHANNEL;
        else if (strcmp(tok, "spatial") == 0)
            l->split_mask |= WL_SPLIT_SPATIAL;
        else
            return fail_at(rd, node, "layer %s: split '%s' is not one of filter, channel, "
                           "spatial", l->name, tok);
    }
    return HS_OK;
}

static int read_times(xml_reader *rd, xmlNode *node, wl_layer *l, int index)
{
    char v[ATTR_LEN];
    int got = get_attr(rd, node, "time_s", v);
    if (got < 0)
        return HS_EINPUT;
    if (got) {
        if (rd->has_sample_time)
            return fail_at(rd, node, "layer %s: time_s given but the calibration already has "
                           "sample_time_s (give one or the other)", l->name);
        if (parse_double(v, &rd->time_s[index]))
            return fail_at(rd, node, "layer %s: time_s '%s' is not a time in seconds (>= 0)",
                           l->name, v);
        rd->n_timed++;
    }
    if ((got = get_attr(rd, node, "wu_s", v)) < 0)
        return HS_EINPUT;
    if (got && parse_double(v, &l->wu_s))
        return fail_at(rd, node, "layer %s: wu_s '%s' is not a time in seconds (>= 0)", l->name,
                       v);
    return HS_OK;
}

static int read_layer(xml_reader *rd, xmlNode *node, wl_layer *l, int index)
{
    char v[ATTR_LEN];
    if (get_attr(rd, node, "id", v) < 0)
        return HS_EINPUT;
    if (strlen(v) >= WL_NAME_LEN)
        return fail_at(rd, node, "layer id '%s' is longer than %d characters", v,
                       WL_NAME_LEN - 1);
    strcpy(rd->ids[index], v);
    strcpy(l->id, v);
    int got = get_attr(rd, node, "name", v);
    if (got < 0)
        return HS_EINPUT;
    if (got && strlen(v) >= WL_NAME_LEN)
        return fail_at(rd, node, "layer name '%s' is longer than %d characters", v,
                       WL_NAME_LEN - 1);
    strcpy(l->name, got ? v : rd->ids[index]);

    if (get_attr(rd, node, "type", v) < 0 || type_from_text(v, &l->type))
        return fail_at(rd, node, "layer %s: unknown type", l->name); /* the DTD prevents it */
    if (get_attr(rd, node, "x", v) < 0)
        return HS_EINPUT;
    if (wl__parse_shape(v, &l->x))
        return fail_at(rd, node, "layer %s: x '%s' is not CxWxH or CxWxHxD with positive "
                       "integers", l->name, v);
    if (get_attr(rd, node, "y", v) < 0)
        return HS_EINPUT;
    if (wl__parse_shape(v, &l->y))
        return fail_at(rd, node, "layer %s: y '%s' is not CxWxH or CxWxHxD with positive "
                       "integers", l->name, v);
    if (l->x.n_spatial != rd->wl->sample.n_spatial || l->y.n_spatial != l->x.n_spatial)
        return fail_at(rd, node, "layer %s: x and y must be %d-D like the dataset sample",
                       l->name, rd->wl->sample.n_spatial);

    int rc = check_misplaced(rd, node, l);
    if (!rc)
        rc = read_weights(rd, node, l);
    if (!rc)
        rc = check_type_shapes(rd, node, l);
    if (!rc)
        rc = read_inputs(rd, node, l, index);
    if (!rc)
        rc = read_split(rd, node, l);
    if (!rc)
        rc = read_times(rd, node, l, index);
    return rc;
}

/* ------------------------------------------------------------------ step 3: the document */

static int grow(xml_reader *rd)
{
    int n = rd->wl->n_layers;
    if (n < rd->capacity)
        return HS_OK;
    int grown = rd->capacity ? 2 * rd->capacity : 64;
    wl_layer *layers = realloc(rd->wl->layers, grown * sizeof *layers);
    if (layers)
        rd->wl->layers = layers;
    char(*ids)[WL_NAME_LEN] = realloc(rd->ids, grown * sizeof *ids);
    if (ids)
        rd->ids = ids;
    double *time_s = realloc(rd->time_s, grown * sizeof *time_s);
    if (time_s)
        rd->time_s = time_s;
    if (!layers || !ids || !time_s)
        return hs_fail(rd->err, HS_EINTERNAL, "%s: out of memory", rd->path);
    rd->capacity = grown;
    return HS_OK;
}

static int read_layers(xml_reader *rd, xmlNode *layers)
{
    for (xmlNode *node = layers->children; node; node = node->next) {
        if (node->type != XML_ELEMENT_NODE)
            continue;
        if (grow(rd))
            return HS_EINTERNAL;
        int index = rd->wl->n_layers++;
        wl_layer *l = &rd->wl->layers[index];
        memset(l, 0, sizeof *l);
        l->stride = 1;
        l->groups = 1;
        rd->time_s[index] = 0;
        if (read_layer(rd, node, l, index))
            return HS_EINPUT;
        if (rd->wl->calibration == WL_CAL_NONE && rd->n_timed)
            return fail_at(rd, node, "layer %s: time_s given but the calibration says "
                           "method=\"none\"", l->name);
        if (rd->wl->calibration != WL_CAL_NONE && !rd->has_sample_time &&
            rd->n_timed != rd->wl->n_layers)
            return fail_at(rd, node, rd->n_timed ? "layer %s has no time_s (the others do)"
                                                 : "layer %s: the calibration has no "
                                                   "sample_time_s, so every layer needs time_s",
                           l->name);
    }
    return HS_OK;
}

static int read_document(xml_reader *rd, xmlDoc *doc)
{
    xmlNode *root = xmlDocGetRootElement(doc);
    char v[ATTR_LEN];
    /* A DTD does not say which element is the root: a valid <layers> alone would pass. */
    if (strcmp((const char *)root->name, "workload") != 0)
        return fail_at(rd, root, "the root element is <%s>, not <workload>",
                       (const char *)root->name);
    if (get_attr(rd, root, "name", v) < 0)
        return HS_EINPUT;
    if (strlen(v) >= WL_NAME_LEN)
        return fail_at(rd, root, "workload name longer than %d characters", WL_NAME_LEN - 1);
    strcpy(rd->wl->name, v);
    /* The DTD fixed the order: description?, dataset, calibration, layers. */
    for (xmlNode *node = root->children; node; node = node->next) {
        if (node->type != XML_ELEMENT_NODE)
            continue;
        const char *tag = (const char *)node->name;
        int rc = HS_OK;
        if (strcmp(tag, "dataset") == 0)
            rc = read_dataset(rd, node);
        else if (strcmp(tag, "calibration") == 0)
            rc = read_calibration(rd, node);
        else if (strcmp(tag, "layers") == 0)
            rc = read_layers(rd, node);
        if (rc)
            return rc;
    }
    return HS_OK;
}

int wl__load_xml(wl_workload *wl, double **layer_time_s, char *err)
{
    xmlDoc *doc = NULL;
    char dtd_path[1100];
    snprintf(dtd_path, sizeof dtd_path, "%s/workload.dtd", wl_default_dir());
    int rc = wl_xml_read(wl->path, dtd_path, &doc, err);
    if (rc)
        return rc;
    xml_reader rd = {.wl = wl, .path = wl->path, .err = err};
    rc = read_document(&rd, doc);
    xmlFreeDoc(doc);
    free(rd.ids);
    if (!rc && !rd.has_sample_time && wl->calibration != WL_CAL_NONE) {
        double sum_s = 0;
        for (int i = 0; i < wl->n_layers; i++)
            sum_s += rd.time_s[i];
        if (!(sum_s > 0))
            rc = hs_fail(err, HS_EINPUT, "%s: every layer's time_s is 0 (method=\"none\" in the "
                         "calibration says there is no time)", wl->path);
        *layer_time_s = rc ? NULL : rd.time_s; /* per-layer calibration: the caller frees it */
        rd.time_s = rc ? rd.time_s : NULL;
    }
    free(rd.time_s);
    return rc;
}
