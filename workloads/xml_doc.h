/* xml_doc.h: an XML input file read with libxml2 and validated against one of hybridsim's DTDs,
 * every failure reported as "file:line: what is wrong".
 *
 * The workload format (workload.dtd) and the strategy format (strategy/strategy.dtd) are read
 * the same way: well-formedness first, then the document against the DTD we choose, whatever
 * DOCTYPE the file declares, with no network and nothing printed by libxml2 itself. Meaning is
 * each reader's own business. */
#ifndef XML_DOC_H
#define XML_DOC_H

#include <stdarg.h>
#include <stddef.h>

#include <libxml/tree.h>

/* Parse `path` into *doc (free with xmlFreeDoc) and validate it against the DTD at dtd_path;
 * messages call the DTD by its file name. HS_EINPUT with "path:line: ..." when the file is not
 * well-formed or not valid, HS_EINTERNAL when the DTD cannot be read; *doc is NULL then. */
int wl_xml_read(const char *path, const char *dtd_path, xmlDoc **doc, char *err);

/* The line of node in its file (for messages). */
long wl_xml_line(const xmlNode *node);

/* HS_EINPUT with "path:line: what" in err, the line node's, what from fmt. */
int wl_xml_fail(char *err, const char *path, const xmlNode *node, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
int wl_xml_vfail(char *err, const char *path, const xmlNode *node, const char *fmt, va_list ap);

/* Attribute `name` of node into buf (len bytes): 1 when present, 0 when absent, -1 when it is
 * longer than len - 1 (HS_EINPUT "path:line: attribute NAME is longer than ..." in err). */
int wl_xml_attr(const char *path, xmlNode *node, const char *name, char *buf, size_t len,
                char *err);

#endif
