/* plan_xml.c: the strategy file (strategy.dtd), read into a plan and written from one.
 *
 * Reading has the workload format's three steps (xml_doc.h parses and validates against
 * strategy.dtd, whatever DOCTYPE the file declares; this file checks the meaning), with
 * "file:line: what is wrong" for each. What only makes sense with -g and -b (factors that
 * divide, groups inside the GPUs) is st_plan_check's, which names the same lines because
 * every configuration remembers its line. Writing puts one layer per line and only the
 * attributes that differ from their defaults, so a generated file reads like a table. */
#include "plan.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/tree.h>

#include "hs_out.h"
#include "hs_xml.h"
#include "xml_doc.h"

#define PX_ATTR_LEN 256

/* One file being read. */
typedef struct {
    const char *path;
    const wl_workload *wl;
    st_plan *plan;
    int *set_at;          /* per layer: the line of its <layer>, 0 while unset */
    st_layer_config fallback; /* the <default>, if any */
    bool has_default;
    char *err;
} px_reader;

/* Copy attribute `name` of node into buf; returns 1 when present, 0 when absent, -1 when too
 * long (reported). */
static int get_attr(const px_reader *rd, xmlNode *node, const char *name, char *buf)
{
    return wl_xml_attr(rd->path, node, name, buf, PX_ATTR_LEN, rd->err);
}

#define PX_MAX_WHOLE (1L << 30) /* a count in a strategy file: at most this */

/* A whole number in [min, PX_MAX_WHOLE] filling the text (surrounding blanks allowed): 0, or
 * -1 when it is none or below min, -2 when it is too large. */
static int parse_whole(const char *text, int min, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    while (*end == ' ')
        end++;
    if (end == text || *end || (errno == ERANGE && v < 0) || v < min)
        return -1;
    if (errno == ERANGE || v > PX_MAX_WHOLE)
        return -2;
    *out = (int)v;
    return 0;
}

/* What is wrong with a number parse_whole refused (rc), for the message after its value. */
static const char *whole_problem(int rc, int min)
{
    static const char *const below[] = {"is not a whole number >= 0",
                                        "is not a whole number >= 1"};
    return rc == -2 ? "is too large (at most 1073741824)" : below[min > 0];
}

/* ------------------------------------------------------------------ configurations */

static const char *const factor_names[] = {"batch", "filter", "channel", "height", "width",
                                           "depth", "replicas", "base"};
#define PX_N_FACTORS 8

static int *factor_field(st_layer_config *c, int i)
{
    int *fields[PX_N_FACTORS] = {&c->batch, &c->filter, &c->channel, &c->height,
                                 &c->width, &c->depth, &c->replicas, &c->base};
    return fields[i];
}

/* The attributes of a <layer> or <default> over *c (what is absent stays). */
static int read_config(const px_reader *rd, xmlNode *node, const char *what,
                       st_layer_config *c)
{
    char v[PX_ATTR_LEN];
    for (int i = 0; i < PX_N_FACTORS; i++) {
        int got = get_attr(rd, node, factor_names[i], v);
        if (got < 0)
            return HS_EINPUT;
        int min = i == PX_N_FACTORS - 1 ? 0 : 1;
        int rc = got ? parse_whole(v, min, factor_field(c, i)) : 0;
        if (rc)
            return wl_xml_fail(rd->err, rd->path, node, "%s: %s=\"%s\" %s", what,
                               factor_names[i], v, whole_problem(rc, min));
    }
    int got = get_attr(rd, node, "charge", v);
    if (got < 0)
        return HS_EINPUT;
    if (got)
        c->whole = strcmp(v, "whole") == 0; /* the DTD allows split|whole only */
    c->line = (int)wl_xml_line(node);
    return HS_OK;
}

static int find_layer(const wl_workload *wl, const char *id)
{
    for (int i = 0; i < wl->n_layers; i++)
        if (strcmp(wl->layers[i].id, id) == 0)
            return i;
    return -1;
}

static int read_layer(px_reader *rd, xmlNode *node)
{
    char ref[PX_ATTR_LEN];
    if (get_attr(rd, node, "ref", ref) < 0)
        return HS_EINPUT;
    int i = find_layer(rd->wl, ref);
    if (i < 0)
        return wl_xml_fail(rd->err, rd->path, node, "no layer '%s' in workload %s (%s)", ref,
                           rd->wl->name, rd->wl->path);
    if (rd->set_at[i])
        return wl_xml_fail(rd->err, rd->path, node, "layer %s is configured twice (first at "
                           "line %d)", ref, rd->set_at[i]);
    st_layer_config c = st_layer_default();
    char what[PX_ATTR_LEN + 8];
    snprintf(what, sizeof what, "layer %s", ref);
    int status = read_config(rd, node, what, &c);
    if (status != HS_OK)
        return status;
    rd->plan->layers[i] = c;
    rd->set_at[i] = c.line;
    return HS_OK;
}

