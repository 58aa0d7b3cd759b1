/* platcheck.c: reads a platform file with libxml2 before SimGrid does (see platcheck.h).
 *
 * SimGrid 3.32 aborts the whole process on a bad platform file, so everything a hand edit is
 * likely to break is checked here first and reported as "file:line: what". The checks mirror
 * the rules SimGrid enforces with an abort: its DTD's element order, the units of values, that
 * names are unique and declared before use, that a route joins two members of the zone that
 * declares it (a zoneRoute two child zones, through gateways inside them), that a route is not
 * empty nor declared twice, and that split-duplex links are named with a direction. The file
 * is streamed (xmlTextReader), so checking the 4 MB ABCI file costs little memory. */
#include "platcheck_int.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <libxml/xmlreader.h>

#include "device.h"
#include "hs_parse.h"
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

static uint64_t hash_name(const char *s)
{
    uint64_t h = 1469598103934665603ULL; /* FNV-1a */
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ULL;
    }
    return h;
}

static ck_entry *table_slot(const ck_table *t, const char *name)
{
    size_t i = hash_name(name) & (t->cap - 1);
    while (t->slots[i].name && strcmp(t->slots[i].name, name) != 0)
        i = (i + 1) & (t->cap - 1);
    return &t->slots[i];
}

const ck_entry *ck_table_find(const ck_table *t, const char *name)
{
    if (t->cap == 0)
        return NULL;
    const ck_entry *e = table_slot(t, name);
    return e->name ? e : NULL;
}

static int table_grow(ck_table *t)
{
    ck_table bigger = {calloc(t->cap ? t->cap * 2 : 1024, sizeof(ck_entry)),
                       t->cap ? t->cap * 2 : 1024, t->count};
    if (!bigger.slots)
        return -1;
    for (size_t i = 0; i < t->cap; i++)
        if (t->slots[i].name)
            *table_slot(&bigger, t->slots[i].name) = t->slots[i];
    free(t->slots);
    *t = bigger;
    return 0;
}

/* Insert a new name. Returns NULL when out of memory; when the name exists, returns the
 * existing entry with *fresh = 0. */
ck_entry *ck_table_add(ck_table *t, const char *name, int kind, int zone, long line, int *fresh)
{
    if ((t->count + 1) * 2 > t->cap && table_grow(t) != 0)
        return NULL;
    ck_entry *e = table_slot(t, name);
    *fresh = e->name == NULL;
    if (*fresh) {
        if (!(e->name = strdup(name)))
            return NULL;
        e->kind = kind;
        e->zone = zone;
        e->line = line;
        e->point = -1;
        t->count++;
    }
    return e;
}

void ck_table_free(ck_table *t)
{
    for (size_t i = 0; i < t->cap; i++)
        free(t->slots[i].name);
    free(t->slots);
    memset(t, 0, sizeof *t);
}

long ck_line(ck_state *s)
{
    return xmlGetLineNo(xmlTextReaderCurrentNode(s->reader));
}

/* Record the first failure as "file:line: what" (later ones would only repeat it). */
int __attribute__((format(printf, 3, 4))) ck_fail(ck_state *s, long line, const char *fmt, ...)
{
    char what[HS_ERR_LEN];
    va_list ap;
    if (s->rc != HS_OK)
        return s->rc;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    if (line > 0)
        s->rc = hs_fail(s->err, HS_EINPUT, "%s:%ld: %s", s->path, line, what);
    else
        s->rc = hs_fail(s->err, HS_EINPUT, "%s: %s", s->path, what);
    return s->rc;
}

int ck_oom(ck_state *s)
{
    if (s->rc == HS_OK)
        s->rc = hs_fail(s->err, HS_EINTERNAL, "%s: out of memory while checking", s->path);
    return s->rc;
}

/* Copy attribute `name` into buf; 0 when absent. A value too long for buf is an error. */
int ck_attr(ck_state *s, const char *name, char *buf, size_t len)
{
    xmlChar *v = xmlTextReaderGetAttribute(s->reader, (const xmlChar *)name);
    if (!v)
        return 0;
    size_t n = strlen((const char *)v);
    if (n >= len) {
        xmlFree(v);
        ck_fail(s, ck_line(s), "attribute %s is too long (%zu characters)", name, n);
        return -1;
    }
    memcpy(buf, v, n + 1);
    xmlFree(v);
    return 1;
}

