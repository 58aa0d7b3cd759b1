/* units.c: parse quantities with units and print doubles exactly (see units.h).
 *
 * The unit grammar follows SimGrid's so that the platform checker and SimGrid agree on what a
 * value in a platform file means; the flags of `hybridsim platform` use the same grammar. */
#include "units.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One multiplier prefix: its spelling and its factor. */
typedef struct {
    const char *name;
    double factor;
} un_prefix;

static const un_prefix decimal_short[] = {
    {"", 1.0},   {"k", 1e3},  {"M", 1e6},  {"G", 1e9},  {"T", 1e12},
    {"P", 1e15}, {"E", 1e18}, {"Z", 1e21}, {"Y", 1e24}, {NULL, 0}};
static const un_prefix binary_short[] = {
    {"Ki", 1024.0},
    {"Mi", 1048576.0},
    {"Gi", 1073741824.0},
    {"Ti", 1099511627776.0},
    {"Pi", 1125899906842624.0},
    {"Ei", 1152921504606846976.0},
    {"Zi", 1180591620717411303424.0},
    {"Yi", 1208925819614629174706176.0},
    {NULL, 0}};
static const un_prefix decimal_long[] = {
    {"", 1.0},      {"kilo", 1e3},  {"mega", 1e6},  {"giga", 1e9},  {"tera", 1e12},
    {"peta", 1e15}, {"exa", 1e18},  {"zeta", 1e21}, {"yotta", 1e24}, {NULL, 0}};
static const un_prefix times[] = {
    {"s", 1.0},    {"ms", 1e-3},  {"us", 1e-6},   {"ns", 1e-9},          {"ps", 1e-12},
    {"m", 60.0},   {"h", 3600.0}, {"d", 86400.0}, {"w", 7 * 86400.0}, {NULL, 0}};

static int lookup(const un_prefix *table, const char *name, double *factor)
{
    for (; table->name; table++) {
        if (strcmp(table->name, name) == 0) {
            *factor = table->factor;
            return 0;
        }
    }
    return -1;
}

/* unit = <prefix from table><base>: match the base at the end, the prefix before it. */
static int prefixed(const char *unit, const char *base, const un_prefix *table, double *factor)
{
    size_t n = strlen(unit), b = strlen(base);
    char prefix[16];
    if (n < b || strcmp(unit + n - b, base) != 0 || n - b >= sizeof prefix)
        return -1;
    memcpy(prefix, unit, n - b);
    prefix[n - b] = '\0';
    return lookup(table, prefix, factor);
}

/* Bytes or bits ("B" / "b", "Bps" / "bps"), with decimal or binary prefixes. */
static int bytes_or_bits(const char *unit, const char *bytes, const char *bits, double *factor)
{
    double f;
    if (prefixed(unit, bytes, decimal_short, &f) == 0 ||
        prefixed(unit, bytes, binary_short, &f) == 0) {
        *factor = f;
        return 0;
    }
    if (prefixed(unit, bits, decimal_short, &f) == 0 ||
        prefixed(unit, bits, binary_short, &f) == 0) {
        *factor = f / 8.0;
        return 0;
    }
    return -1;
}

static int unit_factor(const char *unit, un_kind kind, double *factor)
{
    if (*unit == '\0') { /* a bare number is already SI */
        *factor = 1.0;
        return 0;
    }
    switch (kind) {
    case UN_TIME:
        return lookup(times, unit, factor);
    case UN_SIZE:
        return bytes_or_bits(unit, "B", "b", factor);
    case UN_BANDWIDTH:
        return bytes_or_bits(unit, "Bps", "bps", factor);
    case UN_SPEED:
        if (prefixed(unit, "f", decimal_short, factor) == 0)
            return 0;
        return prefixed(unit, "flops", decimal_long, factor);
    }
    return -1;
}

int un_parse(const char *text, un_kind kind, double *value)
{
    char *end;
    double factor;
    if (text == NULL || *text == '\0')
        return -1;
    double v = strtod(text, &end);
    if (end == text || !isfinite(v))
        return -1;
    if (unit_factor(end, kind, &factor) != 0)
        return -1;
    *value = v * factor;
    return 0;
}

