/* hs_parse.h: reading numbers the user typed, at the edge (flags, specs, sweep and platform
 * files): one parser per kind of value, so that the same text means the same everywhere.
 *
 * A caller names where the text came from (a flag, or "file:line: key") and words its own
 * message when it must say more than hs_parse_int64 does (what the number is for, the range
 * of a list); the parsing itself is always one of these. */
#ifndef HS_PARSE_H
#define HS_PARSE_H

#include <getopt.h>
#include <stddef.h>
#include <stdint.h>

/* How a text failed to be a number. */
typedef enum {
    HS_NUM_OK = 0,
    HS_NUM_SYNTAX = -1, /* not a base-10 whole number filling the text ("64x", "1e3", "") */
    HS_NUM_RANGE = -2   /* a whole number, outside [min, max]: *value holds it anyway */
} hs_num_status;

/* The first len characters of text (len = (size_t)-1: all of it) as a base-10 whole number,
 * as strtoll reads one (optional blanks and sign first), filling them exactly. Leaves *value
 * alone on HS_NUM_SYNTAX. No message: for callers that word their own. */
hs_num_status hs_parse_whole(const char *text, size_t len, int64_t min, int64_t max,
                             int64_t *value);

/* hs_parse_whole with a message: HS_EINPUT "<where>: '<text>' is not a whole number" or
 * "<where>: <v> is out of range [<min>, <max>]"; *value is left alone on failure. */
int hs_parse_int64(const char *where, const char *text, int64_t min, int64_t max, int64_t *value,
                   char *err);

/* A list of items N or N-M of non-negative whole numbers (digits only), joined by sep:
 * "0-7,64,128-131" (sep ','), "0-127+512-639" (sep '+'). */
typedef struct {
    int64_t (*range)[2]; /* [first, last] of each item, as written */
    int n;               /* items */
} hs_ranges;

typedef enum {
    HS_RANGES_OK = 0,
    HS_RANGES_SYNTAX,    /* an item that is not N or N-M (or the text is empty) */
    HS_RANGES_REVERSED,  /* an item N-M with N > M */
    HS_RANGES_NO_MEMORY
} hs_ranges_status;

/* Parse text into *out (free with hs_ranges_free, also after a failure). On failure *bad and
 * *bad_len (when not NULL) locate the item at fault. */
hs_ranges_status hs_parse_ranges(const char *text, char sep, hs_ranges *out, const char **bad,
                                 size_t *bad_len);
void hs_ranges_free(hs_ranges *r);

/* getopt_long takes any unambiguous prefix of a long flag ("--gpu" for "--gpus"); hybridsim
 * takes whole names only, so that a typo is never quietly read as another flag. Call after
 * getopt_long returned, with argv, optind and optarg as it left them and the longindex it set
 * (-1 before the call: a short flag leaves it so): HS_EINPUT "unknown option '--gpu' (did you
 * mean --gpus? ...)" when the long flag was abbreviated, HS_EINPUT "-w needs a value (the next
 * word, '-p', is a flag)" when a flag's value is the next word and one of shortopts' or
 * longopts' flags, else HS_OK. */
int hs_parse_whole_flag(char *const *argv, int optind, const char *optarg,
                        const char *shortopts, const struct option *longopts, int longindex,
                        char *err);

#endif
