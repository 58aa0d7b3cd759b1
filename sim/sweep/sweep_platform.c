/* sweep_platform.c: a sweep platform's GPUs per node, which per-node and per-group batch rules
 * need, found before any run (sweep_int.h).
 *
 * Loading the platform would start SimGrid, which a sweep's driver must not do (there is one
 * engine per process and a sweep may name several platforms): a platform file's XML head has
 * the number (the root zone's hybridsim:gpus_per_node property), and a generated machine
 * (gen:...) is opened without its engine. */
#include "sweep_int.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libxml/xmlreader.h>

#include "hs_error.h"
#include "hs_out.h"
#include "platform.h"

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* The file a platform name stands for, as plat_load finds it. */
static char *platform_path(const char *spec, sw_arena *a)
{
    const char *home = getenv("HYBRIDSIM_HOME");
    if (strchr(spec, '/') || ends_with(spec, ".xml"))
        return sw_arena_strdup(a, spec);
    if (home && home[0])
        return sw_arena_printf(a, "%s/platforms/%s.xml", home, spec);
    return sw_arena_printf(a, "%s/%s.xml", plat_default_dir(), spec);
}

/* The root zone's hybridsim:gpus_per_node property; -1 if absent, 0 if not a count. Reads only
 * the head of the file, up to the first element that is not the root zone's. */
static long root_gpus_per_node(xmlTextReaderPtr r)
{
    long value = -1;
    while (value < 0 && xmlTextReaderRead(r) == 1) {
        if (xmlTextReaderNodeType(r) != XML_READER_TYPE_ELEMENT)
            continue;
        const char *name = (const char *)xmlTextReaderConstName(r);
        if (strcmp(name, "prop") == 0) {
            xmlChar *id = xmlTextReaderGetAttribute(r, (const xmlChar *)"id");
            xmlChar *v = xmlTextReaderGetAttribute(r, (const xmlChar *)"value");
            if (id && v && strcmp((const char *)id, "hybridsim:gpus_per_node") == 0) {
                value = strtol((const char *)v, NULL, 10);
                if (value < 0)
                    value = 0; /* found, but not a count: reported by the caller */
            }
            xmlFree(id);
            xmlFree(v);
        } else if (strcmp(name, "platform") != 0 && strcmp(name, "zone") != 0 &&
                   strcmp(name, "config") != 0) {
            break; /* past the root zone's properties */
        }
    }
    return value;
}

int sw_platform_gpus_per_node(const sw_item *it, int *gpus_per_node, sw_arena *a, char *err)
{
    if (strncmp(it->text, PG_SPEC_PREFIX, strlen(PG_SPEC_PREFIX)) == 0) { /* a generated machine */
        char why[HS_ERR_LEN];
        plat_platform plat;
        if (plat_open(it->text, &plat, why) != HS_OK) /* why names the spec: "-p gen:...: " */
            return strcmp(it->where, "-p") == 0 ? hs_fail(err, HS_EINPUT, "%s", why)
                                                : hs_fail(err, HS_EINPUT, "%s: %s", it->where, why);
        *gpus_per_node = plat.gpus_per_node;
        plat_free(&plat);
        return HS_OK;
    }
    char *path = platform_path(it->text, a);
    if (!path)
        return hs_fail(err, HS_EINTERNAL, "out of memory");
    if (access(path, R_OK) != 0)
        return hs_fail(err, HS_EINPUT, "%s: platform '%s': cannot read %s: %s", it->where,
                       it->text, path, strerror(errno));
    char why[HS_ERR_LEN]; /* a directory, a FIFO, empty: before libxml2 prints its own */
    if (hs_in_check(path, "platform file", why) != HS_OK)
        return hs_fail(err, HS_EINPUT, "%s: %s", it->where, why);
    xmlTextReaderPtr r = xmlReaderForFile(path, NULL, XML_PARSE_NONET | XML_PARSE_NOERROR |
                                                          XML_PARSE_NOWARNING);
    if (!r)
        return hs_fail(err, HS_EINPUT, "%s: platform '%s': cannot read %s", it->where, it->text,
                       path);
    long value = root_gpus_per_node(r);
    xmlFreeTextReader(r);
    if (value <= 0 || value > INT_MAX)
        return hs_fail(err, HS_EINPUT,
                       "%s: platform %s has no hybridsim:gpus_per_node property in its root zone "
                       "(is it a hybridsim platform?)",
                       it->where, path);
    *gpus_per_node = (int)value;
    return HS_OK;
}
