/* platform.c: what a platform is, without SimGrid (platform.h): a spec opened, a generated
 * file recognised by its digest, the routes of either kind of machine answered.
 *
 * A file is "generated" when it ends with the digest of everything before it and records the
 * generator's parameters and layout version (platgen_walk.c's properties): it is then exactly
 * what those parameters generate, so nothing else of it is read, and the checker's 0.2 s on
 * ABCI (1.3 s on 17,408 GPUs) is spent on hashing it (a few ms). Any mismatch (an edit, another
 * layout version, parameters this build does not read) falls back on the full check: such a
 * file is read as any hand-written one, and its routes come from SimGrid. */
#define _GNU_SOURCE
#include "platform.h"

#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hs_names.h"
#include "platcheck.h"
#include "platdigest.h"
#include "platroute.h"
#include "units.h"

const char *plat_default_dir(void) { return HYBRIDSIM_SOURCE_DIR "/platforms"; }

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* A path is used as given; a short name ("abci") is looked up as platforms/<name>.xml under
 * HYBRIDSIM_HOME when set, else in the source tree. */
static int resolve(const char *spec, char *path, size_t len, char *err)
{
    const char *home = getenv("HYBRIDSIM_HOME");
    char dir[1024];
    int n;
    if (spec == NULL || spec[0] == '\0')
        return hs_fail(err, HS_EINPUT, "-p: no platform given (a name in platforms/, a file "
                       "or gen:PRESET)");
    if (strchr(spec, '/') || ends_with(spec, ".xml"))
        return snprintf(path, len, "%s", spec) < (int)len
                   ? HS_OK : hs_fail(err, HS_EINPUT, "platform '%s': path too long", spec);
    if (home && home[0])
        snprintf(dir, sizeof dir, "%s/platforms", home);
    else
        snprintf(dir, sizeof dir, "%s", plat_default_dir());
    n = snprintf(path, len, "%s/%s.xml", dir, spec);
    if (n < 0 || (size_t)n >= len)
        return hs_fail(err, HS_EINPUT, "platform '%s': path too long", spec);
    if (access(path, F_OK) != 0) { /* a short name that is none: say which there are */
        char known[HS_ERR_LEN / 2];
        hs_known_names(dir, ".xml", known, sizeof known);
        return hs_fail(err, HS_EINPUT, "unknown platform '%s' (no %s; known: %s)", spec, path,
                       known);
    }
    return HS_OK;
}

/* "dir/abci.xml" -> "abci" */
static void stem(const char *path, char *name, size_t len)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t n = strlen(base);
    if (ends_with(base, ".xml"))
        n -= 4;
    snprintf(name, len, "%.*s", (int)n, base);
}

/* ---------------------------------------------------------------- generated machines */

/* Parse a spec into plat->gen (with room for its text values after it). */
static int open_params(plat_platform *plat, const char *spec, int strict, char *err)
{
    size_t store = strlen(spec) + 1;
    plat->gen = malloc(sizeof *plat->gen + store);
    if (!plat->gen)
        return hs_fail(err, HS_EINTERNAL, "out of memory for the platform's parameters");
    return pg_spec_parse(spec, plat->gen, (char *)(plat->gen + 1), store, strict, err);
}

/* The machine's facts from its parameters, as a file of them says them (same text, same
 * doubles: the GPU speed is the host's text as SimGrid reads it). */
static int facts_from_params(plat_platform *plat, char *err)
{
    const pg_params *p = plat->gen;
    char speed[40];
    if (strlen(p->gpu_model) >= sizeof plat->gpu_model)
        return hs_fail(err, HS_EINPUT, "gpu-model: at most %d characters",
                       (int)sizeof plat->gpu_model - 1);
    plat->n_nodes = p->nodes;
    plat->gpus_per_node = p->gpus_per_node;
    plat->n_gpus = p->nodes * p->gpus_per_node;
    plat->nodes_per_leaf = p->nodes_per_leaf;
    plat->nodes_per_rack = p->nodes_per_leaf * p->leaves_per_rack;
    plat->gpu_memory_bytes = p->gpu_memory_bytes;
    plat->staging_latency_s = p->staging_latency_s;
    snprintf(plat->gpu_model, sizeof plat->gpu_model, "%s", p->gpu_model);
    snprintf(plat->gpu_device, sizeof plat->gpu_device, "%s", p->gpu_device ? p->gpu_device : "");
    un_format(p->gpu_speed_flops, UN_SPEED, speed, sizeof speed);
    un_parse(speed, UN_SPEED, &plat->gpu_speed_flops);
    return pm_open(p, &plat->machine, err);
}

