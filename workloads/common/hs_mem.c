/* hs_mem.c: the limits on this process's memory, and whether a run fits them (hs_mem.h).
 *
 * Linux counts them differently, so each is compared with what it counts: RLIMIT_AS with the
 * address space mapped (VmSize: an actor's whole stack counts, touched or not), RLIMIT_DATA with
 * private writable mappings (VmData; Linux 4.7 on), a cgroup and MemAvailable with memory
 * actually touched. A limit of "unlimited" (RLIM_INFINITY, "max", v1's 2^63 - page) is none. */
#define _GNU_SOURCE
#include "hs_mem.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "hs_error.h"

#define GB 1e9
#define TIB 1099511627776.0
#define HS_MEM_NONE 4e18 /* a cgroup limit this large (v1 writes 2^63 - 4096) is no limit */

double hs_mem_file_number(const char *path, const char *key)
{
    FILE *f = fopen(path, "r");
    char line[512];
    double v = -1;
    if (!f)
        return -1;
    while (v < 0 && fgets(line, sizeof line, f)) {
        size_t k = key ? strlen(key) : 0;
        if (key && (strncmp(line, key, k) != 0 || (line[k] != ' ' && line[k] != ':')))
            continue;
        char *end, *at = line + k + (key != NULL);
        double x = strtod(at, &end);
        if (end != at)
            v = x;
    }
    fclose(f);
    return v;
}

/* A limit from getrlimit, in bytes; -1 when unlimited. */
static double rlimit_bytes(int resource)
{
    struct rlimit rl;
    if (getrlimit(resource, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
        return -1;
    return (double)rl.rlim_cur;
}

/* The address space a process has here: the end of its highest mapping (its stack, near the
 * top) rounded up to a power of two (128 TiB on x86-64's 47 bits); -1 if unknown. */
static double machine_address_bytes(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[512];
    uint64_t top = 0;
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f)) {
        unsigned long long lo, hi;
        if (sscanf(line, "%llx-%llx", &lo, &hi) == 2 && hi < (1ULL << 62) && hi > top)
            top = hi; /* [vsyscall] lies above 2^63: kernel space */
    }
    fclose(f);
    if (!top)
        return -1;
    uint64_t size = 1;
    while (size < top)
        size <<= 1;
    return (double)size;
}

/* A cgroup directory's limit and use: v2 (memory.max, memory.high) or v1. Lowers *limit (and
 * fills the rest) when this one is smaller. */
static void cgroup_dir(const char *dir, int v2, double *limit, double *in_use, char *which,
                       size_t which_len)
{
    static const char *const v2_files[] = {"memory.max", "memory.high"};
    char path[4096];
    for (int i = 0; i < (v2 ? 2 : 1); i++) {
        const char *name = v2 ? v2_files[i] : "memory.limit_in_bytes";
        snprintf(path, sizeof path, "%.4000s/%s", dir, name);
        double v = hs_mem_file_number(path, NULL); /* "max" reads as no number */
        if (v <= 0 || v >= HS_MEM_NONE || (*limit > 0 && v >= *limit))
            continue;
        *limit = v;
        snprintf(which, which_len, "%s", path);
        snprintf(path, sizeof path, "%.4000s/%s", dir,
                 v2 ? "memory.current" : "memory.usage_in_bytes");
        double used = hs_mem_file_number(path, NULL);
        snprintf(path, sizeof path, "%.4000s/memory.stat", dir);
        double cache = hs_mem_file_number(path, v2 ? "inactive_file" : "total_inactive_file");
        *in_use = (used > 0 ? used : 0) - (cache > 0 ? cache : 0);
        if (*in_use < 0)
            *in_use = 0;
    }
}

/* The process's cgroup path in hierarchy `v2` (0::/PATH) or v1's memory controller. */
static int cgroup_path(const char *cgroup_file, int v2, char *out, size_t len)
{
    FILE *f = fopen(cgroup_file, "r");
    char line[4096];
    int found = -1;
    if (!f)
        return -1;
    while (found < 0 && fgets(line, sizeof line, f)) {
        char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (!c2)
            continue;
        *c2 = '\0';
        int match = v2 ? c1[1] == '\0' && strncmp(line, "0:", 2) == 0
                       : strstr(c1 + 1, "memory") != NULL;
        c2[1 + strcspn(c2 + 1, "\n")] = '\0';
        if (match)
            found = snprintf(out, len, "%s", c2 + 1) < (int)len ? 0 : -1;
    }
    fclose(f);
    return found;
}

/* The mount of hierarchy v2 (cgroup2) or of v1's memory controller: its mount point and the
 * cgroup path its root shows. */
static int cgroup_mount(const char *mountinfo, int v2, char *point, char *root, size_t len)
{
    FILE *f = fopen(mountinfo, "r");
    char line[4096];
    int found = -1;
    if (!f)
        return -1;
    while (found < 0 && fgets(line, sizeof line, f)) {
        char r[2048], p[2048], type[64], opts[1024];
        const char *dash = strstr(line, " - ");
        if (!dash || sscanf(line, "%*s %*s %*s %2047s %2047s", r, p) != 2 ||
            sscanf(dash + 3, "%63s %*s %1023s", type, opts) != 2)
            continue;
        int match = v2 ? strcmp(type, "cgroup2") == 0
                       : strcmp(type, "cgroup") == 0 &&
                             (strstr(opts, ",memory") || strncmp(opts, "memory", 6) == 0);
        if (match && strlen(p) < len && strlen(r) < len) {
            strcpy(point, p);
            strcpy(root, r);
            found = 0;
        }
    }
    fclose(f);
    return found;
}

