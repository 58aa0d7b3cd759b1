/* workload_xml_layer.c: one <layer> of hybridsim's workload format, step 3 of reading it
 * (workload_xml.c has the rest): its id, name and type, the shapes x and y, the weights and
 * their grouping, the window (kernel, stride, padding) whose output extents must be y's, a
 * matmul's product extents, the split marks and the measured times; its inputs (earlier
 * layers whose outputs make x) are read by workload_xml_inputs.c. Every failure names the
 * file, the layer's line and what is wrong. */
#include "workload_xml_reader.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* stride and padding of a windowed layer (conv, deconv, pool) into l; *same for "same". */
static int read_stride_padding(xr_reader *rd, xmlNode *node, wl_layer *l, const int64_t *kernel,
                               int *same)
{
    char v[XR_ATTR_LEN];
    long long n;
    int got;
    *same = 0;
    if ((got = xr_attr(rd, node, "stride", v)) < 0)
        return HS_EINPUT;
    if (got) {
        if (xr_parse_int(v, 1, 1 << 20, &n))
            return xr_fail(rd, node, "layer %s: stride '%s' is not a positive integer",
                           l->name, v);
        l->stride = (int)n;
    }
    if ((got = xr_attr(rd, node, "padding", v)) < 0)
        return HS_EINPUT;
    if (got && strcmp(v, "same") == 0) {
        *same = 1;
        for (int i = 0; i < l->x.n_spatial; i++) /* per side; an even kernel pads one more after */
            l->padding[i] = (int)((kernel[i] - 1) / 2);
    } else if (got && read_padding(v, l))
        return xr_fail(rd, node, "layer %s: padding '%s' is not a non-negative integer, one per "
                       "extent (P1x..), or \"same\"", l->name, v);
    return HS_OK;
}

/* Window parameters of a conv or pool layer (stride, padding, round), checked against the
 * declared output extents. */
static int read_window(xr_reader *rd, xmlNode *node, wl_layer *l, const int64_t *kernel)
{
    char v[XR_ATTR_LEN];
    int same, ceil_mode, got;
    int rc = read_stride_padding(rd, node, l, kernel, &same);
    if (rc)
        return rc;
    if ((got = xr_attr(rd, node, "round", v)) < 0)
        return HS_EINPUT;
    ceil_mode = got && strcmp(v, "ceil") == 0;

    for (int i = 0; i < l->x.n_spatial; i++) {
        int64_t want = out_extent(l->x.spatial[i], kernel[i], l->stride, l->padding[i], same,
                                  ceil_mode);
        if (l->y.spatial[i] != want)
            return xr_fail(rd, node, "layer %s: output extent %d is %lld but x=%lld, kernel=%lld,"
                           " stride=%d, padding=%s%d%s give %lld", l->name, i + 1,
                           (long long)l->y.spatial[i], (long long)l->x.spatial[i],
                           (long long)kernel[i], l->stride, same ? "same (" : "", l->padding[i],
                           same ? ")" : ceil_mode ? ", round=ceil" : "", (long long)want);
    }
    return HS_OK;
}

/* A transposed convolution's output extents, as TensorFlow's conv2d_transpose
 * (deconv_output_length: x stride for "same", (x - 1) stride + K for "valid") and PyTorch's
 * ConvTranspose2d ((x - 1) stride - 2 padding + K, no output_padding) compute them: the
 * extents whose convolution by the same window, stride and padding gives back x. */
static int read_deconv_window(xr_reader *rd, xmlNode *node, wl_layer *l)
{
    int same;
    int rc = read_stride_padding(rd, node, l, l->w_kernel, &same);
    if (rc)
        return rc;
    for (int i = 0; i < l->x.n_spatial; i++) {
        int64_t want = same ? l->x.spatial[i] * l->stride
                            : (l->x.spatial[i] - 1) * l->stride - 2 * (int64_t)l->padding[i] +
                                  l->w_kernel[i];
        if (want < 1)
            return xr_fail(rd, node, "layer %s: padding %d leaves no output in extent %d (x=%lld,"
                           " kernel=%lld, stride=%d)", l->name, l->padding[i], i + 1,
                           (long long)l->x.spatial[i], (long long)l->w_kernel[i], l->stride);
        if (l->y.spatial[i] != want)
            return xr_fail(rd, node, "layer %s: output extent %d is %lld but a deconv of x=%lld, "
                           "kernel=%lld, stride=%d, padding=%s%d%s gives %lld", l->name, i + 1,
                           (long long)l->y.spatial[i], (long long)l->x.spatial[i],
                           (long long)l->w_kernel[i], l->stride, same ? "same (" : "",
                           l->padding[i], same ? ")" : "", (long long)want);
    }
    return HS_OK;
}

