/* workload_xml_inputs.c: a <layer>'s inputs="a b" (earlier layers whose outputs make its x),
 * part of step 3 of reading hybridsim's workload format (workload_xml_layer.c reads the rest
 * of the layer). Each layer type has its own rule: a chain layer's x is what its one input (or
 * the previous layer) produces, an add's every input has x's shape (a projection shortcut's
 * only the first), a concat's inputs make x's channels together, a mul multiplies x by a
 * second input of x's shape or by one value a channel, a matmul's second factor holds k x n
 * per product, an embed reads the dataset sample. Failures name the file, line and layer. */
#include "workload_xml_reader.h"

#include <stdio.h>
#include <string.h>

static const wl_shape *output_of(const xr_reader *rd, int input)
{
    return input == WL_INPUT_DATA ? &rd->wl->sample : &rd->wl->layers[input].y;
}

/* A concat's inputs: x's extents each, x's channels together. */
static int check_concat(xr_reader *rd, xmlNode *node, const wl_layer *l)
{
    int64_t channels = 0;
    for (int i = 0; i < l->n_inputs; i++) {
        const wl_shape *in = output_of(rd, l->inputs[i]);
        channels += in->channels;
        if (in->n_spatial != l->x.n_spatial ||
            memcmp(in->spatial, l->x.spatial, sizeof in->spatial) != 0)
            return xr_fail(rd, node, "layer %s: input %s has extents unlike x", l->name,
                           rd->ids[l->inputs[i]]);
    }
    if (channels != l->x.channels)
        return xr_fail(rd, node, "layer %s: the inputs have %lld channels in all, x has %lld",
                       l->name, (long long)channels, (long long)l->x.channels);
    return HS_OK;
}

/* A two-input layer's first input produces its x. */
static int check_first_input(xr_reader *rd, xmlNode *node, const wl_layer *l)
{
    char want[64], have[64];
    const wl_shape *a = output_of(rd, l->inputs[0]);
    if (wl__shape_equal(a, &l->x))
        return HS_OK;
    return xr_fail(rd, node, "layer %s: x is %s but input %s produces %s", l->name,
                   wl__shape_str(&l->x, have, sizeof have), rd->ids[l->inputs[0]],
                   wl__shape_str(a, want, sizeof want));
}

/* A mul's two inputs: the first has x's shape, the second too or one value a channel (its
 * extents all 1), broadcast. With one input (the previous layer, or one listed), a product by
 * a parameter or a constant, as small as a broadcast scale. */
static int check_mul(xr_reader *rd, xmlNode *node, wl_layer *l, int index)
{
    char want[64], have[64];
    if (l->n_inputs <= 1) {
        int in = l->n_inputs ? l->inputs[0] : index == 0 ? WL_INPUT_DATA : index - 1;
        if (!wl__shape_equal(output_of(rd, in), &l->x))
            return xr_fail(rd, node, "layer %s: x is %s but its input produces %s", l->name,
                           wl__shape_str(&l->x, have, sizeof have),
                           wl__shape_str(output_of(rd, in), want, sizeof want));
        l->broadcast = 1;
        return HS_OK;
    }
    if (l->n_inputs != 2)
        return xr_fail(rd, node, "layer %s: a mul layer multiplies one or two inputs, not %d",
                       l->name, l->n_inputs);
    const wl_shape *b = output_of(rd, l->inputs[1]);
    int status = check_first_input(rd, node, l);
    if (status != HS_OK)
        return status;
    int scalar_extents = b->n_spatial == l->x.n_spatial;
    for (int i = 0; i < b->n_spatial; i++)
        scalar_extents &= b->spatial[i] == 1;
    if (wl__shape_equal(b, &l->x))
        return HS_OK;
    if (b->channels != l->x.channels || !scalar_extents)
        return xr_fail(rd, node, "layer %s: its second input %s produces %s: x's shape (%s) or "
                       "one value a channel (%lldx1x1..) is needed", l->name,
                       rd->ids[l->inputs[1]], wl__shape_str(b, want, sizeof want),
                       wl__shape_str(&l->x, have, sizeof have), (long long)l->x.channels);
    l->broadcast = 1;
    return HS_OK;
}

/* A matmul's two factors: the first produces x (products of m x k), the second products of
 * k x n in any shape. */
static int check_matmul(xr_reader *rd, xmlNode *node, const wl_layer *l)
{
    char want[64];
    if (l->n_inputs != 2)
        return xr_fail(rd, node, "layer %s: a matmul layer multiplies two inputs, not %d",
                       l->name, l->n_inputs);
    const wl_shape *b = output_of(rd, l->inputs[1]);
    int status = check_first_input(rd, node, l);
    if (status != HS_OK)
        return status;
    double kn = (double)l->mm_products * (double)l->mm_k * (double)l->mm_n;
    if ((double)wl__shape_elems(b) != kn)
        return xr_fail(rd, node, "layer %s: its second input %s produces %s, %lld elements, "
                       "not products x k x n = %.0f", l->name, rd->ids[l->inputs[1]],
                       wl__shape_str(b, want, sizeof want), (long long)wl__shape_elems(b), kn);
    return HS_OK;
}

