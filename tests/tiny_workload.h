/* tiny_workload.h: a four-layer workload small enough to work every formula out by hand, for
 * the unit tests of strategy.c and analytic.c (header-only: each test program has its own).
 *
 *   L0 conv  2 -> 4 channels, 8x8 -> 8x8, 3x3 kernel, 72 weights    fw 1 ms, bw 2 ms  split
 *   L1 relu  4x8x8 (in place: no activation memory of its own)      fw .5,   bw .5
 *   L2 conv  4 -> 8 channels, 8x8 -> 4x4, 3x3 kernel, 288 weights   fw 2,    bw 4     split
 *                                                                   weight update 1 ms
 *   L3 fc    128 -> 10, 1280 weights                                fw 1,    bw 1
 *                                                                   weight update 2 ms
 * Totals: |x| = 128 + 256 + 128 = 512, |y| = 256 + 128 + 10 = 394 (ReLU left out), W = 1640;
 * forward+backward per sample 12 ms (split 9, replicated 3); D = 1000 samples. */
#ifndef TINY_WORKLOAD_H
#define TINY_WORKLOAD_H

#include <stdio.h>
#include <string.h>

#include "workload.h"

static wl_shape tiny_shape(int64_t c, int64_t w, int64_t h)
{
    wl_shape s = {c, {w, h, 1}, 2};
    return s;
}

static void tiny_layer(wl_layer *l, int i, wl_type type, wl_shape x, wl_shape y, int64_t kernel,
                       int64_t w_elems, double fw_s, double bw_s, double wu_s, unsigned split)
{
    memset(l, 0, sizeof *l);
    snprintf(l->name, sizeof l->name, "L%d", i);
    l->type = type;
    l->x = x;
    l->y = y;
    l->w_in = x.channels;
    l->w_out = y.channels;
    l->w_kernel[0] = l->w_kernel[1] = kernel;
    l->x_elems = x.channels * x.spatial[0] * x.spatial[1];
    l->y_elems = y.channels * y.spatial[0] * y.spatial[1];
    l->w_elems = w_elems;
    l->stride = 1;
    l->fw_s = fw_s;
    l->bw_s = bw_s;
    l->wu_s = wu_s;
    l->split_mask = split;
}

/* Fill *wl over the caller's four layers (no allocation: do not wl_free it). */
static void tiny_workload(wl_workload *wl, wl_layer layers[4])
{
    tiny_layer(&layers[0], 0, WL_CONV, tiny_shape(2, 8, 8), tiny_shape(4, 8, 8), 3, 72, 1e-3,
               2e-3, 0, WL_SPLIT_ALL);
    tiny_layer(&layers[1], 1, WL_RELU, tiny_shape(4, 8, 8), tiny_shape(4, 8, 8), 0, 0, 0.5e-3,
               0.5e-3, 0, 0);
    tiny_layer(&layers[2], 2, WL_CONV, tiny_shape(4, 8, 8), tiny_shape(8, 4, 4), 3, 288, 2e-3,
               4e-3, 1e-3, WL_SPLIT_ALL);
    tiny_layer(&layers[3], 3, WL_FC, tiny_shape(8, 4, 4), tiny_shape(10, 1, 1), 1, 1280, 1e-3,
               1e-3, 2e-3, 0);
    memset(wl, 0, sizeof *wl);
    strcpy(wl->name, "tiny");
    strcpy(wl->dataset, "hand");
    strcpy(wl->path, "tiny.xml");
    wl->layers = layers;
    wl->n_layers = 4;
    wl->samples = 1000;
    wl->sample = tiny_shape(2, 8, 8);
    wl->x_total = 512;
    wl->y_total = 394;
    wl->w_total = 1640;
    wl->sample_time_s = 12e-3;
}

#endif