/* groups="G" of a conv: C and F both divide into G groups, each output channel seeing the C/G
 * inputs of its group, so the layer holds F x C/G x K weights. */
static int read_groups(xr_reader *rd, xmlNode *node, wl_layer *l)
{
    char v[XR_ATTR_LEN];
    long long g = 1;
    int got = xr_attr(rd, node, "groups", v);
    if (got < 0)
        return HS_EINPUT;
    if (got && xr_parse_int(v, 1, INT64_MAX, &g))
        return xr_fail(rd, node, "layer %s: groups '%s' is not a positive integer", l->name, v);
    if (l->w_in % g != 0 || l->w_out % g != 0)
        return xr_fail(rd, node, "layer %s: groups %lld must divide both the %lld input and the "
                       "%lld output channels", l->name, g, (long long)l->w_in,
                       (long long)l->w_out);
    l->groups = g;
    l->w_elems /= g;
    return HS_OK;
}

/* Weights of a sequence layer: embed "VxD" (a table of V rows of D values), lstm "DxHxL" (L
 * stacked layers of H units, the first reading D features; no biases, as PaSE). */
static int read_sequence_weights(xr_reader *rd, xmlNode *node, wl_layer *l, const char *v)
{
    int64_t d[WL_MAX_DIMS] = {0};
    int embed = l->type == WL_EMBED, n = embed ? 2 : 3;
    if (wl__parse_dims(v, d, WL_MAX_DIMS) != n)
        return xr_fail(rd, node, embed ? "layer %s: w '%s' is not VxD (vocabulary x width)"
                                       : "layer %s: w '%s' is not DxHxL (inputs x units x "
                                         "layers)", l->name, v);
    for (int i = 0; i < n; i++)
        if (d[i] <= 0 || d[i] > (INT64_C(1) << 30))
            return xr_fail(rd, node, "layer %s: w '%s' has an extent out of 1..2^30", l->name, v);
    l->w_in = d[0];
    l->w_out = d[1];
    if (embed) {
        l->w_elems = d[0] * d[1];
        if (l->x.channels != 1 || l->y.channels != d[1])
            return xr_fail(rd, node, "layer %s: an embed reads one token id a position (x "
                           "1xWxH) and writes w's %lld values (y %lldxWxH)", l->name,
                           (long long)d[1], (long long)d[1]);
        return HS_OK;
    }
    l->w_kernel[0] = d[2];
    l->w_elems = 4 * d[1] * (d[0] + d[1]) + (d[2] - 1) * 4 * d[1] * (2 * d[1]);
    if (l->x.channels != d[0] || l->y.channels != d[1])
        return xr_fail(rd, node, "layer %s: w is %lldx%lld.. but x has %lld channels and y "
                       "%lld", l->name, (long long)d[0], (long long)d[1],
                       (long long)l->x.channels, (long long)l->y.channels);
    return HS_OK;
}