/* The physical ranges of units.h, [min, max] per kind. */
static const struct {
    double min, max;  /* the bounds, both allowed, in the kind's base unit (s, bytes, bytes/s,
                       * flop/s: what un_parse returns) */
    const char *text; /* the same in words for messages (un_range_text) */
} ranges[] = {
    [UN_TIME] = {0, 3600, "between 0s and 1h"},
    [UN_SIZE] = {1e3, 1e18, "between 1kB and 1EB"},
    [UN_BANDWIDTH] = {1e3, 1e15, "between 1kBps and 1PBps"},
    [UN_SPEED] = {1e6, 1e21, "between 1Mf and 1Zf"},
};

int un_in_range(un_kind kind, double v)
{
    return v >= ranges[kind].min && v <= ranges[kind].max; /* false for NaN */
}

const char *un_range_text(un_kind kind) { return ranges[kind].text; }

const char *un_hint(un_kind kind)
{
    switch (kind) {
    case UN_TIME:
        return "a time such as 9us, 110ns, 3ms or 0.5s";
    case UN_SIZE:
        return "a size such as 16GB, 512MiB or 16e9";
    case UN_BANDWIDTH:
        return "a bandwidth such as 50GBps, 12.5GBps or 100Gbps (bits)";
    case UN_SPEED:
        return "a speed such as 7.8Tf or 15Gf";
    }
    return "a number";
}

void un_format_exact(double v, char *buf, size_t len)
{
    /* The shortest of %.15g..%.17g that reads back as the same double: readable files, and
     * a platform regenerated from its own values is bit-identical. */
    for (int digits = 15; digits <= 17; digits++) {
        snprintf(buf, len, "%.*g", digits, v);
        if (strtod(buf, NULL) == v)
            return;
    }
}

/* Units a value may be printed in, largest first; the bare SI unit last. */
static const un_prefix out_time[] = {{"s", 1.0}, {"ms", 1e-3}, {"us", 1e-6}, {"ns", 1e-9},
                                     {"ps", 1e-12}, {NULL, 0}};
static const un_prefix out_size[] = {{"TB", 1e12}, {"GB", 1e9}, {"MB", 1e6}, {"kB", 1e3},
                                     {"B", 1.0}, {NULL, 0}};
static const un_prefix out_bandwidth[] = {{"TBps", 1e12}, {"GBps", 1e9}, {"MBps", 1e6},
                                          {"kBps", 1e3}, {"Bps", 1.0}, {NULL, 0}};
static const un_prefix out_speed[] = {{"Pf", 1e15}, {"Tf", 1e12}, {"Gf", 1e9}, {"Mf", 1e6},
                                      {"kf", 1e3}, {"f", 1.0}, {NULL, 0}};

void un_format(double v, un_kind kind, char *buf, size_t len)
{
    const un_prefix *table = kind == UN_TIME    ? out_time
                             : kind == UN_SIZE  ? out_size
                             : kind == UN_SPEED ? out_speed
                                                : out_bandwidth;
    const char *si = kind == UN_TIME ? "s" : kind == UN_SIZE ? "B" : kind == UN_SPEED ? "f" : "Bps";
    char number[40];
    for (const un_prefix *u = table; v != 0 && u->name; u++) {
        if (fabs(v) < u->factor)
            continue; /* keep at least one digit before the point */
        snprintf(number, sizeof number, "%.15g", v / u->factor);
        /* Keep this short form if it reads back, the way SimGrid reads it (number * unit),
         * to within a few ulps: 15us is 15 * 1e-6, one ulp away from 15e-6, and nothing in
         * a simulation can tell; "15us" is what a person would write. */
        if (fabs(strtod(number, NULL) * u->factor - v) <= 4e-16 * fabs(v)) {
            snprintf(buf, len, "%s%s", number, u->name);
            return;
        }
    }
    un_format_exact(v, number, sizeof number);
    snprintf(buf, len, "%s%s", number, si);
}