/* The value of root property `id` in the head of a generated file, XML entities undone. */
static int head_prop(const char *data, size_t size, const char *id, char *out, size_t len)
{
    char key[96];
    snprintf(key, sizeof key, "<prop id=\"%s\" value=\"", id);
    size_t head = size < 65536 ? size : 65536, k = strlen(key), n = 0;
    const char *at = memmem(data, head, key, k);
    if (!at)
        return -1;
    static const struct { const char *entity; char c; } ents[] = {
        {"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}};
    for (const char *c = at + k; c < data + head && *c != '"'; c++) {
        if (n + 1 >= len)
            return -1;
        size_t e = 0;
        while (e < 4 && strncmp(c, ents[e].entity, strlen(ents[e].entity)) != 0)
            e++;
        out[n++] = e < 4 ? ents[e].c : *c;
        if (e < 4)
            c += strlen(ents[e].entity) - 1;
    }
    out[n] = '\0';
    return 0;
}

/* Does the mapped file end with the digest of everything before it, and record its layout and
 * parameters? Then the parameters into spec. */
static bool generated_file(const char *data, size_t size, char *spec, size_t len)
{
    size_t open = strlen(PD_OPEN), close = strlen(PD_CLOSE), tail = open + PD_HEX + close;
    char hex[PD_HEX + 1], layout[16], expect[16];
    if (size < tail)
        return false;
    const char *d = data + size - tail;
    if (memcmp(d, PD_OPEN, open) != 0 || memcmp(d + open + PD_HEX, PD_CLOSE, close) != 0)
        return false;
    memcpy(hex, d + open, PD_HEX);
    hex[PD_HEX] = '\0';
    char *end;
    unsigned long long digest = strtoull(hex, &end, 16);
    if (*end != '\0' || digest != pd_digest(data, size - tail))
        return false;
    snprintf(expect, sizeof expect, "%d", PG_LAYOUT_VERSION);
    return head_prop(data, size, "hybridsim:generator_layout", layout, sizeof layout) == 0 &&
           strcmp(layout, expect) == 0 &&
           head_prop(data, size, "hybridsim:generator", spec, len) == 0;
}

/* Open plat->path as a generated file if it is one: 1 when it is, 0 when it must be checked
 * in full (not generated, or unreadable: the check reports why). */
static int try_generated(plat_platform *plat)
{
    char spec[4096], err[HS_ERR_LEN];
    struct stat st;
    int fd = open(plat->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC); /* a FIFO: not waited for */
    if (fd < 0)
        return 0;
    bool found = false;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
        void *data = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
        if (data != MAP_FAILED) {
            found = generated_file(data, (size_t)st.st_size, spec, sizeof spec);
            munmap(data, (size_t)st.st_size);
        }
    }
    close(fd);
    if (found && (open_params(plat, spec, 0, err) != HS_OK || facts_from_params(plat, err) != HS_OK))
        found = false;
    if (!found) { /* not ours after all: start over with the full check */
        pm_free(plat->machine);
        free(plat->gen);
        plat->machine = NULL;
        plat->gen = NULL;
    }
    return found;
}

/* ---------------------------------------------------------------- hand-written files */

static int open_checked(plat_platform *plat, char *err)
{
    plat_facts *f = calloc(1, sizeof *f);
    if (!f)
        return hs_fail(err, HS_EINTERNAL, "out of memory");
    int rc = plat_check_file(plat->path, f, err);
    if (rc != HS_OK) {
        free(f);
        return rc;
    }
    plat->facts = f;
    plat->n_nodes = f->nodes;
    plat->gpus_per_node = f->gpus_per_node;
    plat->n_gpus = f->n_gpus;
    plat->nodes_per_leaf = f->nodes_per_leaf;
    plat->nodes_per_rack = f->nodes_per_leaf * f->leaves_per_rack;
    plat->gpu_memory_bytes = f->gpu_memory_bytes;
    plat->staging_latency_s = f->staging_latency_s;
    snprintf(plat->gpu_model, sizeof plat->gpu_model, "%s", f->gpu_model);
    snprintf(plat->gpu_device, sizeof plat->gpu_device, "%s", f->gpu_device);
    return HS_OK; /* the GPU speed is the host's, once SimGrid has it */
}

int plat_open(const char *spec, plat_platform *plat, char *err)
{
    memset(plat, 0, sizeof *plat);
    if (spec && strncmp(spec, PG_SPEC_PREFIX, strlen(PG_SPEC_PREFIX)) == 0) {
        char why[HS_ERR_LEN];
        snprintf(plat->name, sizeof plat->name, "%s", spec);
        int rc = open_params(plat, spec, 1, why);
        if (rc == HS_OK)
            rc = facts_from_params(plat, why);
        if (rc != HS_OK) {
            plat_free(plat);
            return hs_fail(err, rc, "-p %s: %s", spec, why);
        }
        return HS_OK;
    }
    int rc = resolve(spec, plat->path, sizeof plat->path, err);
    if (rc != HS_OK)
        return rc;
    stem(plat->path, plat->name, sizeof plat->name);
    if (try_generated(plat))
        return HS_OK;
    return open_checked(plat, err);
}

void plat_free(plat_platform *plat)
{
    pm_free(plat->machine);
    free(plat->gen);
    if (plat->facts) {
        plat_facts_free(plat->facts);
        free(plat->facts);
    }
    free(plat->gpus);
    free(plat->host_mem);
    plat->machine = NULL;
    plat->gen = NULL;
    plat->facts = NULL;
    plat->gpus = plat->host_mem = NULL;
    plat->n_gpus = 0;
}

/* ---------------------------------------------------------------- routes */

int plat_nics_per_node(const plat_platform *plat)
{
    const pg_params *g = plat->gen;
    if (!g)
        return plat->file_nics_per_node > 0 ? plat->file_nics_per_node : 1;
    if (g->nics_per_node > 0)
        return g->nics_per_node;
    return g->gpus_per_pcie_switch > 0 ? g->gpus_per_node / g->gpus_per_pcie_switch : 1;
}

bool plat_routes_known(const plat_platform *plat)
{
    return plat->machine != NULL || plat->engine_route != NULL;
}

/* The route from a to b and its first link, by whoever knows it; -1 when nobody does. */
static int route_of(const plat_platform *plat, int a, int b, double r[4])
{
    if (a < 0 || b < 0 || a >= plat->n_gpus || b >= plat->n_gpus || a == b)
        return -1;
    if (plat->machine)
        return pm_route(plat->machine, a, b, &r[0], &r[1], &r[2], &r[3]);
    if (plat->engine_route)
        return plat->engine_route(plat, a, b, &r[0], &r[1], &r[2], &r[3]);
    return -1;
}

void plat_route(const plat_platform *plat, int a, int b, double *latency_s, double *bandwidth_Bps)
{
    double r[4];
    if (a == b && a >= 0 && a < plat->n_gpus) { /* nothing crosses a link */
        *latency_s = 0;
        *bandwidth_Bps = HUGE_VAL;
        return;
    }
    if (route_of(plat, a, b, r) != 0) {
        *latency_s = NAN; /* a caller's bug: make it show in every number it touches */
        *bandwidth_Bps = NAN;
        return;
    }
    *latency_s = r[0];
    *bandwidth_Bps = r[1];
}

static int by_link(const void *a, const void *b)
{
    uintptr_t x = ((const pm_link_use *)a)->id, y = ((const pm_link_use *)b)->id;
    return (x > y) - (x < y);
}

/* The largest k / bandwidth over the link directions in use[0..n), k the ring edges crossing
 * one (a FATPIPE, which SimGrid does not divide among its flows, counts once). Sorts use. */
static double shared_beta(pm_link_use *use, size_t n)
{
    double beta = 0;
    qsort(use, n, sizeof *use, by_link);
    for (size_t i = 0, k; i < n; i += k) {
        for (k = 1; i + k < n && use[i + k].id == use[i].id; k++)
            ;
        double b = (use[i].shared ? (double)k : 1.0) / use[i].bandwidth_Bps;
        if (b > beta)
            beta = b;
    }
    return beta;
}

/* The link directions of the route from a to b, by whoever knows them; -1 when nobody does. */
static int links_of(const plat_platform *plat, int a, int b, pm_link_use *use, int max,
                    double *latency_s)
{
    if (plat->machine)
        return pm_route_links(plat->machine, a, b, use, max, latency_s);
    if (plat->engine_links)
        return plat->engine_links(plat, a, b, use, max, latency_s);
    return -1;
}

int plat_route_ends(const plat_platform *plat, int a, int b, double *ends_bw_Bps,
                    double *between_bw_Bps)
{
    pm_link_use use[PM_MAX_ROUTE];
    double lat_s;
    if (a < 0 || b < 0 || a >= plat->n_gpus || b >= plat->n_gpus || a == b)
        return -1;
    int k = links_of(plat, a, b, use, PM_MAX_ROUTE, &lat_s);
    if (k < 3)
        return -1;
    *ends_bw_Bps = fmin(use[0].bandwidth_Bps, use[k - 1].bandwidth_Bps);
    *between_bw_Bps = HUGE_VAL;
    for (int i = 1; i < k - 1; i++)
        *between_bw_Bps = fmin(*between_bw_Bps, use[i].bandwidth_Bps);
    return 0;
}

/* plat_ring_cost: the ring's steps run every edge at once, so a link direction that k of its
 * edges cross gives each a k-th of its bandwidth (GPU pairs through host memory: both
 * directions of a pair climb one switch's link to the CPU; spread ranks: a rack's uplink).
 * -1 when a route is unknown or out of memory. */
static int ring_cost_links(const plat_platform *plat, const int *gpu, int n, double *alpha_s,
                           double *beta_s_per_byte)
{
    size_t used = 0, cap = (size_t)n * 8;
    pm_link_use *use = malloc(cap * sizeof *use);
    int status = use ? 0 : -1;
    for (int i = 0; status == 0 && i < n; i++) {
        int a = gpu[i], b = gpu[(i + 1) % n];
        double lat_s = 0;
        if (a < 0 || b < 0 || a >= plat->n_gpus || b >= plat->n_gpus) {
            status = -1;
            break;
        }
        if (a == b) /* nothing crosses a link */
            continue;
        if (cap - used < PM_MAX_ROUTE) {
            pm_link_use *more = realloc(use, 2 * cap * sizeof *use);
            if (!more) {
                status = -1;
                break;
            }
            use = more, cap *= 2;
        }
        int k = links_of(plat, a, b, use + used, PM_MAX_ROUTE, &lat_s);
        if (k < 0)
            status = -1;
        used += k > 0 ? (size_t)k : 0;
        if (lat_s > *alpha_s)
            *alpha_s = lat_s;
    }
    if (status == 0)
        *beta_s_per_byte = shared_beta(use, used);
    free(use);
    return status;
}

void plat_ring_cost(const plat_platform *plat, const int *gpu, int n, double *alpha_s,
                    double *beta_s_per_byte)
{
    *alpha_s = 0;
    *beta_s_per_byte = 0;
    if (n < 2)
        return;
    if (ring_cost_links(plat, gpu, n, alpha_s, beta_s_per_byte) != 0)
        *alpha_s = *beta_s_per_byte = NAN; /* a caller's bug, as plat_route's */
}

int plat_host_link(const plat_platform *plat, int g, double *latency_s, double *bandwidth_Bps)
{
    int per_node = plat->gpus_per_node > 0 ? plat->gpus_per_node : 1;
    int other = (g / per_node + 1) * per_node;
    double r[4];
    if (other >= plat->n_gpus)
        other = 0;
    if (other / per_node == g / per_node || route_of(plat, g, other, r) != 0)
        return 0;
    *latency_s = r[2];
    *bandwidth_Bps = r[3];
    return 1;
}

long plat_engine_gpus(const plat_platform *plat, const int *gpus, int n)
{
    if (!plat->gen || !gpus)
        return plat->n_gpus;
    int racks = pg_racks(plat->gen);
    unsigned char *seen = calloc((size_t)racks, 1);
    long built = 0;
    if (!seen)
        return plat->n_gpus;
    for (int i = 0; i < n; i++) {
        int r = gpus[i] >= 0 && gpus[i] < plat->n_gpus ? pg_rack_of_gpu(plat->gen, gpus[i]) : -1;
        if (r >= 0 && !seen[r]) {
            seen[r] = 1;
            built += (long)pg_rack_nodes(plat->gen, r) * plat->gpus_per_node;
        }
    }
    free(seen);
    return built;
}

sg_host_t plat_host_memory(const plat_platform *plat, int gpu)
{
    if (gpu < 0 || gpu >= plat->n_gpus || !plat->host_mem || plat->gpus_per_node < 1)
        return NULL;
    return plat->host_mem[gpu];
}