/* Weights of conv and fc ("CxFxK.."), kernel of pool, ParaDL's convention for the rest. */
static int read_weights(xr_reader *rd, xmlNode *node, wl_layer *l)
{
    char v[XR_ATTR_LEN];
    int64_t d[WL_MAX_DIMS] = {0};
    int n_s = l->x.n_spatial;
    int has_w = xr_attr(rd, node, "w", v);
    if (has_w < 0)
        return HS_EINPUT;
    if (l->type == WL_EMBED || l->type == WL_LSTM) {
        if (!has_w)
            return xr_fail(rd, node, "layer %s: an %s layer needs w=\"%s\"", l->name,
                           wl_type_name(l->type), l->type == WL_EMBED ? "VxD" : "DxHxL");
        return read_sequence_weights(rd, node, l, v);
    }
    int weighted = l->type == WL_CONV || l->type == WL_FC || l->type == WL_DECONV;
    if (has_w != weighted)
        return xr_fail(rd, node, weighted ? "layer %s: a %s layer needs w=\"CxFxK..\""
                                          : "layer %s: %s %s layer has no weights (w)",
                       l->name, weighted ? wl_type_name(l->type) :
                       l->type == WL_UPSAMPLE ? "an" : "a", wl_type_name(l->type));
    if (weighted) {
        if (wl__parse_dims(v, d, WL_MAX_DIMS) != 2 + n_s)
            return xr_fail(rd, node, "layer %s: w '%s' is not CxF and %d kernel extents",
                           l->name, v, n_s);
        l->w_in = d[0];
        l->w_out = d[1];
        for (int i = 0; i < 2 + n_s; i++)
            if (d[i] <= 0)
                return xr_fail(rd, node, "layer %s: w '%s' has a zero extent", l->name, v);
        if (wl__dims_product(d, 2 + n_s, &l->w_elems))
            return xr_fail(rd, node, "layer %s: w '%s' has more than 2^40 weights", l->name, v);
        for (int i = 0; i < n_s; i++)
            l->w_kernel[i] = d[2 + i];
        if (l->w_in != l->x.channels || l->w_out != l->y.channels)
            return xr_fail(rd, node, "layer %s: w is %lldx%lld.. but x has %lld channels and y "
                           "%lld", l->name, (long long)l->w_in, (long long)l->w_out,
                           (long long)l->x.channels, (long long)l->y.channels);
        return read_groups(rd, node, l);
    } else if (l->type == WL_POOL) {
        int has_k = xr_attr(rd, node, "kernel", v);
        if (has_k < 0)
            return HS_EINPUT;
        if (!has_k || wl__parse_dims(v, d, WL_MAX_SPATIAL) != n_s)
            return xr_fail(rd, node, "layer %s: a pool layer needs kernel=\"%s\"", l->name,
                           n_s == 3 ? "K1xK2xK3" : "K1xK2");
        for (int i = 0; i < n_s; i++) {
            if (d[i] <= 0)
                return xr_fail(rd, node, "layer %s: kernel '%s' has a zero extent", l->name, v);
            l->w_kernel[i] = d[i]; /* ParaDL writes a pool's weights as 0x0xK1xK2 */
        }
    } else {
        l->w_in = l->w_out = l->x.channels; /* ParaDL writes e.g. 64x64x0x0 for a ReLU */
    }
    return HS_OK;
}

/* One of a matmul's extents, a positive integer (products defaults to 1). */
static int read_extent(xr_reader *rd, xmlNode *node, const wl_layer *l, const char *name,
                       int64_t *out)
{
    char v[XR_ATTR_LEN];
    long long n = 1;
    int got = xr_attr(rd, node, name, v);
    if (got < 0)
        return HS_EINPUT;
    if (!got && strcmp(name, "products") != 0)
        return xr_fail(rd, node, "layer %s: a matmul layer needs m, n and k (each product is "
                       "m x k by k x n)", l->name);
    if (got && xr_parse_int(v, 1, 1LL << 40, &n))
        return xr_fail(rd, node, "layer %s: %s '%s' is not a positive integer", l->name, name,
                       v);
    *out = n;
    return HS_OK;
}

/* m, n, k and products of a matmul: x is its first factor (products of m x k), y the result
 * (products of m x n); the second factor, k x n, is checked with the inputs. */
static int read_matmul(xr_reader *rd, xmlNode *node, wl_layer *l)
{
    int rc;
    if ((rc = read_extent(rd, node, l, "m", &l->mm_m)) ||
        (rc = read_extent(rd, node, l, "n", &l->mm_n)) ||
        (rc = read_extent(rd, node, l, "k", &l->mm_k)) ||
        (rc = read_extent(rd, node, l, "products", &l->mm_products)))
        return rc;
    double p = (double)l->mm_products;
    if ((double)wl__shape_elems(&l->x) != p * (double)l->mm_m * (double)l->mm_k)
        return xr_fail(rd, node, "layer %s: x has %lld elements, not products x m x k = %.0f",
                       l->name, (long long)wl__shape_elems(&l->x),
                       p * (double)l->mm_m * (double)l->mm_k);
    if ((double)wl__shape_elems(&l->y) != p * (double)l->mm_m * (double)l->mm_n)
        return xr_fail(rd, node, "layer %s: y has %lld elements, not products x m x n = %.0f",
                       l->name, (long long)wl__shape_elems(&l->y),
                       p * (double)l->mm_m * (double)l->mm_n);
    return HS_OK;
}

