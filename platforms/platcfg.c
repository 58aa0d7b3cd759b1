/* platcfg.c: the user's SimGrid settings (platcfg.h, platform.h's plat_engine_settings).
 *
 * --cfg NAME:VALUE passes SimGrid settings through: contexts/..., maxmin/..., surf/precision,
 * tracing..., and a few debug switches. Everything that decides what a run computes (network/...,
 * host/..., cpu/..., disk/..., plugins, SMPI, ns-3, model checking, the chaos monkey) is refused:
 * hybridsim's results would no longer mean what its documentation says. */
#include "platform.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platcfg.h"

/* The settings, for the one engine of the process (platform_sg.c): module state. */
#define PLAT_MAX_CFG 32
static char *user_cfg[PLAT_MAX_CFG]; /* "name:value", checked */
static int n_user_cfg;

/* The settings a user may change: prefixes, or whole names when they end without '/'. */
static const char *const allowed_cfg[] = {
    "contexts/", "maxmin/", "surf/precision", "tracing", "debug/clean-atexit",
    "debug/verbose-exit", "exception/cutpath"};

static bool cfg_allowed(const char *name, size_t len)
{
    for (size_t i = 0; i < sizeof allowed_cfg / sizeof *allowed_cfg; i++) {
        size_t k = strlen(allowed_cfg[i]);
        if (len >= k && strncmp(name, allowed_cfg[i], k) == 0)
            return true;
    }
    return false;
}

/* A value hybridsim itself must check: SimGrid aborts on a bad factory, and a stack too small
 * for the actors' code crashes the process. */
static int cfg_value_ok(const char *name, const char *value, char *err)
{
    if (strcmp(name, "contexts/factory") == 0 && strcmp(value, "raw") != 0 &&
        strcmp(value, "ucontext") != 0 && strcmp(value, "boost") != 0 &&
        strcmp(value, "thread") != 0)
        return hs_fail(err, HS_EINPUT, "--cfg contexts/factory: '%s' is not raw, ucontext, boost "
                       "or thread", value);
    if (strcmp(name, "contexts/stack-size") == 0 && (atol(value) < 32 || atol(value) > 1 << 20))
        return hs_fail(err, HS_EINPUT, "--cfg contexts/stack-size: '%s' KiB: give 32 to 1048576 "
                       "(the actors need 32)", value);
    return HS_OK;
}

int plat_engine_settings(const char *const *cfg, int n, char *err)
{
    for (int i = 0; i < n; i++) {
        const char *colon = strchr(cfg[i], ':');
        int rc;
        if (!colon || colon == cfg[i] || colon[1] == '\0')
            return hs_fail(err, HS_EINPUT, "--cfg %s: expected NAME:VALUE, e.g. "
                           "contexts/guard-size:0", cfg[i]);
        size_t len = (size_t)(colon - cfg[i]);
        if (!cfg_allowed(cfg[i], len))
            return hs_fail(err, HS_EINPUT, "--cfg %.*s: hybridsim sets the network and the models "
                           "itself (platforms/README.md); --cfg takes contexts/*, maxmin/*, "
                           "surf/precision, tracing*, debug/clean-atexit, debug/verbose-exit, "
                           "exception/cutpath", (int)len, cfg[i]);
        char name[128];
        snprintf(name, sizeof name, "%.*s", (int)len, cfg[i]);
        if ((rc = cfg_value_ok(name, colon + 1, err)) != HS_OK)
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
