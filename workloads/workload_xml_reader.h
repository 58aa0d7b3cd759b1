/* workload_xml_reader.h: what the two halves of the workload XML reader share, private to
 * workloads/ (the helpers' bodies in workload_xml_reader.c, the layer below both halves).
 *
 * workload_xml.c reads the document (dataset, calibration, the list of layers),
 * workload_xml_layer.c one <layer> and workload_xml_inputs.c its inputs; they keep their state
 * in an xr_reader and report "file:line: what is wrong" through it. xr_ is the reader's prefix, used nowhere else. */
#ifndef WORKLOAD_XML_READER_H
#define WORKLOAD_XML_READER_H

#include <stdarg.h>

#include <libxml/tree.h>

#include "workload_internal.h"
#include "xml_doc.h"

#define XR_ATTR_LEN 4096 /* longest attribute value we accept (inputs lists are the longest) */

/* State of one file being read. */
typedef struct {
    wl_workload *wl;
    const char *path;
    char (*ids)[WL_NAME_LEN];   /* id of each layer read so far, to resolve inputs */
    double *time_s;             /* per-layer measured seconds, when the file gives them */
    size_t cap_layers, cap_ids, cap_time; /* allocated items of wl->layers, ids, time_s */
    int n_timed;                /* layers carrying time_s */
    int has_sample_time;        /* the calibration carries sample_time_s */
    char *err;
} xr_reader;

/* HS_EINPUT with "path:line: what" at the line of node. */
static inline int xr_fail(const xr_reader *rd, const xmlNode *node, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static inline int xr_fail(const xr_reader *rd, const xmlNode *node, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int status = wl_xml_vfail(rd->err, rd->path, node, fmt, ap);
    va_end(ap);
    return status;
}

/* Attribute `name` of node into buf (XR_ATTR_LEN bytes): 1 when present, 0 when absent, -1
 * when too long (reported). */
static inline int xr_attr(const xr_reader *rd, xmlNode *node, const char *name, char *buf)
{
    return wl_xml_attr(rd->path, node, name, buf, XR_ATTR_LEN, rd->err);
}

/* A number in [0, 1e12] (blanks after it allowed) into *out: 0, or -1 when it is not one. */
int xr_parse_real(const char *text, double *out);

/* An integer in [min, max] (blanks after it allowed) into *out: 0, or -1 when it is not one. */
int xr_parse_int(const char *text, long long min, long long max, long long *out);

/* Step 3 for the index-th <layer>, node: fills *l (zeroed, stride and groups 1),
 * rd->ids[index] and rd->time_s[index]; HS_OK, or HS_EINPUT reported at the node's line. */
int xr_read_layer(xr_reader *rd, xmlNode *node, wl_layer *l, int index);

/* Its inputs="a b" (after its type, shapes and matmul extents are read) into l->inputs, and
 * x checked against what they produce; HS_OK, or HS_EINPUT reported at the node's line. */
int xr_read_inputs(xr_reader *rd, xmlNode *node, wl_layer *l, int index);

#endif