/* The ids listed in inputs="a b", each an earlier layer, into l->inputs. */
static int parse_input_ids(xr_reader *rd, xmlNode *node, wl_layer *l, int index)
{
    char v[XR_ATTR_LEN];
    int got = xr_attr(rd, node, "inputs", v);
    if (got < 0)
        return HS_EINPUT;
    for (char *save, *tok = got ? strtok_r(v, " \t\r\n", &save) : NULL; tok;
         tok = strtok_r(NULL, " \t\r\n", &save)) {
        int found = -1;
        for (int j = 0; j < index && found < 0; j++)
            if (strcmp(rd->ids[j], tok) == 0)
                found = j;
        if (found < 0)
            return xr_fail(rd, node, "layer %s: input '%s' is not an earlier layer", l->name,
                           tok);
        if (l->n_inputs == WL_MAX_INPUTS)
            return xr_fail(rd, node, "layer %s: more than %d inputs", l->name, WL_MAX_INPUTS);
        l->inputs[l->n_inputs++] = found;
    }
    return HS_OK;
}

/* An embed reads the dataset sample's token ids, wherever the layer is (a decoder's). */
static int check_embed(xr_reader *rd, xmlNode *node, wl_layer *l, int index)
{
    char want[64], have[64];
    if (l->n_inputs > 0)
        return xr_fail(rd, node, "layer %s: an embed reads the dataset sample's token ids "
                       "(no inputs)", l->name);
    if (!wl__shape_equal(&rd->wl->sample, &l->x))
        return xr_fail(rd, node, "layer %s: x is %s but the dataset sample is %s", l->name,
                       wl__shape_str(&l->x, have, sizeof have),
                       wl__shape_str(&rd->wl->sample, want, sizeof want));
    if (index > 0)
        l->inputs[l->n_inputs++] = WL_INPUT_DATA;
    return HS_OK;
}

/* No inputs listed: x is what the previous layer (or the dataset sample) produces. */
static int check_previous(xr_reader *rd, xmlNode *node, const wl_layer *l, int index)
{
    char want[64], have[64];
    const wl_shape *prev = output_of(rd, index == 0 ? WL_INPUT_DATA : index - 1);
    if (wl__shape_equal(prev, &l->x))
        return HS_OK;
    return xr_fail(rd, node, "layer %s: x is %s but the %s is %s", l->name,
                   wl__shape_str(&l->x, have, sizeof have),
                   index == 0 ? "dataset sample" : "previous layer's output",
                   wl__shape_str(prev, want, sizeof want));
}

/* Listed inputs of a chain or add layer: each produces x, except a projection shortcut, which
 * a convolution the table does not list resizes (only the main-path input is checked). */
static int check_listed(xr_reader *rd, xmlNode *node, const wl_layer *l, int projection)
{
    char want[64], have[64];
    if (l->n_inputs > 1 && l->type != WL_ADD)
        return xr_fail(rd, node, "layer %s: only add, mul, matmul and concat layers take "
                       "several inputs", l->name);
    int checked = projection ? 1 : l->n_inputs;
    for (int i = 0; i < checked; i++) {
        const wl_shape *in = output_of(rd, l->inputs[i]);
        if (!wl__shape_equal(in, &l->x))
            return xr_fail(rd, node, "layer %s: x is %s but input %s produces %s%s", l->name,
                           wl__shape_str(&l->x, have, sizeof have), rd->ids[l->inputs[i]],
                           wl__shape_str(in, want, sizeof want),
                           l->type == WL_ADD ? " (a resized shortcut needs "
                                               "shortcut=\"projection\")" : "");
    }
    return HS_OK;
}

int xr_read_inputs(xr_reader *rd, xmlNode *node, wl_layer *l, int index)
{
    int status = parse_input_ids(rd, node, l, index);
    if (status != HS_OK)
        return status;
    char v[XR_ATTR_LEN];
    int projection = xr_attr(rd, node, "shortcut", v) > 0 && strcmp(v, "projection") == 0;
    switch (l->type) {
    case WL_MUL:
        return check_mul(rd, node, l, index);
    case WL_MATMUL:
        return check_matmul(rd, node, l);
    case WL_EMBED:
        return check_embed(rd, node, l, index);
    default:
        break;
    }
    if (l->n_inputs == 0)
        return check_previous(rd, node, l, index);
    if (l->type == WL_CONCAT)
        return check_concat(rd, node, l);
    return check_listed(rd, node, l, projection);
}