/* Shape rules per type, beyond the window arithmetic. */
static int check_type_shapes(xr_reader *rd, xmlNode *node, wl_layer *l)
{
    switch (l->type) {
    case WL_CONV:
        return read_window(rd, node, l, l->w_kernel);
    case WL_DECONV:
        return read_deconv_window(rd, node, l);
    case WL_POOL:
        if (l->y.channels != l->x.channels)
            return xr_fail(rd, node, "layer %s: pooling keeps the channels, but x has %lld and "
                           "y %lld", l->name, (long long)l->x.channels, (long long)l->y.channels);
        return read_window(rd, node, l, l->w_kernel);
    case WL_EMBED:
    case WL_LSTM: /* one output a position */
        for (int i = 0; i < l->x.n_spatial; i++)
            if (l->y.spatial[i] != l->x.spatial[i])
                return xr_fail(rd, node, "layer %s: an %s layer keeps its input's extents (one "
                               "output a position)", l->name, wl_type_name(l->type));
        break;
    case WL_FC:
        for (int i = 0; i < l->x.n_spatial; i++)
            if (l->w_kernel[i] != l->x.spatial[i] || l->y.spatial[i] != 1)
                return xr_fail(rd, node, "layer %s: a fully connected layer's kernel covers x "
                               "and its output extents are 1", l->name);
        break;
    case WL_MATMUL:
        return read_matmul(rd, node, l);
    case WL_RESHAPE:
        if (wl__shape_elems(&l->x) != wl__shape_elems(&l->y))
            return xr_fail(rd, node, "layer %s: a reshape keeps its elements, but x has %lld "
                           "and y %lld", l->name, (long long)wl__shape_elems(&l->x),
                           (long long)wl__shape_elems(&l->y));
        break;
    case WL_MOVE: /* any shape: a permute, a roll, a slice or a chunk of x */
        break;
    case WL_UPSAMPLE: /* nearest neighbour: whole factors, the channels kept */
        for (int i = 0; i < l->x.n_spatial; i++)
            if (l->y.channels != l->x.channels || l->y.spatial[i] % l->x.spatial[i] != 0)
                return xr_fail(rd, node, "layer %s: an upsample layer keeps the channels and "
                               "multiplies each extent by a whole factor, but x is %lldx%lld.. "
                               "and y %lldx%lld..", l->name, (long long)l->x.channels,
                               (long long)l->x.spatial[0], (long long)l->y.channels,
                               (long long)l->y.spatial[0]);
        break;
    default:
        if (!wl__shape_equal(&l->x, &l->y))
            return xr_fail(rd, node, "layer %s: a %s layer's output has its input's shape",
                           l->name, wl_type_name(l->type));
    }
    return HS_OK;
}

/* Attributes that only make sense on some layer types. */
static int check_misplaced(xr_reader *rd, xmlNode *node, const wl_layer *l)
{
    static const char *const window_attrs[] = {"stride", "padding", "round"};
    int windowed = l->type == WL_CONV || l->type == WL_POOL || l->type == WL_DECONV;
    for (int i = 0; i < 3; i++)
        if (!windowed && xmlHasProp(node, (const xmlChar *)window_attrs[i]))
            return xr_fail(rd, node, "layer %s: %s applies to conv, deconv and pool layers only",
                           l->name, window_attrs[i]);
    if (l->type == WL_DECONV && xmlHasProp(node, (const xmlChar *)"round"))
        return xr_fail(rd, node, "layer %s: round applies to conv and pool layers only (a "
                       "deconv's output extents follow from x, stride and padding)", l->name);
    if (l->type != WL_POOL && xmlHasProp(node, (const xmlChar *)"kernel"))
        return xr_fail(rd, node, "layer %s: kernel applies to pool layers only (conv and fc "
                       "give it in w)", l->name);
    if (l->type != WL_ADD && xmlHasProp(node, (const xmlChar *)"shortcut"))
        return xr_fail(rd, node, "layer %s: shortcut applies to add layers only", l->name);
    if (l->type != WL_CONV && xmlHasProp(node, (const xmlChar *)"groups"))
        return xr_fail(rd, node, "layer %s: groups applies to conv layers only", l->name);
    static const char *const matmul_attrs[] = {"m", "n", "k", "products"};
    for (int i = 0; i < 4; i++)
        if (l->type != WL_MATMUL && xmlHasProp(node, (const xmlChar *)matmul_attrs[i]))
            return xr_fail(rd, node, "layer %s: %s applies to matmul layers only", l->name,
                           matmul_attrs[i]);
    return HS_OK;
}

