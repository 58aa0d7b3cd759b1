/* hs_parse.h: reading numbers the user typed, at the edge (flags, sweep files).
 *
 * The command line and the sweep file both take whole numbers within a range and must say the
 * same thing when one is wrong, so the check lives here once. The caller names where the text
 * came from (a flag, or "file:line: key"); the message starts with that name. */
#ifndef HS_PARSE_H
#define HS_PARSE_H

#include <stdint.h>

/* Parse text as a base-10 whole number in [min, max] into *value. "64x", "1e3" or "" is
 * HS_EINPUT ("<where>: '<text>' is not a whole number"), so is a value out of range; *value is
 * left alone on failure. */
int hs_parse_int64(const char *where, const char *text, int64_t min, int64_t max, int64_t *value,
                   char *err);

#endif
