/* fabric_spec.c: the --job and --background texts, parsed and checked (fabric_int.h).
 *
 * A spec is KEY=VALUE items joined by commas; lists of nodes, GPUs or racks are ranges joined
 * by '+' (hs_parse_ranges). Every message starts with the flag and its position ("--job 2:"),
 * since that is what the user can find and fix. */
#include "fabric_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hs_parse.h"
#include "units.h"

void fb_list_free(fb_list *l)
{
    free(l->v);
    l->v = NULL;
    l->n = 0;
}

int fb_flows_of(const fb_background *bg)
{
    return bg->from.n > bg->to.n ? bg->from.n : bg->to.n;
}

/* "a" or "a-b" items joined by '+', every value in [0, max], expanded into l. */
static int parse_list(const char *flag, const char *key, const char *text, long max, fb_list *l,
                      char *err)
{
    fb_list_free(l);
    hs_ranges r;
    hs_ranges_status status = hs_parse_ranges(text, '+', &r, NULL, NULL);
    /* the items read before a malformed one are checked first, in order */
    int n_read = status == HS_RANGES_REVERSED ? r.n + 1 : r.n;
    int rc = HS_OK;
    for (int i = 0; i < n_read && rc == HS_OK; i++)
        if (r.range[i][0] > r.range[i][1])
            rc = hs_fail(err, HS_EINPUT, "%s: %s='%s': '%lld-%lld' is not a range from low to "
                         "high", flag, key, text, (long long)r.range[i][0],
                         (long long)r.range[i][1]);
        else if (r.range[i][1] > max)
            rc = hs_fail(err, HS_EINPUT, "%s: %s='%s': range %lld-%lld is not within 0-%ld",
                         flag, key, text, (long long)r.range[i][0], (long long)r.range[i][1],
                         max);
    if (rc == HS_OK && status == HS_RANGES_NO_MEMORY)
        rc = hs_fail(err, HS_EINTERNAL, "out of memory for %s", flag);
    else if (rc == HS_OK && status != HS_RANGES_OK)
        rc = hs_fail(err, HS_EINPUT, "%s: %s='%s' is not a list of ranges like 0-15+32-47", flag,
                     key, text);
    long total = 0;
    for (int i = 0; rc == HS_OK && i < r.n; i++)
        total += (long)(r.range[i][1] - r.range[i][0] + 1);
    if (rc == HS_OK && !(l->v = malloc((size_t)(total ? total : 1) * sizeof *l->v)))
        rc = hs_fail(err, HS_EINTERNAL, "out of memory for %s", flag);
    for (int i = 0; rc == HS_OK && i < r.n; i++)
        for (int64_t x = r.range[i][0]; x <= r.range[i][1]; x++)
            l->v[l->n++] = (int)x;
    hs_ranges_free(&r);
    return rc;
}

/* The next "key=value" of a comma-separated spec (cut in place); 0 at the end, -1 if malformed. */
static int next_pair(char **cursor, char **key, char **value)
{
    if (!*cursor)
        return 0;
    char *item = *cursor;
    char *comma = strchr(item, ',');
    if (comma)
        *comma = '\0';
    *cursor = comma ? comma + 1 : NULL;
    char *eq = strchr(item, '=');
    *key = item;
    if (!eq || eq == item)
        return -1;
    *eq = '\0';
    *value = eq + 1;
    return 1;
}

/* The keys a --job takes, for the message naming an unknown one, into known. */
static void job_keys_known(char *known, size_t size)
{
    size_t n = 0;
    for (int k = 0; k < js_n_keys && n < size; k++)
        if (js_keys[k].scope & JS_IN_FABRIC)
            n += (size_t)(js_keys[k].short_flag
                              ? snprintf(known + n, size - n, "%c (%s), ", js_keys[k].short_flag,
                                         js_keys[k].name)
                              : snprintf(known + n, size - n, "%s, ", js_keys[k].name));
    if (n < size)
        snprintf(known + n, size - n, "name, gpus (a list of GPUs), racks, placement");
}

