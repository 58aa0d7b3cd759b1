/* platgen_spec.c: a generated machine's parameters as one string, "gen:PRESET:FLAG=VALUE,..."
 * (platgen.h, pg_spec_format and pg_spec_parse): what `-p gen:...` reads, what a generated
 * platform file records so that it can be built again in memory, and what a sweep varies.
 * The flags are those of `hybridsim platform` (platgen_flags.c); a value reads back exactly. */
#include "platgen_int.h"

#include <stdio.h>
#include <string.h>

/* A spec's value with ',' '%' and control characters escaped as %XX. */
static size_t encode_value(const char *v, char *out, size_t len)
{
    size_t n = 0;
    for (; *v && n + 4 < len; v++) {
        unsigned char c = (unsigned char)*v;
        if (c == ',' || c == '%' || c < 0x20)
            n += (size_t)snprintf(out + n, len - n, "%%%02X", c);
        else
            out[n++] = (char)c;
    }
    out[n] = '\0';
    return n;
}

/* Undo encode_value in place; -1 on a bad escape. */
static int decode_value(char *v)
{
    char *w = v;
    for (char *r = v; *r; r++) {
        if (*r != '%') {
            *w++ = *r;
            continue;
        }
        unsigned hi, lo;
        char hex[3] = {r[1], r[1] ? r[2] : 0, 0};
        if (!hex[0] || !hex[1] || sscanf(hex, "%1x%1x", &hi, &lo) != 2)
            return -1;
        *w++ = (char)(hi * 16 + lo);
        r += 2;
    }
    *w = '\0';
    return 0;
}

/* A quantity's text that un_parse reads back to exactly v: the readable form when it does,
 * else the exact decimal in the SI unit. */
static void exact_quantity(double v, un_kind unit, char *buf, size_t len)
{
    double back;
    un_format(v, unit, buf, len);
    if (un_parse(buf, unit, &back) == 0 && back == v)
        return;
    const char *si = unit == UN_TIME ? "s" : unit == UN_SIZE ? "B" : unit == UN_SPEED ? "f"
                                                                                       : "Bps";
    snprintf(buf, len, "%s%s", pg_exact(v).s, si);
}

/* A field's value as pg_spec_parse reads it back exactly. */
static void spec_value(const pg_flag *f, const pg_params *p, char *buf, size_t len)
{
    const char *field = (const char *)p + f->offset;
    switch (f->type) {
    case FL_QTY:
        if (f->words && *(const double *)field == 0)
            snprintf(buf, len, "%s", pg__zero_word(f));
        else
            exact_quantity(*(const double *)field, f->unit, buf, len);
        return;
    case FL_RATIO:
        snprintf(buf, len, "%s", pg_exact(*(const double *)field).s);
        return;
    case FL_STR:
        snprintf(buf, len, "%s", *(const char *const *)field);
        return;
    default:
        pg__show_default(f, p, buf, len); /* whole numbers (or auto) and topologies, exactly */
        return;
    }
}

int pg_spec_format(const pg_params *p, char *buf, size_t len, char *err)
{
    char value[256], enc[256];
    size_t n = (size_t)snprintf(buf, len, "%s%s:", PG_SPEC_PREFIX, p->preset ? p->preset : "abci");
    bool first = true; /* not the last character written: a value may end with ':' */
    for (size_t i = 0; i < pg_n_flags && n < len; i++) {
        if (!pg__flag_in_spec(&pg_flags[i], p))
            continue;
        spec_value(&pg_flags[i], p, value, sizeof value);
        encode_value(value, enc, sizeof enc);
        n += (size_t)snprintf(buf + n, len - n, "%s%s=%s", first ? "" : ",", pg_flags[i].name,
                              enc);
        first = false;
    }
    if (n >= len)
        return hs_fail(err, HS_EINPUT, "the platform's parameters do not fit in %zu characters",
                       len);
    return HS_OK;
}

/* One "flag=value" of a spec, applied. */
static int spec_flag(char *item, pg_params *p, unsigned char *given, char *err)
{
    char *eq = strchr(item, '=');
    if (!eq || eq == item)
        return hs_fail(err, HS_EINPUT, "'%s' is not FLAG=VALUE (flags of hybridsim platform, "
                       "without --)", item);
    *eq = '\0';
    const pg_flag *f = pg__find_flag(item);
    if (!f)
        return hs_fail(err, HS_EINPUT, "unknown flag '%s' (see hybridsim platform --help)", item);
    if (decode_value(eq + 1) != 0)
        return hs_fail(err, HS_EINPUT, "--%s: bad %%-escape in '%s'", item, eq + 1);
    if (given[f - pg_flags])
        return hs_fail(err, HS_EINPUT, "%s= is given twice", item);
    given[f - pg_flags] = 1;
    return pg__set_flag(f, eq + 1, p, err);
}

int pg_spec_parse(const char *spec, pg_params *p, char *store, size_t len, int strict, char *err)
{
    unsigned char given[PG_MAX_FLAGS] = {0};
    if (strncmp(spec, PG_SPEC_PREFIX, strlen(PG_SPEC_PREFIX)) == 0)
        spec += strlen(PG_SPEC_PREFIX);
    if (strlen(spec) >= len)
        return hs_fail(err, HS_EINPUT, "too long (at most %zu characters)", len - 1);
    strcpy(store, spec);
    char *flags = strchr(store, ':');
    if (flags)
        *flags++ = '\0';
    int rc = pg_preset(store[0] ? store : "abci", p, err);
    char *save = NULL;
    for (char *item = flags ? strtok_r(flags, ",", &save) : NULL; item && rc == HS_OK;
         item = strtok_r(NULL, ",", &save))
        rc = spec_flag(item, p, given, err);
    if (rc == HS_OK && strict)
        rc = pg__check_given(given, p, err);
    return rc == HS_OK ? pg_check(p, err) : rc;
}
