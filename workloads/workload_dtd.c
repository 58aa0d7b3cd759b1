/* workload_dtd.c: steps 1 and 2 of reading a workload XML file (workload_xml.c has step 3):
 * libxml2 parses it, with line numbers and without the network, then validates it against
 * workload.dtd from the workloads folder, whatever DOCTYPE the file declares. Either failure is
 * "file:line: what libxml2 said", the first of several validity errors with their count. */
#define _POSIX_C_SOURCE 200809L
#include "workload_internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/valid.h>

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

static int validate(const char *path, xmlDoc *doc, char *err)
{
    char dtd_path[1100];
    snprintf(dtd_path, sizeof dtd_path, "%s/workload.dtd", wl_default_dir());
    FILE *probe = fopen(dtd_path, "r");
    if (!probe) /* checked first: xmlParseDTD would print its complaint on stderr */
        return hs_fail(err, HS_EINTERNAL, "%s: cannot read the workload DTD %s: %s", path,
                       dtd_path, strerror(errno));
    fclose(probe);
    xmlDtd *dtd = xmlParseDTD(NULL, (const xmlChar *)dtd_path);
    if (!dtd)
        return hs_fail(err, HS_EINTERNAL, "%s: the workload DTD %s does not parse", path,
                       dtd_path);
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
        return hs_fail(err, HS_EINPUT, "%s:%ld: %s (and %d more errors against workload.dtd)",
                       path, errors.line, errors.message, errors.count - 1);
    return hs_fail(err, HS_EINPUT, "%s:%ld: %s", path, errors.line,
                   errors.count ? errors.message : "not valid against workload.dtd");
}

int wl__read_valid_xml(const char *path, xmlDoc **doc, char *err)
{
    int rc = parse_document(path, doc, err);
    if (rc == HS_OK)
        rc = validate(path, *doc, err);
    return rc;
}
