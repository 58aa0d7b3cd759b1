/* workload_load.c: loading a workload (workload.h, wl_load): the name or path resolved, the
 * format sniffed, the reader called (workload_xml.c, workload_paradl.c), then what every format
 * derives (wl__finish in workload.c, the autograd footprint in workload_saved.c).
 *
 * The top of the workloads folder's files: the readers and workload.c's shared helpers sit
 * below it and never call it. */
#define _POSIX_C_SOURCE 200809L
#include "workload_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "hs_names.h"
#include "hs_out.h"

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

static int is_path(const char *spec)
{
    return strchr(spec, '/') || ends_with(spec, ".xml") || ends_with(spec, ".net") ||
           ends_with(spec, ".net_sc");
}

/* XML starts with '<' (after an optional byte-order mark and blanks); ParaDL text never does.
 * Sniffing the content instead of the extension also accepts COSMOFLOW.net_256. */
static int sniff_xml(const char *path, int *is_xml, char *err)
{
    struct stat st; /* a directory or a FIFO (whose open would wait for a writer): said so */
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISCHR(st.st_mode))
        return hs_in_check(path, "workload file", err);
    FILE *f = fopen(path, "rb");
    if (!f)
        return hs_fail(err, HS_EINPUT, "%s: cannot open workload: %s", path, strerror(errno));
    int c;
    do
        c = fgetc(f);
    while (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == 0xEF || c == 0xBB || c == 0xBF);
    int unreadable = ferror(f); /* e.g. a directory */
    fclose(f);
    if (unreadable)
        return hs_fail(err, HS_EINPUT, "%s: cannot read workload (a directory?)", path);
    if (c == EOF) /* else taken for a ParaDL file without its Input line */
        return hs_fail(err, HS_EINPUT, "%s: is empty (a workload file was expected)", path);
    *is_xml = c == '<';
    return HS_OK;
}

int wl_load(const char *spec, wl_workload *wl, char *err)
{
    memset(wl, 0, sizeof *wl);
    if (!spec || !*spec)
        return hs_fail(err, HS_EINPUT, "-w: no workload given (a name in workloads/ or a "
                       "file)");
    int n = is_path(spec) ? snprintf(wl->path, sizeof wl->path, "%s", spec)
                          : snprintf(wl->path, sizeof wl->path, "%s/%s.xml", wl_default_dir(), spec);
    if (n < 0 || (size_t)n >= sizeof wl->path)
        return hs_fail(err, HS_EINPUT, "%s: workload path too long", spec);

    int is_xml = 0;
    int rc = sniff_xml(wl->path, &is_xml, err);
    if (rc != HS_OK) {
        char known[HS_ERR_LEN * 3 / 4]; /* the whole list fits beside a short path */
        hs_known_names(wl_default_dir(), ".xml", known, sizeof known);
        if (!is_path(spec))
            hs_fail(err, HS_EINPUT, "unknown workload '%s' (no %s; known: %s)", spec, wl->path,
                    known);
        memset(wl, 0, sizeof *wl);
        return rc;
    }
    double *layer_time_s = NULL;
    rc = is_xml ? wl__load_xml(wl, &layer_time_s, err) : wl__load_paradl(wl, err);
    if (rc == HS_OK && wl->n_layers == 0)
        rc = hs_fail(err, HS_EINPUT, "%s: the workload has no layers", wl->path);
    if (rc == HS_OK)
        rc = wl__finish(wl, layer_time_s, err);
    if (rc == HS_OK)
        rc = wl__saved(wl, is_xml, err);
    free(layer_time_s);
    if (rc != HS_OK)
        wl_free(wl);
    return rc;
}
