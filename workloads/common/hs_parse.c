/* hs_parse.c: whole numbers and lists of ranges from user text (hs_parse.h). */
#include "hs_parse.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "hs_error.h"

hs_num_status hs_parse_whole(const char *text, size_t len, int64_t min, int64_t max,
                             int64_t *value)
{
    char buf[64];
    if (len == (size_t)-1)
        len = strlen(text);
    if (len >= sizeof buf) /* no whole number in range is this long */
        return HS_NUM_SYNTAX;
    memcpy(buf, text, len);
    buf[len] = '\0';
    char *end = NULL;
    errno = 0;
    long long v = strtoll(buf, &end, 10);
    if (errno || end == buf || *end != '\0')
        return HS_NUM_SYNTAX;
    *value = v;
    return v < min || v > max ? HS_NUM_RANGE : HS_NUM_OK;
}

int hs_parse_int64(const char *where, const char *text, int64_t min, int64_t max, int64_t *value,
                   char *err)
{
    int64_t v = 0;
    hs_num_status status = hs_parse_whole(text, (size_t)-1, min, max, &v);
    if (status == HS_NUM_SYNTAX)
        return hs_fail(err, HS_EINPUT, "%s: '%s' is not a whole number", where, text);
    if (status == HS_NUM_RANGE)
        return hs_fail(err, HS_EINPUT, "%s: %lld is out of range [%lld, %lld]", where,
                       (long long)v, (long long)min, (long long)max);
    *value = v;
    return HS_OK;
}

/* One item, "N" or "N-M", of len characters: digits only on both sides. */
static hs_ranges_status parse_item(const char *item, size_t len, int64_t range[2])
{
    const char *dash = memchr(item, '-', len);
    size_t first_len = dash ? (size_t)(dash - item) : len;
    const char *parts[2] = {item, dash ? dash + 1 : item};
    size_t lens[2] = {first_len, dash ? len - first_len - 1 : len};
    for (int i = 0; i < 2; i++)
        if (lens[i] == 0 || parts[i][0] < '0' || parts[i][0] > '9' ||
            hs_parse_whole(parts[i], lens[i], 0, INT64_MAX, &range[i]) != HS_NUM_OK)
            return HS_RANGES_SYNTAX;
    return range[0] > range[1] ? HS_RANGES_REVERSED : HS_RANGES_OK;
}

hs_ranges_status hs_parse_ranges(const char *text, char sep, hs_ranges *out, const char **bad,
                                 size_t *bad_len)
{
    memset(out, 0, sizeof *out);
    int n = 1;
    for (const char *c = text; *c; c++)
        n += *c == sep;
    out->range = malloc((size_t)n * sizeof *out->range);
    if (!out->range)
        return HS_RANGES_NO_MEMORY;
    const char *item = text;
    for (int i = 0; i < n; i++) {
        const char *next = strchr(item, sep);
        size_t len = next ? (size_t)(next - item) : strlen(item);
        hs_ranges_status status = parse_item(item, len, out->range[i]);
        if (status != HS_RANGES_OK) {
            if (bad)
                *bad = item;
            if (bad_len)
                *bad_len = len;
            return status;
        }
        out->n++;
        item = next ? next + 1 : item + len;
    }
    return HS_RANGES_OK;
}

void hs_ranges_free(hs_ranges *r)
{
    free(r->range);
    r->range = NULL;
    r->n = 0;
}

/* Whether arg is one of the command's flags (-x, --name or --name=v). */
static bool is_flag(const char *arg, const char *shortopts, const struct option *longopts)
{
    if (arg[0] != '-' || !arg[1])
        return false;
    if (arg[1] != '-')
        return !arg[2] && arg[1] != ':' && strchr(shortopts, arg[1]) != NULL;
    size_t n = strcspn(arg + 2, "=");
    for (const struct option *o = longopts; o->name; o++)
        if (strlen(o->name) == n && strncmp(o->name, arg + 2, n) == 0)
            return true;
    return false;
}

int hs_parse_whole_flag(char *const *argv, int optind, const char *optarg,
                        const char *shortopts, const struct option *longopts, int longindex,
                        char *err)
{
    /* A value that is the next word and one of the flags: the flag before it was given none
     * ("-w -p abci", "--overlap -o x.csv"), which would otherwise surface as a puzzle later. */
    if (optarg && optind >= 2 && optarg == argv[optind - 1] &&
        is_flag(optarg, shortopts, longopts))
        return hs_fail(err, HS_EINPUT, "%s needs a value (the next word, '%s', is a flag)",
                       argv[optind - 2], optarg);
    if (longindex < 0)
        return HS_OK;
    const struct option *lo = &longopts[longindex];
    /* The flag is the last word getopt_long read, or the one before when its value was the
     * next word ("--gpus 4"; "--gpus=4" leaves optarg inside the flag's own word). */
    const char *typed = lo->has_arg && optarg == argv[optind - 1] ? argv[optind - 2]
                                                                 : argv[optind - 1];
    size_t n = strlen(lo->name);
    if (strncmp(typed, "--", 2) == 0 && strncmp(typed + 2, lo->name, n) == 0 &&
        (typed[2 + n] == '\0' || typed[2 + n] == '='))
        return HS_OK;
    return hs_fail(err, HS_EINPUT, "unknown option '%s' (did you mean --%s? flags are taken by "
                   "their whole name)", typed, lo->name);
}
