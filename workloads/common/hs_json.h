/* hs_json.h: writing JSON text, the one thing every JSON writer of hybridsim (reports, link
 * summaries, traces) must do alike: a string, quoted and escaped. Numbers are printed with
 * %.17g so that identical runs give identical bytes and a reader gets the exact double back. */
#ifndef HS_JSON_H
#define HS_JSON_H

#include <stdio.h>

/* s as a JSON string: quotes, backslash escapes for '"' and '\\', \u00XX for control
 * characters. */
void hs_json_string(FILE *out, const char *s);

#endif
