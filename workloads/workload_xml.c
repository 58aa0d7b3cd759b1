/* workload_xml.c: hybridsim's own workload format (workloads/workload.dtd, README.md).
 *
 * Reading happens in three steps, each with "file:line: what is wrong" on failure:
 *   1. libxml2 parses the file (well-formedness, with line numbers; xml_doc.h);
 *   2. the document is validated against workload.dtd from the workloads folder, whatever
 *      DOCTYPE the file declares (xml_doc.h): element structure, attribute names, layer types,
 *      unique ids and inputs that name existing ids are all the DTD's business;
 *   3. the meaning is checked: numbers and shapes parse, the calibration is complete (this
 *      file), and each layer (workload_xml_layer.c): its input shape is the output of the
 *      layers feeding it, convolution and pooling extents follow from kernel, stride and
 *      padding, inputs are earlier layers. */
#define _POSIX_C_SOURCE 200809L
#include "workload_xml_reader.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include "hs_grow.h"

/* ------------------------------------------------------------------ step 3: header */

static int read_dataset(xr_reader *rd, xmlNode *node)
{
    char v[XR_ATTR_LEN];
    long long samples;
    if (xr_attr(rd, node, "name", v) < 0)
        return HS_EINPUT;
    if (strlen(v) >= WL_NAME_LEN)
        return xr_fail(rd, node, "dataset name longer than %d characters", WL_NAME_LEN - 1);
    strcpy(rd->wl->dataset, v);
    if (xr_attr(rd, node, "samples", v) < 0)
        return HS_EINPUT;
    if (xr_parse_int(v, 1, INT64_MAX, &samples))
        return xr_fail(rd, node, "dataset samples '%s' is not a positive integer", v);
    rd->wl->samples = samples;
    if (xr_attr(rd, node, "sample", v) < 0)
        return HS_EINPUT;
    if (wl__parse_shape(v, &rd->wl->sample))
        return xr_fail(rd, node, "dataset sample '%s' is not CxWxH or CxWxHxD with positive "
                       "integers", v);
    return HS_OK;
}

/* method="none": no time anywhere, so nothing that would describe one may be given. */
static int check_untimed(xr_reader *rd, xmlNode *node)
{
    static const char *const timed_attrs[] = {"device", "sample_time_s", "batch", "source"};
    for (int i = 0; i < 4; i++)
        if (xmlHasProp(node, (const xmlChar *)timed_attrs[i]))
            return xr_fail(rd, node, "calibration method=\"none\" has no measured time, so no "
                           "%s", timed_attrs[i]);
    return HS_OK;
}

static int read_calibration(xr_reader *rd, xmlNode *node)
{
    char v[XR_ATTR_LEN];
    long long batch;
    int got = xr_attr(rd, node, "method", v); /* the DTD admits measured, derived, none */
    if (got < 0)
        return HS_EINPUT;
    rd->wl->calibration = strcmp(v, "none") == 0      ? WL_CAL_NONE
                          : strcmp(v, "derived") == 0 ? WL_CAL_DERIVED
                                                      : WL_CAL_MEASURED;
    if (rd->wl->calibration == WL_CAL_NONE && check_untimed(rd, node))
        return HS_EINPUT;
    if ((got = xr_attr(rd, node, "device", v)) < 0)
        return HS_EINPUT;
    if (!got && rd->wl->calibration != WL_CAL_NONE)
        return xr_fail(rd, node, "calibration: device=\"...\" says where the time was measured "
                       "(method=\"none\" when there is no time)");
    if (strlen(v) >= WL_NAME_LEN)
        return xr_fail(rd, node, "device name longer than %d characters", WL_NAME_LEN - 1);
    strcpy(rd->wl->device, v);
    if ((got = xr_attr(rd, node, "batch", v)) < 0)
        return HS_EINPUT;
    if (got && xr_parse_int(v, 1, INT64_MAX, &batch))
        return xr_fail(rd, node, "calibration batch '%s' is not a positive integer", v);
    rd->wl->calibration_batch = got ? batch : 0;
    if ((got = xr_attr(rd, node, "sample_time_s", v)) < 0)
        return HS_EINPUT;
    if (got && xr_parse_real(v, &rd->wl->sample_time_s))
        return xr_fail(rd, node, "sample_time_s '%s' is not a time in seconds (> 0)", v);
    if (got && !(rd->wl->sample_time_s > 0)) /* every kernel would take no time */
        return xr_fail(rd, node, "sample_time_s is %s: the measured time of one sample must be "
                       "more than 0 (method=\"none\" says there is no time)", v);
    rd->has_sample_time = got;
    /* The DTD admits only the three names; the state they keep per weight: */
    if ((got = xr_attr(rd, node, "optimizer", v)) < 0)
        return HS_EINPUT;
    rd->wl->optimizer_states = strcmp(v, "adam") == 0 ? 2 : strcmp(v, "momentum") == 0 ? 1 : 0;
    return HS_OK;
}

/* ------------------------------------------------------------------ step 3: the document */

/* Room for one more layer in the three parallel arrays. */
static int grow(xr_reader *rd)
{
    size_t need = (size_t)rd->wl->n_layers + 1;
    if (!hs_grow((void **)&rd->wl->layers, &rd->cap_layers, need, sizeof *rd->wl->layers) ||
        !hs_grow((void **)&rd->ids, &rd->cap_ids, need, sizeof *rd->ids) ||
        !hs_grow((void **)&rd->time_s, &rd->cap_time, need, sizeof *rd->time_s))
        return hs_fail(rd->err, HS_EINTERNAL, "%s: out of memory", rd->path);
    return HS_OK;
}

static int read_layers(xr_reader *rd, xmlNode *layers)
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
        if (xr_read_layer(rd, node, l, index))
            return HS_EINPUT;
        if (rd->wl->calibration == WL_CAL_NONE && rd->n_timed)
            return xr_fail(rd, node, "layer %s: time_s given but the calibration says "
                           "method=\"none\"", l->name);
        if (rd->wl->calibration != WL_CAL_NONE && !rd->has_sample_time &&
            rd->n_timed != rd->wl->n_layers)
            return xr_fail(rd, node, rd->n_timed ? "layer %s has no time_s (the others do)"
                                                 : "layer %s: the calibration has no "
                                                   "sample_time_s, so every layer needs time_s",
                           l->name);
    }
    return HS_OK;
}

static int read_document(xr_reader *rd, xmlDoc *doc)
{
    xmlNode *root = xmlDocGetRootElement(doc);
    char v[XR_ATTR_LEN];
    /* A DTD does not say which element is the root: a valid <layers> alone would pass. */
    if (strcmp((const char *)root->name, "workload") != 0)
        return xr_fail(rd, root, "the root element is <%s>, not <workload>",
                       (const char *)root->name);
    if (xr_attr(rd, root, "name", v) < 0)
        return HS_EINPUT;
    if (strlen(v) >= WL_NAME_LEN)
        return xr_fail(rd, root, "workload name longer than %d characters", WL_NAME_LEN - 1);
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
    xr_reader rd = {.wl = wl, .path = wl->path, .err = err};
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
