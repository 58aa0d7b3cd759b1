/* workload_internal.h: what the workload loaders share, private to workloads/.
 *
 * wl_load() (workload_load.c) resolves the spec to a file and hands it to one of two readers:
 * workload_xml.c (with workload_xml_layer.c and workload_xml_inputs.c) for hybridsim's own XML
 * format, workload_paradl.c for the ParaDL oracle's `.net` / `.net_sc` files. A reader fills the
 * layer table (shapes, weights, inputs, split marks) and either the measured per-sample total or
 * per-layer measured times; wl__finish() then derives everything both formats have in common
 * (FLOP estimates, the spread of the measured time over layers, forward/backward split, totals),
 * so the two formats cannot drift apart. */
#ifndef WORKLOAD_INTERNAL_H
#define WORKLOAD_INTERNAL_H

#include <stddef.h>

#include "workload.h"

#define WL_MAX_DIMS (2 + WL_MAX_SPATIAL) /* a weight shape: C, F, K1..K3 */
#define WL_LINE_LEN 4096                 /* longest line of a ParaDL text file */

/* Readers. Both get a zeroed *wl with wl->path set, and return HS_OK or an error naming
 * "path:line". On error the caller frees *wl. layer_time_s: the reader may allocate one
 * measured seconds-per-sample value per layer (XML per-layer calibration); NULL means
 * "spread wl->sample_time_s" (the caller frees it). */
int wl__load_xml(wl_workload *wl, double **layer_time_s, char *err);

/* Parse the XML file at path and validate it against workload.dtd (workload_dtd.c): *doc is
 * set (free it with xmlFreeDoc) whenever the file parses, even if it is not valid. */
struct _xmlDoc;
int wl__load_paradl(wl_workload *wl, char *err);

/* Derive flops, fw_s, bw_s, x_total, y_total, w_total from the layer table. */
int wl__finish(wl_workload *wl, const double *layer_time_s, char *err);

/* Mark the layers whose activation memory follows what PyTorch's autograd saves (the token
 * types: wl_layer.autograd_rule) and count it (saved_elems), each tensor once; graph: 1 when
 * the file lists each layer's inputs (XML), 0 for ParaDL's files. After wl__finish. */
int wl__saved(wl_workload *wl, int graph, char *err);

/* Grow wl->layers by one zeroed layer; returns it, or NULL when memory runs out. */
wl_layer *wl__add_layer(wl_workload *wl, size_t *capacity);

/* Parse "3x226x226" into up to max_dims integers; returns how many, or -1 when the text is
 * not a list of non-negative integers joined by 'x' (surrounding blanks are allowed). */
int wl__parse_dims(const char *text, int64_t *dims, int max_dims);

/* Parse "C x W x H (x D)" into a shape whose extents are all positive; returns 0 or -1. */
int wl__parse_shape(const char *text, wl_shape *shape);

/* The most elements a tensor or a layer's weights may have: 2^40 (4 TB in fp32, far beyond
 * any GPU), so that element counts, their sums over thousands of layers and their products
 * with small factors stay exact in 64 bits. */
#define WL_MAX_ELEMS (INT64_C(1) << 40)

/* The product of n positive dims into *out: 0, or -1 when it exceeds WL_MAX_ELEMS. */
int wl__dims_product(const int64_t *dims, int n, int64_t *out);

int64_t wl__shape_elems(const wl_shape *shape);
int wl__shape_equal(const wl_shape *a, const wl_shape *b);

/* Write "64x56x56" into buf (for messages). */
const char *wl__shape_str(const wl_shape *shape, char *buf, size_t len);

/* Trim blanks (spaces, tabs, CR, LF) at both ends, in place; returns s. */
char *wl__trim(char *s);

#endif