/* ------------------------------------------------------------------ the document */

static int read_root(px_reader *rd, xmlNode *root)
{
    char v[PX_ATTR_LEN];
    st_plan *plan = rd->plan;
    plan->line = (int)wl_xml_line(root);
    if (strcmp((const char *)root->name, "strategy") != 0)
        return wl_xml_fail(rd->err, rd->path, root, "the root element is <%s>, not <strategy>",
                       (const char *)root->name);
    if (get_attr(rd, root, "name", v) < 0)
        return HS_EINPUT;
    if (strlen(v) >= ST_PLAN_NAME_LEN || !v[0])
        return wl_xml_fail(rd->err, rd->path, root, "the strategy name must be 1 to %d characters",
                       ST_PLAN_NAME_LEN - 1);
    strcpy(plan->name, v);
    if (get_attr(rd, root, "workload", v) < 0)
        return HS_EINPUT;
    if (strcmp(v, rd->wl->name) != 0)
        return wl_xml_fail(rd->err, rd->path, root, "the strategy is for workload '%s', but -w "
                           "gives %s (%s)", v, rd->wl->name, rd->wl->path);
    snprintf(plan->workload, sizeof plan->workload, "%s", v);
    if (get_attr(rd, root, "gpus", v) < 0)
        return HS_EINPUT;
    int rc = parse_whole(v, 1, &plan->gpus);
    if (rc)
        return wl_xml_fail(rd->err, rd->path, root, "gpus=\"%s\" %s", v, whole_problem(rc, 1));
    if (get_attr(rd, root, "replica_gradients", v) < 0)
        return HS_EINPUT;
    plan->reduce_replicas = strcmp(v, "reduce") == 0;
    return HS_OK;
}

/* A <setting>: kept as text, read by the job's table of keys (job.c), which names this line. */
static int read_setting(px_reader *rd, xmlNode *node)
{
    char key[PX_ATTR_LEN], value[PX_ATTR_LEN];
    st_plan *plan = rd->plan;
    if (get_attr(rd, node, "key", key) < 0 || get_attr(rd, node, "value", value) < 0)
        return HS_EINPUT;
    for (int i = 0; i < plan->n_settings; i++)
        if (strcmp(plan->settings[i].key, key) == 0)
            return wl_xml_fail(rd->err, rd->path, node, "setting %s is given twice (first at "
                               "line %d)", key, plan->settings[i].line);
    if (plan->n_settings >= ST_MAX_SETTINGS || strlen(key) >= ST_SETTING_LEN ||
        strlen(value) >= ST_SETTING_LEN)
        return wl_xml_fail(rd->err, rd->path, node, "setting %s: at most %d settings of %d "
                           "characters", key, ST_MAX_SETTINGS, ST_SETTING_LEN - 1);
    st_setting *s = &plan->settings[plan->n_settings++];
    snprintf(s->key, sizeof s->key, "%s", key);
    snprintf(s->value, sizeof s->value, "%s", value);
    s->line = (int)wl_xml_line(node);
    return HS_OK;
}

static int read_child(px_reader *rd, xmlNode *node)
{
    char v[PX_ATTR_LEN];
    const char *tag = (const char *)node->name;
    if (strcmp(tag, "layer") == 0)
        return read_layer(rd, node);
    if (strcmp(tag, "default") == 0) {
        rd->has_default = true;
        return read_config(rd, node, "default", &rd->fallback);
    }
    if (strcmp(tag, "setting") == 0)
        return read_setting(rd, node);
    if (strcmp(tag, "schedule") == 0) {
        if (get_attr(rd, node, "micro_batches", v) < 0)
            return HS_EINPUT;
        int rc = parse_whole(v, 1, &rd->plan->micro_batches);
        if (rc)
            return wl_xml_fail(rd->err, rd->path, node, "micro_batches=\"%s\" %s", v,
                               whole_problem(rc, 1));
    }
    return HS_OK; /* description */
}

/* Every layer without a <layer> takes the <default>; without one it is an error. */
static int fill_defaults(px_reader *rd, xmlNode *root)
{
    for (int i = 0; i < rd->wl->n_layers; i++) {
        if (rd->set_at[i])
            continue;
        if (!rd->has_default)
            return wl_xml_fail(rd->err, rd->path, root, "layer %s of %s has no configuration "
                               "(give it a <layer ref=\"%s\" .../> or the file a <default "
                               ".../>)", rd->wl->layers[i].id, rd->wl->name,
                               rd->wl->layers[i].id);
        rd->plan->layers[i] = rd->fallback;
    }
    return HS_OK;
}

static int read_document(px_reader *rd, xmlDoc *doc)
{
    xmlNode *root = xmlDocGetRootElement(doc);
    int status = read_root(rd, root);
    rd->fallback = st_layer_default();
    for (xmlNode *node = root->children; status == HS_OK && node; node = node->next)
        if (node->type == XML_ELEMENT_NODE)
            status = read_child(rd, node);
    return status == HS_OK ? fill_defaults(rd, root) : status;
}

