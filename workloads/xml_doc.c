/* xml_doc.c: an XML input read and validated with libxml2 (xml_doc.h).
 *
 * libxml2 reports validity errors one by one through a callback; we keep the first (with the
 * line of the node it is about) and count the rest, so the user sees the first thing to fix. */
#include "xml_doc.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/valid.h>

#include "hs_error.h"
#include "workload_internal.h"

/* The first validity error and how many there were (libxml2 reports them one by one). */
typedef struct {
    char message[HS_ERR_LEN];
    long line;
    int count;
} dtd_errors;

static void on_validity_error(void *ctx, const char *fmt, ...)
{
    dtd_errors *e = ctx;
    if (e->count++ > 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->message, sizeof e->message, fmt, ap);
    va_end(ap);
    wl__trim(e->message);
    /* The error being reported is libxml2's last one, which knows the offending node. */
    const xmlError *last = xmlGetLastError();
    if (last && last->node)
        e->line = xmlGetLineNo((xmlNode *)last->node);
    else if (last)
        e->line = last->line;
}

static void on_validity_warning(void *ctx, const char *fmt, ...)
{
    (void)ctx;
    (void)fmt;
}

static int parse_document(const char *path, xmlDoc **doc, char *err)
{
    xmlParserCtxt *ctxt = xmlNewParserCtxt();
    if (!ctxt)
        return hs_fail(err, HS_EINTERNAL, "%s: out of memory", path);
    /* No network, no DTD loading from the file (we choose the DTD), no messages on stderr:
     * errors come back through the context. */
    *doc = xmlCtxtReadFile(ctxt, path, NULL,
                           XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING |
                               XML_PARSE_BIG_LINES);
    int rc = HS_OK;
    if (!*doc) {
        const xmlError *e = xmlCtxtGetLastError(ctxt);
        char message[HS_ERR_LEN] = "cannot parse";
        if (e && e->message)
            snprintf(message, sizeof message, "%s", e->message);
        rc = hs_fail(err, HS_EINPUT, "%s:%d: %s", path, e ? e->line : 0, wl__trim(message));
    }
    xmlFreeParserCtxt(ctxt);
    return rc;
}

/* The DTD's file name, for messages ("workload.dtd"). */
static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static int validate(const char *path, const char *dtd_path, xmlDoc *doc, char *err)
{
    const char *dtd_name = base_name(dtd_path);
    FILE *probe = fopen(dtd_path, "r");
    if (!probe) /* checked first: xmlParseDTD would print its complaint on stderr */
        return hs_fail(err, HS_EINTERNAL, "%s: cannot read the DTD %s: %s", path, dtd_path,
                       strerror(errno));
    fclose(probe);
    xmlDtd *dtd = xmlParseDTD(NULL, (const xmlChar *)dtd_path);
    if (!dtd)
        return hs_fail(err, HS_EINTERNAL, "%s: the DTD %s does not parse", path, dtd_path);
    xmlValidCtxt *vctxt = xmlNewValidCtxt();
    if (!vctxt) {
        xmlFreeDtd(dtd);
        return hs_fail(err, HS_EINTERNAL, "%s: out of memory", path);
    }
    dtd_errors errors = {.line = 0};
    vctxt->userData = &errors;
    vctxt->error = on_validity_error;
    vctxt->warning = on_validity_warning;
    int valid = xmlValidateDtd(vctxt, doc, dtd);
    xmlFreeValidCtxt(vctxt);
    xmlFreeDtd(dtd);
    if (valid)
        return HS_OK;
    if (errors.count > 1)
        return hs_fail(err, HS_EINPUT, "%s:%ld: %s (and %d more errors against %s)", path,
                       errors.line, errors.message, errors.count - 1, dtd_name);
    if (errors.count)
        return hs_fail(err, HS_EINPUT, "%s:%ld: %s", path, errors.line, errors.message);
    return hs_fail(err, HS_EINPUT, "%s:%ld: not valid against %s", path, errors.line, dtd_name);
}

int wl_xml_read(const char *path, const char *dtd_path, xmlDoc **doc, char *err)
{
    int rc = parse_document(path, doc, err);
    if (rc == HS_OK)
        rc = validate(path, dtd_path, *doc, err);
    if (rc != HS_OK && *doc) {
        xmlFreeDoc(*doc);
        *doc = NULL;
    }
    return rc;
}

long wl_xml_line(const xmlNode *node)
{
    return xmlGetLineNo(node);
}

int wl_xml_vfail(char *err, const char *path, const xmlNode *node, const char *fmt, va_list ap)
{
    char what[HS_ERR_LEN];
    vsnprintf(what, sizeof what, fmt, ap);
    return hs_fail(err, HS_EINPUT, "%s:%ld: %s", path, xmlGetLineNo(node), what);
}

int wl_xml_fail(char *err, const char *path, const xmlNode *node, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int status = wl_xml_vfail(err, path, node, fmt, ap);
    va_end(ap);
    return status;
}

int wl_xml_attr(const char *path, xmlNode *node, const char *name, char *buf, size_t len,
                char *err)
{
    xmlChar *v = xmlGetProp(node, (const xmlChar *)name);
    buf[0] = '\0';
    if (!v)
        return 0;
    size_t n = strlen((const char *)v);
    int got = 1;
    if (n >= len)
        got = -1, wl_xml_fail(err, path, node, "attribute %s is longer than %zu characters", name,
                            len - 1);
    else
        memcpy(buf, v, n + 1);
    xmlFree(v);
    return got;
}
