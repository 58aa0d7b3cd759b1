/* platcheck_facts.c: what the platform checker learns of the machine (platcheck_int.h): the root
 * zone's hybridsim properties parsed into plat_facts, and the GPU hosts, each's rank checked
 * against them. Above platcheck_base.c; called by the walk (platcheck.c) and the hosts
 * (platcheck_tree.c). */
#include "platcheck_int.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device.h"
#include "units.h"

/* The hybridsim properties of the root zone, parsed into plat_facts. */
typedef enum { PR_INT, PR_SIZE, PR_TIME, PR_TEXT, PR_DEVICE } ck_prop_type;
static const struct {
    const char *id;
    ck_prop_type type;
    size_t offset; /* into plat_facts */
} ck_props[CK_NPROPS] = {
    {"hybridsim:nodes", PR_INT, offsetof(plat_facts, nodes)},
    {"hybridsim:gpus_per_node", PR_INT, offsetof(plat_facts, gpus_per_node)},
    {"hybridsim:nodes_per_leaf", PR_INT, offsetof(plat_facts, nodes_per_leaf)},
    {"hybridsim:leaves_per_rack", PR_INT, offsetof(plat_facts, leaves_per_rack)},
    {"hybridsim:gpu_memory_bytes", PR_SIZE, offsetof(plat_facts, gpu_memory_bytes)},
    {"hybridsim:staging_latency_s", PR_TIME, offsetof(plat_facts, staging_latency_s)},
    {"hybridsim:gpu_model", PR_TEXT, offsetof(plat_facts, gpu_model)},
    {"hybridsim:gpu_device", PR_DEVICE, offsetof(plat_facts, gpu_device)}, /* optional */
};

/* Check the root zone's hybridsim properties once they have all been read. */
int ck_finish_props(ck_state *s)
{
    plat_facts *f = s->facts;
    if (s->props_done)
        return s->rc;
    s->props_done = 1;
    if (!s->format_seen)
        return ck_fail(s, s->root_line, "root zone '%s' lacks <prop id=\"hybridsim:format\" "
                       "value=\"" CK_FORMAT "\"/>: write hybridsim platforms with `hybridsim "
                       "platform`, or add the hybridsim properties (platforms/README.md)",
                       s->root_name);
    for (size_t i = 0; i < CK_NPROPS; i++) {
        const char *v = s->prop_value[i];
        char *field = (char *)f + ck_props[i].offset;
        long line = s->prop_line[i];
        if (line == 0 && ck_props[i].type == PR_DEVICE)
            continue; /* files older than the device table have none */
        if (line == 0)
            return ck_fail(s, s->root_line, "root zone '%s' lacks the property %s", s->root_name,
                           ck_props[i].id);
        int max = strcmp(ck_props[i].id, "hybridsim:gpus_per_node") == 0 ? CK_MAX_GPUS_PER_NODE
                                                                          : CK_MAX_NODES;
        switch (ck_props[i].type) {
        case PR_INT:
            if (ck_parse_count(v, max, (int *)field) != 0)
                return ck_fail(s, line, "%s: '%s' is not a count between 1 and %d", ck_props[i].id,
                               v, max);
            break;
        case PR_SIZE:
            if (un_parse(v, UN_SIZE, (double *)field) != 0 || !(*(double *)field > 0))
                return ck_fail(s, line, "%s: '%s' is not a positive size (%s)", ck_props[i].id, v,
                               un_hint(UN_SIZE));
            break;
        case PR_TIME:
            if (un_parse(v, UN_TIME, (double *)field) != 0 || *(double *)field < 0)
                return ck_fail(s, line, "%s: '%s' is not a time (%s)", ck_props[i].id, v,
                               un_hint(UN_TIME));
            break;
        case PR_TEXT:
            if (v[0] == '\0' || strlen(v) >= PLAT_NAME_LEN)
                return ck_fail(s, line, "%s: must be 1 to %d characters", ck_props[i].id,
                               PLAT_NAME_LEN - 1);
            snprintf(field, PLAT_NAME_LEN, "%s", v);
            break;
        case PR_DEVICE:
            if (!dv_find(v))
                return ck_fail(s, line, "%s: '%s' is not a device hybridsim knows (`hybridsim "
                               "platform --help` lists them)", ck_props[i].id, v);
            snprintf(field, PLAT_NAME_LEN, "%s", dv_find(v)->name);
            break;
        }
    }
    f->n_gpus = f->nodes * f->gpus_per_node; /* both bounded: no overflow */
    f->gpu_names = calloc(f->n_gpus, sizeof *f->gpu_names);
    s->gpu_seen = calloc(f->n_gpus, 1);
    if (!f->gpu_names || !s->gpu_seen)
        return ck_oom(s);
    return HS_OK;
}