static const char *dtd_path(char *buf, size_t len)
{
    snprintf(buf, len, "%s/strategy/strategy.dtd", wl_default_dir());
    return buf;
}

int st_plan_load(const char *path, const wl_workload *wl, st_plan *plan, char *err)
{
    int status = st_plan_init(plan, wl->n_layers, 1, err);
    if (status != HS_OK)
        return status;
    if (snprintf(plan->path, sizeof plan->path, "%s", path) >= (int)sizeof plan->path) {
        st_plan_free(plan);
        return hs_fail(err, HS_EINPUT, "%s: strategy path too long", path);
    }
    /* checked first: libxml2 would print its own complaint (a directory, an empty file), and
     * the probe would wait for a FIFO's writer */
    if ((status = hs_in_check(path, "strategy file", err)) != HS_OK) {
        st_plan_free(plan);
        return status;
    }
    FILE *probe = fopen(path, "r");
    if (!probe) {
        st_plan_free(plan);
        return hs_fail(err, HS_EINPUT, "%s: cannot read the strategy file: %s", path,
                       strerror(errno));
    }
    fclose(probe);
    char dtd[1200];
    xmlDoc *doc = NULL;
    status = wl_xml_read(path, dtd_path(dtd, sizeof dtd), &doc, err);
    px_reader rd = {.path = path, .wl = wl, .plan = plan, .err = err};
    rd.set_at = calloc((size_t)wl->n_layers + 1, sizeof *rd.set_at);
    if (status == HS_OK && !rd.set_at)
        status = hs_fail(err, HS_EINTERNAL, "out of memory reading %s", path);
    if (status == HS_OK)
        status = read_document(&rd, doc);
    free(rd.set_at);
    if (doc)
        xmlFreeDoc(doc);
    if (status != HS_OK)
        st_plan_free(plan);
    return status;
}

int st_plan_add_setting(st_plan *plan, const char *key, const char *value, char *err)
{
    if (plan->n_settings >= ST_MAX_SETTINGS || strlen(key) >= ST_SETTING_LEN ||
        strlen(value) >= ST_SETTING_LEN)
        return hs_fail(err, HS_EINPUT, "setting %s: at most %d settings of %d characters", key,
                       ST_MAX_SETTINGS, ST_SETTING_LEN - 1);
    st_setting *s = &plan->settings[plan->n_settings++];
    snprintf(s->key, sizeof s->key, "%s", key);
    snprintf(s->value, sizeof s->value, "%s", value);
    s->line = 0;
    return HS_OK;
}

bool st_is_file(const char *text)
{
    size_t n = strlen(text);
    return strchr(text, '/') || (n > 4 && strcmp(text + n - 4, ".xml") == 0);
}

/* ------------------------------------------------------------------ writing */

static void put_layer(FILE *out, const wl_layer *l, const st_layer_config *c)
{
    fputs("  <layer ref=\"", out);
    hs_xml_text(out, l->id);
    fputc('"', out);
    st_layer_config d = st_layer_default(), v = *c;
    for (int i = 0; i < PX_N_FACTORS; i++)
        if (*factor_field(&v, i) != *factor_field(&d, i))
            fprintf(out, " %s=\"%d\"", factor_names[i], *factor_field(&v, i));
    if (c->whole)
        fputs(" charge=\"whole\"", out);
    fputs("/>\n", out);
}

int st_plan_write(FILE *out, const st_plan *plan, const wl_workload *wl,
                  const char *description, char *err)
{
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
          "<!DOCTYPE strategy SYSTEM \"strategy.dtd\">\n<strategy name=\"", out);
    hs_xml_text(out, plan->name);
    fputs("\" workload=\"", out);
    hs_xml_text(out, wl->name);
    fprintf(out, "\" gpus=\"%d\"%s>\n", plan->gpus,
            plan->reduce_replicas ? " replica_gradients=\"reduce\"" : "");
    if (description && *description) {
        fputs("  <description>", out);
        hs_xml_text(out, description);
        fputs("</description>\n", out);
    }
    for (int i = 0; i < plan->n_settings; i++) {
        fputs("  <setting key=\"", out);
        hs_xml_text(out, plan->settings[i].key);
        if (plan->settings[i].value[0]) {
            fputs("\" value=\"", out);
            hs_xml_text(out, plan->settings[i].value);
        }
        fputs("\"/>\n", out);
    }
    if (plan->micro_batches > 0)
        fprintf(out, "  <schedule kind=\"gpipe\" micro_batches=\"%d\"/>\n", plan->micro_batches);
    for (int i = 0; i < plan->n_layers && i < wl->n_layers; i++)
        put_layer(out, &wl->layers[i], &plan->layers[i]);
    fputs("</strategy>\n", out);
    if (ferror(out))
        return hs_fail(err, HS_EINTERNAL, "writing the strategy file failed");
    return HS_OK;
}