int hs_mem_cgroup(const char *cgroup_file, const char *mountinfo, double *limit_bytes,
                  double *in_use_bytes, char *which, size_t which_len)
{
    *limit_bytes = -1;
    *in_use_bytes = 0;
    for (int v2 = 1; v2 >= 0; v2--) {
        char path[2048], point[2048], root[2048], dir[4096];
        if (cgroup_path(cgroup_file, v2, path, sizeof path) != 0 ||
            cgroup_mount(mountinfo, v2, point, root, sizeof point) != 0)
            continue;
        size_t k = strlen(root);
        const char *rel = strcmp(root, "/") == 0 ? path
                          : strncmp(path, root, k) == 0 && (!path[k] || path[k] == '/')
                              ? path + k
                              : ""; /* another cgroup namespace: the mount is ours */
        snprintf(dir, sizeof dir, "%s%s", point, strcmp(rel, "/") == 0 ? "" : rel);
        for (;;) { /* the cgroup and each ancestor up to the mount point */
            cgroup_dir(dir, v2, limit_bytes, in_use_bytes, which, which_len);
            char *slash = strrchr(dir, '/');
            if (strlen(dir) <= strlen(point) || !slash || slash == dir)
                break;
            *slash = '\0';
        }
    }
    return *limit_bytes > 0 ? 0 : -1;
}

/* Everything in force: the process's own size now and every limit (-1: none). */
typedef struct {
    double size_bytes, data_bytes;      /* VmSize, VmData now */
    double as_limit, data_limit;        /* RLIMIT_AS, RLIMIT_DATA */
    double machine_bytes;               /* a process's address space here */
    double cg_limit, cg_in_use;         /* the memory cgroup */
    char cg_file[512];                  /* the file that sets it */
    double available_bytes;             /* MemAvailable */
} mem_limits;

static void read_limits(mem_limits *m)
{
    m->size_bytes = hs_mem_file_number("/proc/self/status", "VmSize") * 1024;
    m->data_bytes = hs_mem_file_number("/proc/self/status", "VmData") * 1024;
    m->as_limit = rlimit_bytes(RLIMIT_AS);
    m->data_limit = rlimit_bytes(RLIMIT_DATA);
    m->machine_bytes = machine_address_bytes();
    if (hs_mem_cgroup("/proc/self/cgroup", "/proc/self/mountinfo", &m->cg_limit, &m->cg_in_use,
                      m->cg_file, sizeof m->cg_file) != 0)
        m->cg_limit = -1;
    double kib = hs_mem_file_number("/proc/meminfo", "MemAvailable");
    m->available_bytes = kib > 0 ? kib * 1024 : -1;
}

/* Bytes as GB for a message: one decimal, two significant digits below 1 GB (0.061 GB). */
static const char *gb(double bytes, char buf[32])
{
    snprintf(buf, 32, bytes >= GB ? "%.1f" : "%.2g", bytes / GB);
    return buf;
}

int hs_mem_check(const hs_mem_need *need, const char *what, const char *advice, char *err)
{
    mem_limits m;
    read_limits(&m);
    double as = (m.size_bytes > 0 ? m.size_bytes : 0) + need->address_bytes;
    double data = (m.data_bytes > 0 ? m.data_bytes : 0) + need->data_bytes;
    char a[32], b[32], c[32];
    if (m.as_limit > 0 && as > m.as_limit)
        return hs_fail(err, HS_EINPUT, "%s needs about %s GB of address space; the address-"
                       "space limit (ulimit -v) is %s GB: %s", what, gb(as, a),
                       gb(m.as_limit, b), advice);
    if (m.data_limit > 0 && data > m.data_limit)
        return hs_fail(err, HS_EINPUT, "%s needs about %s GB of data memory; the data-segment "
                       "limit (ulimit -d) is %s GB: %s", what, gb(data, a), gb(m.data_limit, b),
                       advice);
    if (m.machine_bytes > 0 && as > m.machine_bytes)
        return hs_fail(err, HS_EINPUT, "%s needs about %.0f TiB of address space; a process has "
                       "%.0f TiB on this machine: %s", what, as / TIB, m.machine_bytes / TIB,
                       advice);
    if (m.cg_limit > 0 && m.cg_in_use + need->resident_bytes > m.cg_limit)
        return hs_fail(err, HS_EINPUT, "%s needs about %s GB of memory; the memory cgroup's "
                       "limit (%s) is %s GB, %s GB of it in use: %s", what,
                       gb(need->resident_bytes, a), m.cg_file, gb(m.cg_limit, b),
                       gb(m.cg_in_use, c), advice);
    if (m.available_bytes > 0 && need->resident_bytes > m.available_bytes)
        return hs_fail(err, HS_EINPUT, "%s needs about %s GB of memory; %s GB are available "
                       "(MemAvailable): %s", what, gb(need->resident_bytes, a),
                       gb(m.available_bytes, b), advice);
    return HS_OK;
}

void hs_mem_describe(char *buf, size_t len)
{
    mem_limits m;
    read_limits(&m);
    size_t n = 0;
    char a[32];
    buf[0] = '\0';
    if (m.as_limit > 0)
        n += (size_t)snprintf(buf + n, len - n, "%sthe address-space limit (ulimit -v) is %s GB",
                              n ? ", " : "", gb(m.as_limit, a));
    if (m.data_limit > 0 && n < len)
        n += (size_t)snprintf(buf + n, len - n, "%sthe data-segment limit (ulimit -d) is %s GB",
                              n ? ", " : "", gb(m.data_limit, a));
    if (m.cg_limit > 0 && n < len)
        snprintf(buf + n, len - n, "%sthe memory cgroup's limit (%s) is %s GB", n ? ", " : "",
                 m.cg_file, gb(m.cg_limit, a));
}