/* One key=value of a --job: the fabric's own keys (name, placement, gpus, racks), each once
 * (bit i of *seen: own_keys[i]), or a job key the fabric takes (js_keys, JS_IN_FABRIC). */
static const char *const own_keys[] = {"name", "placement", "gpus", "racks"};
#define FB_KEY_PLACEMENT 1 /* its bit in *seen */

static int parse_job_pair(fb_job *j, const char *flag, const char *key, const char *value,
                          const plat_platform *plat, unsigned *seen, char *err)
{
    char where[64];
    snprintf(where, sizeof where, "%s: %s", flag, key);
    bool own = false;
    for (unsigned i = 0; i < sizeof own_keys / sizeof *own_keys; i++)
        if (strcmp(key, own_keys[i]) == 0) {
            if (*seen & (1u << i))
                return hs_fail(err, HS_EINPUT, "%s is given twice", where);
            *seen |= 1u << i;
            own = true;
        }
    int k = own ? -1 : js_find_job_key(key);
    if (k >= 0 && (js_keys[k].scope & JS_IN_FABRIC))
        return js_set(&j->spec, k, value, where, err);
    if (k >= 0)
        return hs_fail(err, HS_EINPUT, "%s= is for single runs, not --job", where);
    if (strcmp(key, "name") == 0) {
        if (!value[0] || strlen(value) >= sizeof j->name || strpbrk(value, "\"\\"))
            return hs_fail(err, HS_EINPUT, "%s: name='%s' must be 1 to %zu characters without "
                           "quotes or backslashes", flag, value, sizeof j->name - 1);
        strcpy(j->name, value);
    } else if (strcmp(key, "placement") == 0) {
        char perr[HS_ERR_LEN];
        if (pl_parse(value, &j->placement, perr) != HS_OK)
            return hs_fail(err, HS_EINPUT, "%s: placement='%s' is not packed or spread", flag,
                           value);
    } else if (strcmp(key, "gpus") == 0) {
        return parse_list(flag, key, value, plat->n_gpus - 1, &j->gpu_list, err);
    } else if (strcmp(key, "racks") == 0) {
        return parse_list(flag, key, value, pl_racks(plat) - 1, &j->racks, err);
    } else {
        char known[512];
        job_keys_known(known, sizeof known);
        return hs_fail(err, HS_EINPUT, "%s: unknown key '%s' (known: %s)", flag, key, known);
    }
    return HS_OK;
}

/* The keys a spec must have, and how gpus=, g=, racks= and placement= go together. */
static int check_job(fb_job *j, const char *flag, unsigned seen, char *err)
{
    if (!j->spec.workload)
        return hs_fail(err, HS_EINPUT, "%s: w=WORKLOAD is required", flag);
    if (!j->spec.strategy)
        return hs_fail(err, HS_EINPUT, "%s: s=STRATEGY is required", flag);
    if (!j->spec.batch)
        return hs_fail(err, HS_EINPUT, "%s: b=BATCH is required", flag);
    if (j->gpu_list.n) {
        if (j->racks.n || (seen & (1u << FB_KEY_PLACEMENT)))
            return hs_fail(err, HS_EINPUT, "%s: gpus= names the GPUs; racks= and placement= "
                           "are for jobs without it", flag);
        if (j->spec.gpus && j->spec.gpus != j->gpu_list.n)
            return hs_fail(err, HS_EINPUT, "%s: g=%d but gpus= lists %d GPUs", flag,
                           j->spec.gpus, j->gpu_list.n);
        j->spec.gpus = j->gpu_list.n;
    }
    if (!j->spec.gpus)
        return hs_fail(err, HS_EINPUT, "%s: g=GPUS (or gpus=LIST) is required", flag);
    return HS_OK;
}

