/* platcfg.c: the user's SimGrid settings (platcfg.h, platform.h's plat_engine_settings).
 *
 * --cfg NAME:VALUE passes SimGrid settings through: the contexts actors run in, and two debug
 * switches (allowed_cfg). Everything that decides what a run computes (network/..., the
 * models, precisions, plugins, SMPI, ns-3, model checking, the chaos monkey) is refused:
 * hybridsim's results would no longer mean what its documentation says. */
#include "platform.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platcfg.h"

/* The settings, for the one engine of the process (platform_sg.c): module state. */
#define PLAT_MAX_CFG 32
static char *user_cfg[PLAT_MAX_CFG]; /* "name:value", checked */
static int n_user_cfg;

/* The settings a user may change, each with what hybridsim checks of its value itself (SimGrid
 * aborts on some bad values instead of reporting them). Others are refused: the network and
 * the models set what a run computes; precisions change results and abort SimGrid when large;
 * tracing aborts on a file it cannot write; parallel contexts (nthreads > 1) would run actors
 * that share the engine's state at the same time. */
typedef enum { CV_FACTORY, CV_COUNT, CV_ONE, CV_BOOL } cfg_value;
static const struct {
    const char *name;
    cfg_value value;
    long min, max;  /* CV_COUNT */
} allowed_cfg[] = {
    {"contexts/factory", CV_FACTORY, 0, 0},
    {"contexts/stack-size", CV_COUNT, 32, 1 << 20}, /* KiB: the actors need 32 */
    {"contexts/guard-size", CV_COUNT, 0, 64},       /* pages */
    {"contexts/nthreads", CV_ONE, 1, 1},
    {"debug/clean-atexit", CV_BOOL, 0, 0},
    {"debug/verbose-exit", CV_BOOL, 0, 0},
};
#define N_ALLOWED (sizeof allowed_cfg / sizeof allowed_cfg[0])

static int cfg_value_ok(size_t i, const char *value, char *err)
{
    const char *name = allowed_cfg[i].name;
    char *end;
    long v = strtol(value, &end, 10);
    bool number = end != value && *end == '\0';
    switch (allowed_cfg[i].value) {
    case CV_FACTORY:
        if (strcmp(value, "raw") && strcmp(value, "ucontext") && strcmp(value, "boost") &&
            strcmp(value, "thread"))
            return hs_fail(err, HS_EINPUT, "--cfg %s: '%s' is not raw, ucontext, boost or thread",
                           name, value);
        return HS_OK;
    case CV_COUNT:
    case CV_ONE:
        if (!number || v < allowed_cfg[i].min || v > allowed_cfg[i].max)
            return hs_fail(err, HS_EINPUT, "--cfg %s: '%s': give %ld to %ld%s", name, value,
                           allowed_cfg[i].min, allowed_cfg[i].max,
                           allowed_cfg[i].value == CV_ONE
                               ? " (hybridsim's actors share state: they must run one at a time)"
                               : "");
        return HS_OK;
    case CV_BOOL:
        if (strcmp(value, "yes") && strcmp(value, "no") && strcmp(value, "1") && strcmp(value, "0"))
            return hs_fail(err, HS_EINPUT, "--cfg %s: '%s' is not yes or no", name, value);
        return HS_OK;
    }
    return HS_OK;
}

const char *plat_engine_cfg_names(void)
{
    static char names[256];
    if (!names[0])
        for (size_t k = 0, at = 0; k < N_ALLOWED && at < sizeof names; k++)
            at += (size_t)snprintf(names + at, sizeof names - at, "%s%s%s", k ? ", " : "",
                                   allowed_cfg[k].name,
                                   allowed_cfg[k].value == CV_ONE ? ":1" : "");
    return names;
}

int plat_engine_settings(const char *const *cfg, int n, char *err)
{
    for (int i = 0; i < n; i++) {
        const char *colon = strchr(cfg[i], ':');
        int rc;
        if (!colon || colon == cfg[i] || colon[1] == '\0')
            return hs_fail(err, HS_EINPUT, "--cfg %s: expected NAME:VALUE, e.g. "
                           "contexts/guard-size:0", cfg[i]);
        size_t len = (size_t)(colon - cfg[i]), k = 0;
        while (k < N_ALLOWED &&
               (strlen(allowed_cfg[k].name) != len || strncmp(allowed_cfg[k].name, cfg[i], len)))
            k++;
        if (k == N_ALLOWED)
            return hs_fail(err, HS_EINPUT, "--cfg %.*s: not a setting hybridsim passes on: it sets "
                           "the network and the models itself (platforms/README.md); --cfg takes "
                           "%s",
                           (int)len, cfg[i], plat_engine_cfg_names());
        if ((rc = cfg_value_ok(k, colon + 1, err)) != HS_OK)
            return rc;
        if (n_user_cfg == PLAT_MAX_CFG)
            return hs_fail(err, HS_EINPUT, "--cfg: at most %d settings", PLAT_MAX_CFG);
        if (!(user_cfg[n_user_cfg] = strdup(cfg[i])))
            return hs_fail(err, HS_EINTERNAL, "out of memory");
        n_user_cfg++;
    }
    return HS_OK;
}

const char *plat_cfg_at(int i)
{
    return i >= 0 && i < n_user_cfg ? user_cfg[i] : NULL;
}

const char *plat_cfg_value(const char *name)
{
    size_t k = strlen(name);
    const char *found = NULL;
    for (int i = 0; i < n_user_cfg; i++)
        if (strncmp(user_cfg[i], name, k) == 0 && user_cfg[i][k] == ':')
            found = user_cfg[i] + k + 1; /* the last one given wins */
    return found;
}

const char *plat_engine_cfg(const char *name)
{
    return plat_cfg_value(name);
}
