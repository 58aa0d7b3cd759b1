/* cli_exec.c: handing a command to hybridsim-sim (cli_int.h): the process's arguments kept,
 * the full program run in their place (cli_exec_full), and a platform opened with the routes
 * the analytic model reads, loaded into SimGrid or handed over (cli_open_routes). Below every
 * command that may need SimGrid; above only cli_child.c. */
#include "cli_int.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hs_out.h"

/* The process's arguments, for cli_exec_full: the one piece of module state. */
static char **cli_argv;

void cli_exec_keep_argv(char **argv)
{
    cli_argv = argv;
}

/* The full program beside this executable. */
#define CLI_FULL_NAME "hybridsim-sim"

int cli_exec_full(char *err)
{
    char self[PATH_MAX], full[PATH_MAX + sizeof CLI_FULL_NAME];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return hs_fail(err, HS_EINTERNAL, "cannot find this executable (/proc/self/exe): %s",
                       strerror(errno));
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    snprintf(full, sizeof full, "%.*s/%s", slash ? (int)(slash - self) : 0, self, CLI_FULL_NAME);
    /* A simulation allocates and frees millions of small SimGrid objects (activities, their
     * sharing variables) across all ranks in turn. glibc keeps only 7 freed chunks a size in
     * its per-thread cache; the rest go to bins it later sorts and merges, scattered over the
     * heap, and with thousands of ranks every event then misses the CPU caches: ResNet-50
     * data+filter on 8,192 GPUs 13.1 s, 9.8 s with the cache holding up to 65,535 chunks a
     * size (README "Speed"). The user's own GLIBC_TUNABLES is left alone. */
    setenv("GLIBC_TUNABLES", "glibc.malloc.tcache_count=65535", 0);
    return cli_child_run(full, cli_argv, err);
}

int cli_open_routes(const char *spec, const cli_sim *sim, plat_platform *plat, char *err)
{
    int status = plat_open(spec, plat, err);
    if (status != HS_OK || plat_routes_known(plat))
        return status;
    status = sim ? sim->load(plat, err) : cli_exec_full(err);
    if (status != HS_OK)
        plat_free(plat);
    return status;
}
