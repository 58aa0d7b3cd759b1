/* hs_json.h: the one JSON writer of hybridsim (reports, link summaries, traces, the oracle's and
 * the search's answers). The writer places the commas and knows the nesting; the caller says
 * what comes: objects, arrays, keys and values. Numbers are printed with %.17g so that
 * identical runs give identical bytes and a reader gets the exact double back; strings are
 * quoted and escaped. Its layout is hybridsim's: ", " between members, ": " after a key, and
 * where a report wants a line break before an element ("[\n  {...},\n  {...}]"), hs_json_break.
 *
 * Folder: workloads/common/ (prefix hs_json_). */
#ifndef HS_JSON_H
#define HS_JSON_H

#include <stdbool.h>
#include <stdio.h>

#define HS_JSON_DEPTH 16 /* objects and arrays open at once, at most (reports nest 5) */

/* A writer: one JSON text (or a stream of them, hs_json_break between) on `out`. */
typedef struct {
    FILE *out;
    int depth;                   /* objects and arrays open */
    bool started[HS_JSON_DEPTH]; /* level d already has an element: the next takes a comma */
    char close[HS_JSON_DEPTH];   /* what ends level d: '}' or ']' */
    bool after_key;              /* a key was written: the next value is its, no comma */
    const char *space;           /* written before the next element instead of " " (and before a
                                  * closing bracket), once; NULL: the default */
} hs_json;

/* A writer on out, at the top level. */
void hs_json_init(hs_json *j, FILE *out);

/* An object or an array begun (as a value) and ended. */
void hs_json_object(hs_json *j);
void hs_json_array(hs_json *j);
void hs_json_end(hs_json *j);

/* A member's key; its value follows. */
void hs_json_key(hs_json *j, const char *key);

/* Values. */
void hs_json_number(hs_json *j, double v); /* %.17g */
void hs_json_int(hs_json *j, long long v);
void hs_json_bool(hs_json *j, bool v);
void hs_json_str(hs_json *j, const char *s);
/* A member: its key and its value, in one call. */
void hs_json_kv_number(hs_json *j, const char *key, double v);
void hs_json_kv_int(hs_json *j, const char *key, long long v);
void hs_json_kv_bool(hs_json *j, const char *key, bool v);
void hs_json_kv_str(hs_json *j, const char *key, const char *s);

/* A value printed by the caller's format (a number to fewer digits: "%.6f"), written as is. */
void hs_json_printf(hs_json *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* What the next element (or closing bracket) is preceded by instead of the default: "\n  "
 * puts it on a line of its own. */
void hs_json_break(hs_json *j, const char *space);

/* s as a JSON string on out: quotes, backslash escapes for '"' and '\\', \u00XX for control
 * characters (what hs_json_str and hs_json_key write). */
void hs_json_string(FILE *out, const char *s);

#endif