int ck_on_prop(ck_state *s, int depth)
{
    /* Values can be long: hybridsim:generator holds every parameter of a generated machine. */
    char id[CK_VALUE_LEN], value[CK_PROP_VALUE_LEN];
    long line = ck_line(s);
    if (ck_need(s, "prop", "id", id, sizeof id) || ck_need(s, "prop", "value", value, sizeof value))
        return s->rc;
    /* Only the root zone's own properties describe the machine. */
    if (depth != 2 || strcmp(s->names[1], "zone") != 0 || strncmp(id, "hybridsim:", 10) != 0)
        return HS_OK;
    if (strcmp(id, "hybridsim:format") == 0) {
        if (strcmp(value, CK_FORMAT) != 0)
            return ck_fail(s, line, "hybridsim:format is '%s'; this hybridsim reads format "
                           CK_FORMAT, value);
        s->format_seen = 1;
        return HS_OK;
    }
    for (size_t i = 0; i < CK_NPROPS; i++)
        if (strcmp(id, ck_props[i].id) == 0) {
            if (s->prop_line[i])
                return ck_fail(s, line, "%s is given twice (also at line %ld)", id,
                               s->prop_line[i]);
            s->prop_line[i] = line;
            if (strlen(value) >= sizeof s->prop_value[i])
                return ck_fail(s, line, "%s: the value is too long", id);
            strcpy(s->prop_value[i], value);
        }
    return HS_OK; /* other hybridsim:* properties are informative */
}

/* ---------------------------------------------------------------- GPU hosts */

/* Read "<digits>" at *p: value and width; -1 when there are none or too many. */
static int read_number(const char **p, int *value, int *width)
{
    int v = 0, w = 0;
    while (**p >= '0' && **p <= '9') {
        if (++w > 9)
            return -1;
        v = v * 10 + (**p - '0');
        (*p)++;
    }
    if (w == 0)
        return -1;
    *value = v;
    *width = w;
    return 0;
}

/* A GPU host is named n<node>-gpu<g>; other hosts may exist and are not GPUs. */
static int gpu_name(const char *name, int *node, int *node_w, int *gpu, int *gpu_w)
{
    const char *p = name;
    if (*p++ != 'n' || read_number(&p, node, node_w) != 0 || strncmp(p, "-gpu", 4) != 0)
        return 0;
    p += 4;
    return read_number(&p, gpu, gpu_w) == 0 && *p == '\0';
}

int ck_on_gpu(ck_state *s, const char *name, long line)
{
    int node, node_w, g, g_w;
    plat_facts *f = s->facts;
    if (!gpu_name(name, &node, &node_w, &g, &g_w))
        return HS_OK;
    if (s->node_w < 0) {
        s->node_w = node_w;
        s->gpu_w = g_w;
        snprintf(s->first_gpu, sizeof s->first_gpu, "%s", name);
    } else if (node_w != s->node_w || g_w != s->gpu_w) {
        return ck_fail(s, line, "GPU host '%s' is numbered with other widths than '%s': GPU "
                       "names must be zero-padded alike so that name order is rank order",
                       name, s->first_gpu);
    }
    if (node >= f->nodes)
        return ck_fail(s, line, "GPU host '%s': node %d, but hybridsim:nodes is %d", name, node,
                       f->nodes);
    if (g >= f->gpus_per_node)
        return ck_fail(s, line, "GPU host '%s': GPU %d, but hybridsim:gpus_per_node is %d", name,
                       g, f->gpus_per_node);
    int rank = node * f->gpus_per_node + g;
    s->gpu_seen[rank] = 1;
    if (!(f->gpu_names[rank] = strdup(name)))
        return ck_oom(s);
    return HS_OK;
}
