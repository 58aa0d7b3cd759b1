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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/xmlreader.h>

#include "hs_out.h"

/* Once the file is read: every rank has its GPU host (ck_on_gpu recorded each). */
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
        return ck_on_prop(s, depth);
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
    /* a directory, a device, a FIFO (the probe would wait for a writer), an empty file */
    int status = hs_in_check(path, "platform file", err);
    if (status != HS_OK)
        return status;
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
