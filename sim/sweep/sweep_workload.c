/* sweep_workload.c: the plan's check that a workload loads (sw_check_workload, sweep_int.h),
 * remembered per file so that a process making many plans loads each file once.
 *
 * The driver only needs to know that a workload loads (each run loads its own in its own
 * process), and a plan is made once per sweep; but a process that makes a plan per input (the
 * fuzz harnesses fuzz_sweep_file and fuzz_sweep_flags, thousands of plans naming the same two
 * models) spent most of its time parsing the same XML again. A success is remembered with the
 * identity of the file it read (device, inode, size, modification and change times): a file
 * written since, or a name that resolves elsewhere (HYBRIDSIM_HOME changed), is loaded again.
 * (The DTD a workload is validated against is hybridsim's own, not an input: not watched.)
 * Failures are not remembered: their message names the file and what is wrong, and a failing
 * plan stops the sweep, so it costs one load. Nothing loaded is kept, only the verdict, so no
 * workload is shared. Single-threaded, as the sweep's driver is. */
#include "sweep_int.h"

#include <string.h>
#include <sys/stat.h>

#include "hs_error.h"
#include "workload.h"

#define SW_WL_CACHED 8 /* files remembered; a sweep names a few workloads */

/* One workload that loaded. */
typedef struct {
    char spec[256];          /* the name or path the user gave */
    char dir[1024];          /* wl_default_dir() then: where a short name was looked up */
    char path[1024];         /* the file it loaded (wl_workload.path) */
    struct stat st;          /* that file's identity and times when it loaded */
} sw_wl_seen;

static sw_wl_seen seen[SW_WL_CACHED];
static int n_seen, next_slot; /* entries used; the one replaced next when full */

static bool same_file(const struct stat *a, const struct stat *b)
{
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
           a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
           a->st_ctim.tv_sec == b->st_ctim.tv_sec && a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

/* Did spec load from a file that is unchanged since? */
static bool loaded_before(const char *spec, const char *dir)
{
    struct stat now;
    for (int i = 0; i < n_seen; i++)
        if (strcmp(seen[i].spec, spec) == 0 && strcmp(seen[i].dir, dir) == 0)
            return stat(seen[i].path, &now) == 0 && same_file(&now, &seen[i].st);
    return false;
}

static void remember(const char *spec, const char *dir, const char *path, const struct stat *st)
{
    if (strlen(spec) >= sizeof seen[0].spec || strlen(dir) >= sizeof seen[0].dir)
        return; /* not remembered: loaded again next time */
    int i = 0;
    while (i < n_seen && !(strcmp(seen[i].spec, spec) == 0 && strcmp(seen[i].dir, dir) == 0))
        i++;
    if (i == n_seen) {
        i = n_seen < SW_WL_CACHED ? n_seen++ : next_slot;
        next_slot = (i + 1) % SW_WL_CACHED;
    }
    snprintf(seen[i].spec, sizeof seen[i].spec, "%s", spec);
    snprintf(seen[i].dir, sizeof seen[i].dir, "%s", dir);
    snprintf(seen[i].path, sizeof seen[i].path, "%s", path); /* both 1024 bytes */
    seen[i].st = *st;
}

int sw_check_workload(const sw_item *it, char *err)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", wl_default_dir()); /* its buffer is rewritten per call */
    if (loaded_before(it->text, dir))
        return HS_OK;
    wl_workload wl;
    char why[HS_ERR_LEN];
    int status = wl_load(it->text, &wl, why);
    if (status != HS_OK)
        return hs_fail(err, status, "%s: %s", it->where, why);
    /* The file's identity once read (its path is known only now): a write between the load
     * and this stat would go unseen, as a sweep's inputs are not written while it plans. */
    struct stat st;
    if (stat(wl.path, &st) == 0)
        remember(it->text, dir, wl.path, &st);
    wl_free(&wl);
    return HS_OK;
}
