/* sweep_json.c: a run's JSON output, flattened for its CSV row (sweep_int.h).
 *
 * A sweep reads only what hybridsim itself printed with --json, so this is not a general JSON
 * library: members become "analytic.iteration.total_s" -> "0.25" pairs, scalars keep the text
 * the child printed (%.17g numbers go to the CSV unchanged), array elements are checked for
 * form but not kept (a row needs none of them), and string escapes that a CSV cell cannot hold
 * (\n, \t, \uXXXX) become a space or '?'. */
#include "sweep_int.h"

#include <stdlib.h>
#include <string.h>

#define SW_JSON_MAX_DEPTH 16 /* deeper than hybridsim's output ever nests: malformed */

static const char *json_value(const char *p, const char *path, int depth, sw_json *j,
                              sw_arena *a);

static const char *json_ws(const char *p)
{
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
        p++;
    return p;
}

/* p at '"'. The unescaped string in *out; returns the text after it, NULL if malformed. */
static const char *json_string(const char *p, char **out, sw_arena *a)
{
    sw_buf b = {0};
    sw_buf_puts(&b, "");
    for (p++; *p && *p != '"'; p++) {
        char c = *p;
        if (c == '\\') {
            p++;
            switch (*p) {
            case 'n': c = ' '; break;
            case 't': c = ' '; break;
            case 'r': c = ' '; break;
            case 'u': c = '?'; for (int k = 0; k < 4 && p[1]; k++) p++; break;
            case '\0': free(b.data); return NULL;
            default: c = *p; break;
            }
        }
        sw_buf_add(&b, &c, 1);
    }
    if (*p != '"') {
        free(b.data);
        return NULL;
    }
    *out = sw_buf_take(&b, a);
    return *out ? p + 1 : NULL;
}

/* `"name": value` of an object whose own path is `path` (NULL: not kept). */
static const char *json_member(const char *p, const char *path, int depth, sw_json *j,
                               sw_arena *a)
{
    char *name = NULL;
    if (*p != '"' || !(p = json_string(p, &name, a)))
        return NULL;
    p = json_ws(p);
    if (*p != ':')
        return NULL;
    char *sub = !path ? NULL : path[0] ? sw_arena_printf(a, "%s.%s", path, name) : name;
    if (path && !sub)
        return NULL;
    return json_value(p + 1, sub, depth + 1, j, a);
}

/* The members of an object or the elements of an array, p just after its '{' or '['. Array
 * elements are parsed without keeping them (path NULL). */
static const char *json_items(const char *p, char close, const char *path, int depth, sw_json *j,
                              sw_arena *a)
{
    p = json_ws(p);
    if (*p == close)
        return p + 1;
    for (;;) {
        p = close == '}' ? json_member(p, path, depth, j, a)
                         : json_value(p, NULL, depth + 1, j, a);
        if (!p)
            return NULL;
        p = json_ws(p);
        if (*p == close)
            return p + 1;
        if (*p != ',')
            return NULL;
        p = json_ws(p + 1);
    }
}

/* A string, number, true, false or null, kept as a field when path is not NULL. */
static const char *json_scalar(const char *p, const char *path, sw_json *j, sw_arena *a)
{
    char *value = NULL;
    if (*p == '"') {
        if (!(p = json_string(p, &value, a)))
            return NULL;
    } else {
        size_t n = strcspn(p, ",}] \t\r\n");
        if (n == 0)
            return NULL;
        if (path && !(value = sw_arena_strndup(a, p, n)))
            return NULL;
        p += n;
    }
    if (!path)
        return p;
    if (!sw_grow((void **)&j->f, &j->cap, j->n, sizeof *j->f))
        return NULL;
    j->f[j->n++] = (sw_jfield){path, value};
    return p;
}

/* Any value; its scalars are kept under path (NULL: parse without keeping). */
static const char *json_value(const char *p, const char *path, int depth, sw_json *j,
                              sw_arena *a)
{
    p = json_ws(p);
    if (depth > SW_JSON_MAX_DEPTH)
        return NULL;
    if (*p == '[')
        return json_items(p + 1, ']', NULL, depth, j, a);
    if (*p == '{')
        return json_items(p + 1, '}', path, depth, j, a);
    return json_scalar(p, path, j, a);
}

bool sw_json_parse(const char *text, const char *prefix, sw_json *j, sw_arena *a)
{
    const char *end = json_value(text, prefix, 0, j, a);
    return end && *json_ws(end) == '\0';
}

const char *sw_json_get(const sw_json *j, const char *path)
{
    for (int i = 0; i < j->n; i++)
        if (strcmp(j->f[i].path, path) == 0)
            return j->f[i].value;
    return NULL;
}

void sw_json_free(sw_json *j)
{
    free(j->f);
    *j = (sw_json){0};
}
