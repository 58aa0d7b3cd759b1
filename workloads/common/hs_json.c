/* hs_json.c: the JSON writer (hs_json.h). */
#include "hs_json.h"

#include <stdarg.h>

void hs_json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(out, "\\%c", c);
        else if (c < 0x20)
            fprintf(out, "\\u%04x", c);
        else
            fputc(c, out);
    }
    fputc('"', out);
}

void hs_json_init(hs_json *j, FILE *out)
{
    *j = (hs_json){.out = out};
}

/* What comes before an element: nothing after a key; else a comma after an earlier element,
 * then the break asked for or a blank. */
static void before(hs_json *j)
{
    if (j->after_key) {
        j->after_key = false;
        return;
    }
    bool more = j->started[j->depth];
    if (more)
        fputc(',', j->out);
    if (j->space)
        fputs(j->space, j->out);
    else if (more)
        fputc(' ', j->out);
    j->space = NULL;
    j->started[j->depth] = true;
}

static void open_level(hs_json *j, char open, char close)
{
    before(j);
    fputc(open, j->out);
    if (j->depth + 1 < HS_JSON_DEPTH) { /* deeper is a caller's bug: its brackets still pair */
        j->depth++;
        j->started[j->depth] = false;
    }
    j->close[j->depth] = close;
}

void hs_json_object(hs_json *j)
{
    open_level(j, '{', '}');
}

void hs_json_array(hs_json *j)
{
    open_level(j, '[', ']');
}

void hs_json_end(hs_json *j)
{
    if (j->space)
        fputs(j->space, j->out);
    j->space = NULL;
    fputc(j->close[j->depth], j->out);
    if (j->depth > 0)
        j->depth--;
}

void hs_json_key(hs_json *j, const char *key)
{
    before(j);
    hs_json_string(j->out, key);
    fputs(": ", j->out);
    j->after_key = true;
}

void hs_json_number(hs_json *j, double v)
{
    before(j);
    fprintf(j->out, "%.17g", v);
}

void hs_json_int(hs_json *j, long long v)
{
    before(j);
    fprintf(j->out, "%lld", v);
}

void hs_json_bool(hs_json *j, bool v)
{
    before(j);
    fputs(v ? "true" : "false", j->out);
}

void hs_json_str(hs_json *j, const char *s)
{
    before(j);
    hs_json_string(j->out, s);
}

void hs_json_kv_number(hs_json *j, const char *key, double v)
{
    hs_json_key(j, key);
    hs_json_number(j, v);
}

void hs_json_kv_int(hs_json *j, const char *key, long long v)
{
    hs_json_key(j, key);
    hs_json_int(j, v);
}

void hs_json_kv_bool(hs_json *j, const char *key, bool v)
{
    hs_json_key(j, key);
    hs_json_bool(j, v);
}

void hs_json_kv_str(hs_json *j, const char *key, const char *s)
{
    hs_json_key(j, key);
    hs_json_str(j, s);
}

void hs_json_printf(hs_json *j, const char *fmt, ...)
{
    before(j);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(j->out, fmt, ap);
    va_end(ap);
}

void hs_json_break(hs_json *j, const char *space)
{
    j->space = space;
}