static int read_split(xr_reader *rd, xmlNode *node, wl_layer *l)
{
    char v[XR_ATTR_LEN];
    int got = xr_attr(rd, node, "split", v);
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
            return xr_fail(rd, node, "layer %s: split '%s' is not one of filter, channel, "
                           "spatial", l->name, tok);
        if (l->type == WL_DECONV || l->type == WL_UPSAMPLE) /* work.c, plan.c refuse cuts too */
            return xr_fail(rd, node, "layer %s: split '%s': %s layer is split by batch only "
                           "(its cuts of channels and extents are not modelled)", l->name, tok,
                           l->type == WL_DECONV ? "a deconv" : "an upsample");
    }
    return HS_OK;
}

static int read_times(xr_reader *rd, xmlNode *node, wl_layer *l, int index)
{
    char v[XR_ATTR_LEN];
    int got = xr_attr(rd, node, "time_s", v);
    if (got < 0)
        return HS_EINPUT;
    if (got) {
        if (rd->has_sample_time)
            return xr_fail(rd, node, "layer %s: time_s given but the calibration already has "
                           "sample_time_s (give one or the other)", l->name);
        if (xr_parse_real(v, &rd->time_s[index]))
            return xr_fail(rd, node, "layer %s: time_s '%s' is not a time in seconds (>= 0)",
                           l->name, v);
        rd->n_timed++;
    }
    if ((got = xr_attr(rd, node, "wu_s", v)) < 0)
        return HS_EINPUT;
    if (got && xr_parse_real(v, &l->wu_s))
        return xr_fail(rd, node, "layer %s: wu_s '%s' is not a time in seconds (>= 0)", l->name,
                       v);
    return HS_OK;
}

int xr_read_layer(xr_reader *rd, xmlNode *node, wl_layer *l, int index)
{
    char v[XR_ATTR_LEN];
    if (xr_attr(rd, node, "id", v) < 0)
        return HS_EINPUT;
    if (strlen(v) >= WL_NAME_LEN)
        return xr_fail(rd, node, "layer id '%s' is longer than %d characters", v,
                       WL_NAME_LEN - 1);
    strcpy(rd->ids[index], v);
    strcpy(l->id, v);
    int got = xr_attr(rd, node, "name", v);
    if (got < 0)
        return HS_EINPUT;
    if (got && strlen(v) >= WL_NAME_LEN)
        return xr_fail(rd, node, "layer name '%s' is longer than %d characters", v,
                       WL_NAME_LEN - 1);
    strcpy(l->name, got ? v : rd->ids[index]);

    if (xr_attr(rd, node, "type", v) < 0 || type_from_text(v, &l->type))
        return xr_fail(rd, node, "layer %s: unknown type", l->name); /* the DTD prevents it */
    if (xr_attr(rd, node, "x", v) < 0)
        return HS_EINPUT;
    if (wl__parse_shape(v, &l->x))
        return xr_fail(rd, node, "layer %s: x '%s' is not CxWxH or CxWxHxD with positive "
                       "integers", l->name, v);
    if (xr_attr(rd, node, "y", v) < 0)
        return HS_EINPUT;
    if (wl__parse_shape(v, &l->y))
        return xr_fail(rd, node, "layer %s: y '%s' is not CxWxH or CxWxHxD with positive "
                       "integers", l->name, v);
    if (l->x.n_spatial != rd->wl->sample.n_spatial || l->y.n_spatial != l->x.n_spatial)
        return xr_fail(rd, node, "layer %s: x and y must be %d-D like the dataset sample",
                       l->name, rd->wl->sample.n_spatial);

    int rc = check_misplaced(rd, node, l);
    if (!rc)
        rc = read_weights(rd, node, l);
    if (!rc)
        rc = check_type_shapes(rd, node, l);
    if (!rc)
        rc = xr_read_inputs(rd, node, l, index);
    if (!rc)
        rc = read_split(rd, node, l);
    if (!rc)
        rc = read_times(rd, node, l, index);
    return rc;
}