/* Like attr, but the attribute must be there. */
int ck_need(ck_state *s, const char *element, const char *name, char *buf, size_t len)
{
    int got = ck_attr(s, name, buf, len);
    if (got == 0)
        ck_fail(s, ck_line(s), "<%s> lacks the attribute %s", element, name);
    return got == 1 ? 0 : -1;
}

/* ---------------------------------------------------------------- properties */

int ck_parse_count(const char *text, int max, int *v)
{
    int64_t x = 0;
    if (hs_parse_whole(text, (size_t)-1, 1, max, &x) != HS_NUM_OK)
        return -1;
    *v = (int)x;
    return 0;
}

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

static int on_prop(ck_state *s, int depth)
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

static int check_all_gpus(ck_state *s)
{
    plat_facts *f = s->facts;
    for (int r = 0; r < f->n_gpus; r++)
        if (!s->gpu_seen[r])
            return ck_fail(s, s->prop_line[0],
                           "no GPU host for node %d GPU %d (expected hosts n<node>-gpu<g> for "
                           "hybridsim:nodes %d x hybridsim:gpus_per_node %d)",
                           r / f->gpus_per_node, r % f->gpus_per_node, f->nodes,
                           f->gpus_per_node);
    return HS_OK;
}

/* ---------------------------------------------------------------- the walk */

/* The attributes each element may have: those of SimGrid 3.32's DTD, less the trace files
 * (availability_file, state_file, bandwidth_file, latency_file: a machine changing in time,
 * which hybridsim does not model, and a missing file is SimGrid's abort). Any other attribute
 * aborts SimGrid's parser. */
static const struct {
    const char *element;
    const char *attrs; /* each between spaces */
} ck_attrs[] = {
    {"platform", " version "},
    {"zone", " id routing "},
    {"host", " id speed core pstate coordinates "},
    {"router", " id coordinates "},
    {"link", " id bandwidth latency sharing_policy "},
    {"route", " src dst symmetrical "},
    {"zoneRoute", " src dst gw_src gw_dst symmetrical "},
    {"link_ctn", " id direction "},
    {"prop", " id value "},
};

static int check_attributes(ck_state *s, const char *element)
{
    const char *known = NULL;
    for (size_t i = 0; i < sizeof ck_attrs / sizeof *ck_attrs; i++)
        if (strcmp(element, ck_attrs[i].element) == 0)
            known = ck_attrs[i].attrs;
    if (!known) /* on_element refuses the element itself */
        return HS_OK;
    long line = ck_line(s);
    for (int more = xmlTextReaderMoveToFirstAttribute(s->reader); more == 1 && s->rc == HS_OK;
         more = xmlTextReaderMoveToNextAttribute(s->reader)) {
        const char *name = (const char *)xmlTextReaderConstName(s->reader);
        char word[CK_VALUE_LEN + 2];
        snprintf(word, sizeof word, " %s ", name);
        if (!strstr(known, word))
            ck_fail(s, line, "<%s> has the attribute %s, which hybridsim does not take (it "
                    "takes:%.*s)", element, name, (int)strlen(known) - 1, known);
    }
    xmlTextReaderMoveToElement(s->reader);
    return s->rc;
}

static int on_element(ck_state *s, const char *name, int depth)
{
    if (depth >= CK_MAX_DEPTH)
        return ck_fail(s, ck_line(s), "elements nested more than %d deep", CK_MAX_DEPTH);
    if (check_attributes(s, name))
        return s->rc;
    snprintf(s->names[depth], sizeof s->names[depth], "%s", name);
    if (strcmp(name, "prop") != 0 && depth == 2 && s->root_line && !s->props_done &&
        ck_finish_props(s))
        return s->rc;
    if (strcmp(name, "prop") == 0) {
        ck_zone *z = ck_parent_zone(s, depth);
        if (z && z->children_started)
            return ck_fail(s, ck_line(s), "<prop> must come before the other children of <zone>");
        return on_prop(s, depth);
    }
    if (strcmp(name, "platform") == 0)
        return ck_on_platform(s, depth);
    if (depth == 0)
        return ck_fail(s, ck_line(s), "the root element is <%s>, not <platform>", name);
    if (strcmp(name, "zone") == 0)
        return ck_on_zone(s, depth);
    if (strcmp(name, "host") == 0)
        return ck_on_host(s, depth);
    if (strcmp(name, "router") == 0)
        return ck_on_router(s, depth);
    if (strcmp(name, "link") == 0)
        return ck_on_link(s, depth);
    if (strcmp(name, "route") == 0)
        return ck_on_route(s, depth);
    if (strcmp(name, "zoneRoute") == 0)
        return ck_on_zone_route(s, depth);
    if (strcmp(name, "link_ctn") == 0)
        return ck_on_link_ctn(s, depth);
    if (strcmp(name, "config") == 0)
        return ck_fail(s, ck_line(s), "<config> is not allowed: hybridsim sets SimGrid's network "
                       "model itself (platforms/README.md)");
    return ck_fail(s, ck_line(s), "<%s> is not supported in a hybridsim platform (known: zone, "
                   "host, router, link, route, zoneRoute, link_ctn, prop)", name);
}