int fb_parse_job(const char *text, int index, const plat_platform *plat, fb_job *j, char *err)
{
    char flag[32];
    snprintf(flag, sizeof flag, "--job %d", index);
    j->index = index;
    j->placement = PL_PACKED;
    snprintf(j->name, sizeof j->name, "job%d", index);
    j->text = strdup(text);
    if (!j->text)
        return hs_fail(err, HS_EINTERNAL, "out of memory for %s", flag);
    char *cursor = j->text, *key, *value;
    unsigned seen = 0;
    int rc;
    while ((rc = next_pair(&cursor, &key, &value)) != 0) {
        if (rc < 0)
            return hs_fail(err, HS_EINPUT, "%s: '%s' is not KEY=VALUE (e.g. \"w=resnet50,"
                           "s=data,g=64,b=2048\")", flag, key);
        int status = parse_job_pair(j, flag, key, value, plat, &seen, err);
        if (status != HS_OK)
            return status;
    }
    return check_job(j, flag, seen, err);
}

/* One key=value of a --background; *have_rate and *have_gpu say which were given. */
static int parse_background_pair(fb_background *bg, const char *flag, const char *key,
                                  const char *value, const plat_platform *plat, bool *have_rate,
                                  bool *have_gpu, char *err)
{
    int64_t v = 0;
    if (strcmp(key, "from") == 0 && !bg->from.n)
        return parse_list(flag, key, value, plat->n_nodes - 1, &bg->from, err);
    if (strcmp(key, "to") == 0 && !bg->to.n)
        return parse_list(flag, key, value, plat->n_nodes - 1, &bg->to, err);
    if (strcmp(key, "rate") == 0 && !*have_rate) {
        *have_rate = true;
        if (un_parse(value, UN_BANDWIDTH, &bg->rate_Bps) != 0 || !(bg->rate_Bps > 0) ||
            !isfinite(bg->rate_Bps))
            return hs_fail(err, HS_EINPUT, "%s: rate='%s' is not a positive bandwidth (%s)",
                           flag, value, un_hint(UN_BANDWIDTH));
        return HS_OK;
    }
    if (strcmp(key, "gpu") == 0 && !*have_gpu) {
        *have_gpu = true;
        if (value[0] < '0' || value[0] > '9' ||
            hs_parse_whole(value, (size_t)-1, 0, plat->gpus_per_node - 1, &v) != HS_NUM_OK)
            return hs_fail(err, HS_EINPUT, "%s: gpu='%s' is not a GPU of a node (0-%d)", flag,
                           value, plat->gpus_per_node - 1);
        bg->gpu = (int)v;
        return HS_OK;
    }
    return hs_fail(err, HS_EINPUT, "%s: unknown or repeated key '%s' (known: from, to, rate, "
                   "gpu)", flag, key);
}

int fb_parse_background(const char *text, int index, const plat_platform *plat,
                        fb_background *bg, char *err)
{
    char flag[40];
    snprintf(flag, sizeof flag, "--background %d", index);
    bg->index = index;
    char *copy = strdup(text);
    if (!copy)
        return hs_fail(err, HS_EINTERNAL, "out of memory for %s", flag);
    char *cursor = copy, *key, *value;
    int rc, status = HS_OK;
    bool have_rate = false, have_gpu = false;
    while (status == HS_OK && (rc = next_pair(&cursor, &key, &value)) != 0)
        status = rc < 0 ? hs_fail(err, HS_EINPUT, "%s: '%s' is not KEY=VALUE (e.g. \"from=0-15,"
                                  "to=34-49,rate=5GBps\")", flag, key)
                        : parse_background_pair(bg, flag, key, value, plat, &have_rate,
                                                &have_gpu, err);
    free(copy);
    if (status != HS_OK)
        return status;
    if (!bg->from.n || !bg->to.n || !have_rate)
        return hs_fail(err, HS_EINPUT, "%s: from=NODES, to=NODES and rate=BANDWIDTH are "
                       "required", flag);
    for (int i = 0; i < fb_flows_of(bg); i++)
        if (bg->from.v[i % bg->from.n] == bg->to.v[i % bg->to.n])
            return hs_fail(err, HS_EINPUT, "%s: flow %d goes from node %d to itself", flag, i + 1,
                           bg->to.v[i % bg->to.n]);
    return HS_OK;
}
