/* platcheck_base.c: the platform checker's ground floor (platcheck_int.h): the table of names,
 * the reader's line, the first failure recorded as "file:line: what", an element's attributes,
 * a count. Every other platcheck file calls it; it calls none of them. */
#include "platcheck_int.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/xmlreader.h>

#include "hs_parse.h"

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

int ck_parse_count(const char *text, int max, int *v)
{
    int64_t x = 0;
    if (hs_parse_whole(text, (size_t)-1, 1, max, &x) != HS_NUM_OK)
        return -1;
    *v = (int)x;
    return 0;
}