/* End of a route: SimGrid forbids empty routes. */
static int on_end(ck_state *s, const char *name, int depth)
{
    if ((strcmp(name, "route") == 0 || strcmp(name, "zoneRoute") == 0) && s->route_links == 0)
        return ck_fail(s, s->route_line, "this <%s> has no link: SimGrid forbids empty routes",
                       name);
    if (strcmp(name, "zone") == 0 && depth == 1)
        return ck_finish_props(s);
    return HS_OK;
}

static void on_xml_error(void *arg, xmlErrorPtr error)
{
    ck_state *s = arg;
    if (error->level < XML_ERR_ERROR || s->xml_line != 0)
        return;
    s->xml_line = error->line > 0 ? error->line : -1;
    snprintf(s->xml_msg, sizeof s->xml_msg, "%s", error->message ? error->message : "?");
    size_t n = strlen(s->xml_msg);
    while (n > 0 && (s->xml_msg[n - 1] == '\n' || s->xml_msg[n - 1] == ' '))
        s->xml_msg[--n] = '\0';
}

static void walk(ck_state *s)
{
    int ret;
    while (s->rc == HS_OK && (ret = xmlTextReaderRead(s->reader)) == 1) {
        int type = xmlTextReaderNodeType(s->reader);
        int depth = xmlTextReaderDepth(s->reader);
        const char *name = (const char *)xmlTextReaderConstName(s->reader);
        if (type == XML_READER_TYPE_ELEMENT) {
            if (on_element(s, name, depth) == HS_OK && xmlTextReaderIsEmptyElement(s->reader))
                on_end(s, name, depth);
        } else if (type == XML_READER_TYPE_END_ELEMENT) {
            on_end(s, name, depth);
        }
    }
    if (s->rc == HS_OK && (ret < 0 || s->xml_line != 0))
        ck_fail(s, s->xml_line, "malformed XML: %s", s->xml_line ? s->xml_msg : "read error");
}

int plat_check_file(const char *path, plat_facts *facts, char *err)
{
    ck_state s;
    memset(&s, 0, sizeof s);
    memset(facts, 0, sizeof *facts);
    s.path = path;
    s.err = err;
    s.facts = facts;
    s.node_w = s.gpu_w = -1;
    FILE *probe = fopen(path, "r");
    if (!probe)
        return hs_fail(err, HS_EINPUT, "%s: cannot open: %s", path, strerror(errno));
    fclose(probe);
    s.reader = xmlReaderForFile(path, NULL, XML_PARSE_NONET);
    if (!s.reader)
        return hs_fail(err, HS_EINPUT, "%s: cannot read as XML", path);
    xmlTextReaderSetStructuredErrorHandler(s.reader, on_xml_error, &s);
    walk(&s);
    if (s.rc == HS_OK && !s.root_line)
        ck_fail(&s, 0, "no <zone> inside <platform>");
    if (s.rc == HS_OK)
        ck_finish_props(&s);
    if (s.rc == HS_OK)
        check_all_gpus(&s);
    if (s.rc == HS_OK)
        ck_check_routes(&s);
    xmlFreeTextReader(s.reader);
    ck_table_free(&s.netpoints);
    ck_table_free(&s.links);
    ck_table_free(&s.routes);
    free(s.zone_parent);
    free(s.zone_info);
    free(s.points);
    free(s.edges);
    free(s.gpu_seen);
    if (s.rc != HS_OK)
        plat_facts_free(facts);
    return s.rc;
}

void plat_facts_free(plat_facts *f)
{
    if (f->gpu_names)
        for (int r = 0; r < f->n_gpus; r++)
            free(f->gpu_names[r]);
    free(f->gpu_names);
    memset(f, 0, sizeof *f);
}
