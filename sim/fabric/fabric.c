/* fabric.c: jobs sharing one platform (fabric.h).
 *
 * Steps, each finished for every job before the next starts, so that bad input anywhere is
 * reported before anything is simulated: parse the --job and --background texts; load the
 * platform; give each job its GPUs (explicit sets first, then free nodes in flag order);
 * load, check and expand each job; merge the graphs; fork the --baseline children (each
 * simulates one job's own graph alone); run the merged graph once with the background flows;
 * split the ranks' statistics per job; print.
 *
 * A job's iteration is read off its own ranks exactly as simulate.c reads a single run: the
 * rank that finished last (the job's critical rank) gives compute, communication and exposed
 * communication, and its end is the job's iteration time. Jobs start together at t = 0. */
#include "fabric.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <simgrid/actor.h>
#include <simgrid/engine.h>
#include <simgrid/mailbox.h>

#include "analytic.h"
#include "expand.h"
#include "links.h"
#include "placement.h"
#include "platform.h"
#include "report.h"
#include "strategy.h"
#include "taskgraph.h"
#include "units.h"
#include "workload.h"

/* A background flow is a sequence of transfers of this many seconds' worth of its rate each:
 * short enough that the bytes counted when the jobs end (and the daemons with them) miss at
 * most this much, long enough that the route latency each transfer pays costs little
 * (31 us of 10 ms on ABCI). */
#define FB_BG_CHUNK_S 0.01
/* A background flow stops after this much simulated time, so that a deadlocked job graph
 * (an expansion bug) still ends instead of running forever beside the flows. */
#define FB_BG_MAX_S 3600.0

/* Whole numbers given as ranges joined by '+': "0-127+512-639". */
typedef struct {
    int *v;
    int n;
} fb_list;

/* One --job, from its text to its results. */
typedef struct {
    int index;                /* 1-based position among the --job flags, for messages */
    char name[32];            /* name= or "jobN" */
    char *text;               /* owned copy of the spec, cut in place into the values below */
    const char *workload;     /* w= */
    const char *strategy;     /* s= */
    const char *layers;       /* layers=, or NULL */
    int gpus;                 /* g=, 0 until known */
    int64_t batch;            /* b=, 0 when missing */
    int micro_batches;        /* S=, 0 = default */
    pl_kind placement;        /* placement= */
    fb_list gpu_list;         /* gpus=, n = 0 when not given */
    fb_list racks;            /* racks=, n = 0: all */
    int *gpu_of_rank;         /* gpus entries once placed */
    int rank_offset;          /* its first rank in the merged graph */
    wl_workload wl;
    bool wl_loaded;
    st_strategy st;
    tg_graph graph;           /* its own graph (also what a --baseline child runs) */
    bool graph_made;
    hs_estimate analytic;     /* memory per GPU, as simulate reports it */
    hs_estimate shared;       /* the job in the shared run */
    hs_times alone;           /* --baseline: the job alone */
    pid_t child;              /* --baseline child, 0 if none */
    int child_fd;             /* its pipe's read end */
} fb_job;

/* One --background: flows from[i] -> to[i]. */
typedef struct {
    int index;                /* 1-based position among the --background flags */
    fb_list from, to;         /* nodes */
    double rate_Bps;          /* cap per flow */
    int gpu;                  /* the GPU host of each node the flows start and end at */
} fb_background;

/* What a background actor is told. */
typedef struct {
    lk_collector *col;        /* may be NULL: traffic without statistics */
    sg_mailbox_t mailbox;     /* the flow's own, between its two actors */
    int from_gpu, to_gpu;
    double rate_Bps;
} fb_flow;

/* ---- parsing ------------------------------------------------------------------------------ */

static int n_racks_of(const plat_platform *plat);

static void list_free(fb_list *l)
{
    free(l->v);
    l->v = NULL;
    l->n = 0;
}

static int parse_whole(const char *text, long *v)
{
    char *end = NULL;
    errno = 0;
    long x = strtol(text, &end, 10);
    if (errno || end == text || *end != '\0' || text[0] == '-' || text[0] == '+')
        return -1;
    *v = x;
    return 0;
}

/* "a" or "a-b" parts joined by '+', every value in [0, max]. */
static int parse_list(const char *flag, const char *key, const char *text, long max, fb_list *l,
                      char *err)
{
    list_free(l);
    char buf[256];
    if (!text[0] || strlen(text) >= sizeof buf)
        return hs_fail(err, HS_EINPUT, "%s: %s='%s' is not a list of ranges like 0-15+32-47", flag,
                       key, text);
    strcpy(buf, text);
    int cap = 0;
    for (char *part = buf, *next; part; part = next) {
        next = strchr(part, '+');
        if (next)
            *next++ = '\0';
        char *dash = strchr(part, '-');
        long lo, hi;
        if (dash)
            *dash = '\0';
        if (parse_whole(part, &lo) != 0 || (dash ? parse_whole(dash + 1, &hi) : (hi = lo, 0)) != 0)
            return hs_fail(err, HS_EINPUT, "%s: %s='%s' is not a list of ranges like 0-15+32-47",
                           flag, key, text);
        if (lo > hi || hi > max)
            return hs_fail(err, HS_EINPUT, "%s: %s='%s': range %ld-%ld is not within 0-%ld", flag,
                           key, text, lo, hi, max);
        if (l->n + (hi - lo + 1) > cap) {
            cap = l->n + (int)(hi - lo + 1);
            int *v = realloc(l->v, (size_t)cap * sizeof *v);
            if (!v)
                return hs_fail(err, HS_EINTERNAL, "out of memory for %s", flag);
            l->v = v;
        }
        for (long x = lo; x <= hi; x++)
            l->v[l->n++] = (int)x;
    }
    return HS_OK;
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

static int parse_job_pair(fb_job *j, const char *flag, const char *key, const char *value,
                          const plat_platform *plat, char *err)
{
    long v;
    if (strcmp(key, "w") == 0)
        j->workload = value;
    else if (strcmp(key, "s") == 0)
        j->strategy = value;
    else if (strcmp(key, "layers") == 0)
        j->layers = value;
    else if (strcmp(key, "name") == 0) {
        if (!value[0] || strlen(value) >= sizeof j->name || strpbrk(value, "\"\\"))
            return hs_fail(err, HS_EINPUT, "%s: name='%s' must be 1 to %zu characters without "
                           "quotes or backslashes", flag, value, sizeof j->name - 1);
        strcpy(j->name, value);
    } else if (strcmp(key, "g") == 0 || strcmp(key, "S") == 0) {
        if (parse_whole(value, &v) != 0 || v < 1 || v > INT_MAX)
            return hs_fail(err, HS_EINPUT, "%s: %s='%s' is not a whole number >= 1", flag, key,
                           value);
        if (key[0] == 'g')
            j->gpus = (int)v;
        else
            j->micro_batches = (int)v;
    } else if (strcmp(key, "b") == 0) {
        char *end = NULL;
        errno = 0;
        long long b = strtoll(value, &end, 10);
        if (errno || end == value || *end || b < 1 || b > INT64_MAX / 4)
            return hs_fail(err, HS_EINPUT, "%s: b='%s' is not a whole number >= 1", flag, value);
        j->batch = b;
    } else if (strcmp(key, "placement") == 0) {
        char perr[HS_ERR_LEN];
        if (pl_parse(value, &j->placement, perr) != HS_OK)
            return hs_fail(err, HS_EINPUT, "%s: placement='%s' is not packed or spread", flag,
                           value);
    } else if (strcmp(key, "gpus") == 0) {
        return parse_list(flag, key, value, plat->n_gpus - 1, &j->gpu_list, err);
    } else if (strcmp(key, "racks") == 0) {
        return parse_list(flag, key, value, n_racks_of(plat) - 1, &j->racks, err);
    } else {
        return hs_fail(err, HS_EINPUT, "%s: unknown key '%s' (known: w, s, g, b, name, layers, "
                       "S, gpus, racks, placement)", flag, key);
    }
    return HS_OK;
}

static int parse_job(const char *text, int index, const plat_platform *plat, fb_job *j,
                     char *err)
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
    static const char *const keys[] = {"w", "s", "g", "b", "name", "layers", "S", "gpus",
                                       "racks", "placement"};
    int rc;
    while ((rc = next_pair(&cursor, &key, &value)) != 0) {
        if (rc < 0)
            return hs_fail(err, HS_EINPUT, "%s: '%s' is not KEY=VALUE (e.g. \"w=resnet50,"
                           "s=data,g=64,b=2048\")", flag, key);
        for (unsigned k = 0; k < sizeof keys / sizeof *keys; k++)
            if (strcmp(key, keys[k]) == 0) {
                if (seen & (1u << k))
                    return hs_fail(err, HS_EINPUT, "%s: %s= is given twice", flag, key);
                seen |= 1u << k;
            }
        int status = parse_job_pair(j, flag, key, value, plat, err);
        if (status != HS_OK)
            return status;
    }
    if (!j->workload)
        return hs_fail(err, HS_EINPUT, "%s: w=WORKLOAD is required", flag);
    if (!j->strategy)
        return hs_fail(err, HS_EINPUT, "%s: s=STRATEGY is required", flag);
    if (!j->batch)
        return hs_fail(err, HS_EINPUT, "%s: b=BATCH is required", flag);
    if (j->gpu_list.n) {
        if (j->racks.n || (seen & (1u << 9)))
            return hs_fail(err, HS_EINPUT, "%s: gpus= names the GPUs; racks= and placement= "
                           "are for jobs without it", flag);
        if (j->gpus && j->gpus != j->gpu_list.n)
            return hs_fail(err, HS_EINPUT, "%s: g=%d but gpus= lists %d GPUs", flag, j->gpus,
                           j->gpu_list.n);
        j->gpus = j->gpu_list.n;
    }
    if (!j->gpus)
        return hs_fail(err, HS_EINPUT, "%s: g=GPUS (or gpus=LIST) is required", flag);
    return HS_OK;
}

static int parse_background(const char *text, int index, const plat_platform *plat,
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
    while (status == HS_OK && (rc = next_pair(&cursor, &key, &value)) != 0) {
        long v;
        if (rc < 0)
            status = hs_fail(err, HS_EINPUT, "%s: '%s' is not KEY=VALUE (e.g. \"from=0-15,"
                             "to=34-49,rate=5GBps\")", flag, key);
        else if (strcmp(key, "from") == 0 && !bg->from.n)
            status = parse_list(flag, key, value, plat->n_nodes - 1, &bg->from, err);
        else if (strcmp(key, "to") == 0 && !bg->to.n)
            status = parse_list(flag, key, value, plat->n_nodes - 1, &bg->to, err);
        else if (strcmp(key, "rate") == 0 && !have_rate) {
            have_rate = true;
            if (un_parse(value, UN_BANDWIDTH, &bg->rate_Bps) != 0 || !(bg->rate_Bps > 0) ||
                !isfinite(bg->rate_Bps))
                status = hs_fail(err, HS_EINPUT, "%s: rate='%s' is not a positive bandwidth (%s)",
                                 flag, value, un_hint(UN_BANDWIDTH));
        } else if (strcmp(key, "gpu") == 0 && !have_gpu) {
            have_gpu = true;
            if (parse_whole(value, &v) != 0 || v >= plat->gpus_per_node)
                status = hs_fail(err, HS_EINPUT, "%s: gpu='%s' is not a GPU of a node (0-%d)",
                                 flag, value, plat->gpus_per_node - 1);
            else
                bg->gpu = (int)v;
        } else
            status = hs_fail(err, HS_EINPUT, "%s: unknown or repeated key '%s' (known: from, to, "
                             "rate, gpu)", flag, key);
    }
    free(copy);
    if (status != HS_OK)
        return status;
    if (!bg->from.n || !bg->to.n || !have_rate)
        return hs_fail(err, HS_EINPUT, "%s: from=NODES, to=NODES and rate=BANDWIDTH are "
                       "required", flag);
    int n = bg->from.n > bg->to.n ? bg->from.n : bg->to.n;
    for (int i = 0; i < n; i++)
        if (bg->from.v[i % bg->from.n] == bg->to.v[i % bg->to.n])
            return hs_fail(err, HS_EINPUT, "%s: flow %d goes from node %d to itself", flag, i + 1,
                           bg->to.v[i % bg->to.n]);
    return HS_OK;
}

/* ---- placement ---------------------------------------------------------------------------- */

static int n_racks_of(const plat_platform *plat)
{
    int per_rack = plat->nodes_per_rack > 0 ? plat->nodes_per_rack : plat->n_nodes;
    int racks = plat->n_nodes / per_rack;
    return racks > 0 ? racks : 1;
}

static int rack_size(const plat_platform *plat)
{
    return plat->n_nodes / n_racks_of(plat);
}

/* Explicit GPU sets: in range (checked when parsed), not repeated, not another job's. */
static int claim_gpu_list(fb_job *j, int *owner, const fb_job *jobs, char *err)
{
    j->gpu_of_rank = malloc((size_t)j->gpus * sizeof *j->gpu_of_rank);
    if (!j->gpu_of_rank)
        return hs_fail(err, HS_EINTERNAL, "out of memory placing --job %d", j->index);
    for (int r = 0; r < j->gpus; r++) {
        int g = j->gpu_list.v[r];
        if (owner[g]) {
            const fb_job *other = &jobs[owner[g] - 1];
            if (other == j)
                return hs_fail(err, HS_EINPUT, "--job %d: gpus= lists GPU %d twice", j->index, g);
            return hs_fail(err, HS_EINPUT, "--job %d (%s): gpus=: GPU %d is also used by --job %d "
                           "(%s); jobs need disjoint GPU sets", j->index, j->name, g, other->index,
                           other->name);
        }
        owner[g] = j->index;
        j->gpu_of_rank[r] = g;
    }
    return HS_OK;
}

static bool node_free(const plat_platform *plat, const int *owner, int node)
{
    for (int g = 0; g < plat->gpus_per_node; g++)
        if (owner[node * plat->gpus_per_node + g])
            return false;
    return true;
}

/* Whole free nodes of the job's racks, in node order (packed) or dealt over the racks. */
static int claim_nodes(const plat_platform *plat, fb_job *j, int *owner, char *err)
{
    int per_rack = rack_size(plat);
    int gpn = plat->gpus_per_node, need = (j->gpus + gpn - 1) / gpn;
    int n_racks = j->racks.n ? j->racks.n : n_racks_of(plat);
    int *rack = malloc((size_t)n_racks * sizeof *rack), *cursor = calloc((size_t)n_racks, sizeof *cursor);
    int *nodes = malloc((size_t)need * sizeof *nodes);
    j->gpu_of_rank = malloc((size_t)j->gpus * sizeof *j->gpu_of_rank);
    int status = HS_OK, got = 0;
    if (!rack || !cursor || !nodes || !j->gpu_of_rank) {
        status = hs_fail(err, HS_EINTERNAL, "out of memory placing --job %d", j->index);
        goto done;
    }
    for (int i = 0; i < n_racks; i++) {
        rack[i] = j->racks.n ? j->racks.v[i] : i;
        for (int k = 0; k < i; k++)
            if (rack[k] == rack[i]) {
                status = hs_fail(err, HS_EINPUT, "--job %d: racks= lists rack %d twice", j->index,
                                 rack[i]);
                goto done;
            }
    }
    if (j->placement == PL_PACKED) { /* rack by rack, node by node */
        for (int i = 0; i < n_racks && got < need; i++)
            for (int c = 0; c < per_rack && got < need; c++)
                if (node_free(plat, owner, rack[i] * per_rack + c))
                    nodes[got++] = rack[i] * per_rack + c;
    } else { /* one node from each rack in turn; cursor[i] = -1 once rack i has no free node */
        for (int turn = 0, full = 0; got < need && full < n_racks; turn++) {
            int i = turn % n_racks, base = rack[i] * per_rack;
            if (cursor[i] < 0)
                continue;
            while (cursor[i] < per_rack && !node_free(plat, owner, base + cursor[i]))
                cursor[i]++;
            if (cursor[i] == per_rack) {
                cursor[i] = -1;
                full++;
                continue;
            }
            nodes[got++] = base + cursor[i]++;
        }
    }
    if (got < need) {
        status = hs_fail(err, HS_EINPUT, "--job %d (%s): needs %d whole free nodes for %d GPUs, "
                         "but its racks have only %d left", j->index, j->name, need, j->gpus, got);
        goto done;
    }
    for (int r = 0; r < j->gpus; r++) {
        j->gpu_of_rank[r] = nodes[r / gpn] * gpn + r % gpn;
        owner[j->gpu_of_rank[r]] = j->index;
    }
done:
    free(rack);
    free(cursor);
    free(nodes);
    return status;
}

static int place_jobs(const plat_platform *plat, fb_job *jobs, int n_jobs, char *err)
{
    int *owner = calloc((size_t)plat->n_gpus, sizeof *owner); /* job index (1-based) or 0 */
    if (!owner)
        return hs_fail(err, HS_EINTERNAL, "out of memory for %d GPUs", plat->n_gpus);
    int status = HS_OK, total = 0;
    for (int i = 0; i < n_jobs; i++)
        total += jobs[i].gpus > plat->n_gpus ? plat->n_gpus + 1 : jobs[i].gpus;
    if (total > plat->n_gpus)
        status = hs_fail(err, HS_EINPUT, "--job: the jobs ask for more GPUs than platform %s has "
                         "(%d)", plat->name, plat->n_gpus);
    for (int i = 0; i < n_jobs && status == HS_OK; i++)
        if (jobs[i].gpu_list.n)
            status = claim_gpu_list(&jobs[i], owner, jobs, err);
    for (int i = 0; i < n_jobs && status == HS_OK; i++)
        if (!jobs[i].gpu_list.n)
            status = claim_nodes(plat, &jobs[i], owner, err);
    free(owner);
    return status;
}

/* ---- loading and merging ------------------------------------------------------------------ */

/* Prefix a module's message (which names -w, -s, ...) with the --job it is about. */
static int job_fail(const fb_job *j, int status, const char *inner, char *err)
{
    return hs_fail(err, status, "--job %d (%s): %s", j->index, j->name, inner);
}

static int load_job(const plat_platform *plat, fb_job *j, char *err)
{
    char inner[HS_ERR_LEN];
    int status = wl_load(j->workload, &j->wl, inner);
    if (status != HS_OK)
        return job_fail(j, status, inner, err);
    j->wl_loaded = true;
    if (j->layers && (status = wl_apply_layer_file(&j->wl, j->layers, inner)) != HS_OK)
        return job_fail(j, status, inner, err);
    status = st_parse(j->strategy, j->gpus, plat->gpus_per_node, j->micro_batches, &j->st, inner);
    if (status == HS_OK)
        status = st_check(&j->st, &j->wl, j->batch, inner);
    if (status == HS_OK)
        status = an_estimate_placed(&j->wl, plat, &j->st, j->batch, j->gpu_of_rank, &j->analytic,
                                    inner);
    if (status == HS_OK) {
        status = ex_expand(&j->wl, &j->st, j->batch, &j->graph, inner);
        j->graph_made = status == HS_OK;
    }
    return status == HS_OK ? HS_OK : job_fail(j, status, inner, err);
}

/* Every job's graph in one, job k's ranks and groups after those of jobs 0..k-1. */
static int merge_graphs(fb_job *jobs, int n_jobs, tg_graph *all, int **gpu_of_rank, char *err)
{
    int total = 0;
    for (int k = 0; k < n_jobs; k++) {
        jobs[k].rank_offset = total;
        total += jobs[k].graph.n_ranks;
    }
    int status = tg_init(all, total, err);
    if (status != HS_OK)
        return status;
    *gpu_of_rank = malloc((size_t)total * sizeof **gpu_of_rank);
    if (!*gpu_of_rank)
        return hs_fail(err, HS_EINTERNAL, "out of memory merging %d ranks", total);
    for (int k = 0; k < n_jobs; k++) {
        const tg_graph *g = &jobs[k].graph;
        int rank_off = jobs[k].rank_offset, group_off = all->n_groups;
        for (int gi = 0; gi < g->n_groups; gi++) {
            const tg_group *gr = &g->groups[gi];
            int *ranks = malloc((size_t)(gr->n ? gr->n : 1) * sizeof *ranks);
            if (!ranks)
                return hs_fail(err, HS_EINTERNAL, "out of memory merging groups");
            for (int i = 0; i < gr->n; i++)
                ranks[i] = gr->ranks[i] + rank_off;
            int added = tg_add_group(all, ranks, gr->n);
            free(ranks);
            if (added < 0)
                return hs_fail(err, HS_EINTERNAL, "out of memory merging groups");
        }
        for (int r = 0; r < g->n_ranks; r++) {
            (*gpu_of_rank)[rank_off + r] = jobs[k].gpu_of_rank[r];
            for (int i = 0; i < g->ranks[r].n_tasks; i++) {
                tg_task t = g->ranks[r].tasks[i];
                if (t.op == TG_SEND || t.op == TG_RECV)
                    t.peer += rank_off;   /* a rank */
                else if (t.op != TG_EXEC)
                    t.peer += group_off;  /* every other communication task names a group */
                if (tg_add(all, rank_off + r, t) < 0)
                    return hs_fail(err, HS_EINTERNAL, "out of memory merging tasks");
            }
        }
    }
    return HS_OK;
}

/* ---- running ------------------------------------------------------------------------------ */

/* A job's iteration from its ranks [first, first + n) of a run. */
static hs_times job_times(const eng_result *res, int first, int n)
{
    int crit = first;
    for (int r = first + 1; r < first + n; r++)
        if (res->ranks[r].end_s > res->ranks[crit].end_s)
            crit = r;
    const eng_rank_stats *c = &res->ranks[crit];
    return (hs_times){.compute_s = c->compute_busy_s, .comm_s = c->comm_busy_s,
                      .exposed_comm_s = c->exposed_comm_s, .total_s = c->end_s};
}

static eng_options engine_options(const fb_request *req)
{
    /* kernel durations as calibrated, like simulate.c (its exec_scale) */
    return (eng_options){.fidelity = req->fidelity, .exec_speed_scale = 1.0};
}

/* What a --baseline child sends back. */
typedef struct {
    int status;
    char err[HS_ERR_LEN];
    hs_times times;
} fb_child_out;

static int start_baseline(const fb_request *req, const plat_platform *plat, fb_job *j, char *err)
{
    int fd[2];
    if (pipe(fd) != 0)
        return hs_fail(err, HS_EINTERNAL, "--baseline: cannot create a pipe: %s", strerror(errno));
    fflush(NULL); /* the child must not repeat buffered output */
    pid_t pid = fork();
    if (pid < 0) {
        close(fd[0]);
        close(fd[1]);
        return hs_fail(err, HS_EINTERNAL, "--baseline: cannot fork: %s", strerror(errno));
    }
    if (pid == 0) {
        close(fd[0]);
        static fb_child_out out;
        memset(&out, 0, sizeof out);
        eng_options eo = engine_options(req);
        eng_result res;
        out.status = eng_run(&j->graph, plat, j->gpu_of_rank, &eo, &res, out.err);
        if (out.status == HS_OK) {
            out.times = job_times(&res, 0, res.n_ranks);
            eng_result_free(&res);
        }
        ssize_t w = write(fd[1], &out, sizeof out);
        _exit(w == (ssize_t)sizeof out ? 0 : 3);
    }
    close(fd[1]);
    j->child = pid;
    j->child_fd = fd[0];
    return HS_OK;
}

static int finish_baseline(fb_job *j, char *err)
{
    fb_child_out out;
    size_t got = 0;
    while (got < sizeof out) {
        ssize_t n = read(j->child_fd, (char *)&out + got, sizeof out - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    close(j->child_fd);
    int wstatus = 0;
    waitpid(j->child, &wstatus, 0);
    j->child = 0;
    if (got != sizeof out || !WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 0)
        return hs_fail(err, HS_EINTERNAL, "--baseline: the run of --job %d alone failed", j->index);
    if (out.status != HS_OK)
        return hs_fail(err, out.status, "--baseline, --job %d alone: %s", j->index, out.err);
    j->alone = out.times;
    return HS_OK;
}

/* The two ends of a background flow are daemons: SimGrid ends them when the last job actor
 * ends. */
static void background_sender(int argc, char **argv)
{
    (void)argc, (void)argv;
    const fb_flow *f = sg_actor_self_get_data();
    sg_actor_daemonize(sg_actor_self());
    double chunk = f->rate_Bps * FB_BG_CHUNK_S;
    if (chunk < 1)
        chunk = 1;
    while (simgrid_get_clock() < FB_BG_MAX_S)
        lk_background_send(f->col, f->mailbox, f->from_gpu, f->to_gpu, (double)llround(chunk),
                           f->rate_Bps);
}

static void background_receiver(int argc, char **argv)
{
    (void)argc, (void)argv;
    const fb_flow *f = sg_actor_self_get_data();
    sg_actor_daemonize(sg_actor_self());
    while (simgrid_get_clock() < FB_BG_MAX_S)
        sg_mailbox_get(f->mailbox);
}

static void start_daemon(const char *name, sg_host_t host, fb_flow *f,
                         void (*code)(int, char **))
{
    sg_actor_t a = sg_actor_init(name, host);
    sg_actor_set_stacksize(a, 64 * 1024);
    sg_actor_set_data(a, f);
    sg_actor_start(a, code, 0, NULL);
}

/* Two daemon actors per background flow: its sender on the source GPU's host, its receiver on
 * the destination's. */
static int start_background(const plat_platform *plat, const fb_background *bgs, int n_bg,
                            lk_collector *col, fb_flow **flows_out, char *err)
{
    int n = 0;
    for (int b = 0; b < n_bg; b++)
        n += bgs[b].from.n > bgs[b].to.n ? bgs[b].from.n : bgs[b].to.n;
    fb_flow *flows = calloc((size_t)(n ? n : 1), sizeof *flows);
    if (!flows)
        return hs_fail(err, HS_EINTERNAL, "out of memory for %d background flows", n);
    int k = 0, gpn = plat->gpus_per_node;
    char name[48];
    for (int b = 0; b < n_bg; b++) {
        const fb_background *bg = &bgs[b];
        int m = bg->from.n > bg->to.n ? bg->from.n : bg->to.n;
        for (int i = 0; i < m; i++, k++) {
            snprintf(name, sizeof name, "background%d.%d", bg->index, i);
            flows[k] = (fb_flow){col, sg_mailbox_by_name(name),
                                 bg->from.v[i % bg->from.n] * gpn + bg->gpu,
                                 bg->to.v[i % bg->to.n] * gpn + bg->gpu, bg->rate_Bps};
            start_daemon(name, plat->gpus[flows[k].from_gpu], &flows[k], background_sender);
            start_daemon(name, plat->gpus[flows[k].to_gpu], &flows[k], background_receiver);
        }
    }
    *flows_out = flows;
    return HS_OK;
}

/* The shared run: every job and the background at once; each job's times and the links. */
static int run_shared(const fb_request *req, const plat_platform *plat, fb_job *jobs, int n_jobs,
                      const fb_background *bgs, int n_bg, lk_stats *links, char *err)
{
    tg_graph all;
    memset(&all, 0, sizeof all);
    int *gpu_of_rank = NULL;
    fb_flow *flows = NULL;
    lk_collector *col = NULL;
    eng_result res;
    memset(&res, 0, sizeof res);
    int status = merge_graphs(jobs, n_jobs, &all, &gpu_of_rank, err);
    if (status == HS_OK && req->links_path) {
        status = lk_begin(plat, n_jobs, &col, err);
        for (int k = 0; status == HS_OK && k < n_jobs; k++)
            for (int r = 0; r < jobs[k].gpus; r++)
                lk_set_job(col, jobs[k].gpu_of_rank[r], k);
    }
    if (status == HS_OK && n_bg)
        status = start_background(plat, bgs, n_bg, col, &flows, err);
    if (status == HS_OK) {
        eng_options eo = engine_options(req);
        status = eng_run(&all, plat, gpu_of_rank, &eo, &res, err);
    }
    if (col) {
        char lk_err[HS_ERR_LEN];
        int lk_status = lk_end(col, res.makespan_s, links, lk_err);
        if (status == HS_OK && lk_status != HS_OK)
            status = hs_fail(err, lk_status, "%s", lk_err);
    }
    for (int k = 0; status == HS_OK && k < n_jobs; k++) {
        fb_job *j = &jobs[k];
        j->shared = j->analytic; /* memory, as simulate reports it */
        j->shared.iteration = job_times(&res, j->rank_offset, j->gpus);
        hs_estimate_scale_epoch(&j->shared, j->wl.samples, j->batch);
    }
    eng_result_free(&res);
    free(flows);
    free(gpu_of_rank);
    tg_free(&all);
    return status;
}

/* ---- printing ----------------------------------------------------------------------------- */

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return x < y ? -1 : x > y;
}

/* A job's GPU set as sorted ranges, "0-63+136-199" ("..." at the end if len is too short);
 * the rank order follows from gpus= or the placement. */
static void format_gpus(const fb_job *j, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    int *g = malloc((size_t)j->gpus * sizeof *g);
    if (!g) {
        snprintf(buf, len, "?");
        return;
    }
    memcpy(g, j->gpu_of_rank, (size_t)j->gpus * sizeof *g);
    qsort(g, (size_t)j->gpus, sizeof *g, cmp_int);
    for (int r = 0; r < j->gpus; r++) {
        int s = r;
        while (r + 1 < j->gpus && g[r + 1] == g[r] + 1)
            r++;
        char part[32];
        if (r == s)
            snprintf(part, sizeof part, "%s%d", s ? "+" : "", g[s]);
        else
            snprintf(part, sizeof part, "%s%d-%d", s ? "+" : "", g[s], g[r]);
        size_t n = strlen(part);
        if (used + n + 4 > len) {
            snprintf(buf + used, len - used, "...");
            break;
        }
        memcpy(buf + used, part, n + 1);
        used += n;
    }
    free(g);
}

static rp_run job_run(const plat_platform *plat, const fb_job *j, const lk_stats *links, int k)
{
    return (rp_run){.mode = "simulate", .workload = j->wl.name, .platform = plat->name,
                    .strategy = j->st, .batch = j->batch,
                    .gpu_memory_bytes = plat->gpu_memory_bytes, .links = links, .links_job = k};
}

static void print_tables(FILE *out, const fb_request *req, const plat_platform *plat,
                         const fb_job *jobs, int n_jobs, const fb_background *bgs, int n_bg,
                         const lk_stats *links)
{
    char gpus[512];
    fprintf(out, "hybridsim simulate: %d jobs sharing %s (%s collectives)\n", n_jobs, plat->name,
            req->fidelity == ENG_STEP ? "step" : "flow");
    for (int k = 0; k < n_jobs; k++) {
        const fb_job *j = &jobs[k];
        format_gpus(j, gpus, sizeof gpus);
        fprintf(out, "\njob %s (--job %d), GPUs %s\n", j->name, j->index, gpus);
        rp_run run = job_run(plat, j, NULL, k);
        rp_print_table(out, &run, &j->shared);
        if (links)
            fprintf(out, "  congestion share: %.4f (%.6g s of %.6g s of its message time waiting "
                    "on shared links)\n", links->jobs[k].congestion_share,
                    links->jobs[k].waiting_s, links->jobs[k].actual_s);
        if (req->baseline)
            fprintf(out, "  alone: %.6g s per iteration; shared: %.6g s (x%.4f)\n",
                    j->alone.total_s, j->shared.iteration.total_s,
                    j->alone.total_s > 0 ? j->shared.iteration.total_s / j->alone.total_s : 0);
    }
    for (int b = 0; b < n_bg; b++) {
        int m = bgs[b].from.n > bgs[b].to.n ? bgs[b].from.n : bgs[b].to.n;
        fprintf(out, "\nbackground (--background %d): %d flow(s) from GPU %d of each node, at most "
                "%.6g GB/s each\n", bgs[b].index, m, bgs[b].gpu, bgs[b].rate_Bps / 1e9);
    }
    if (links) {
        if (n_bg)
            fprintf(out, "  background carried %.6g bytes in %ld transfers\n",
                    links->background.bytes, links->background.messages);
        fprintf(out, "\nthe shared fabric, all jobs%s:\n", n_bg ? " and the background" : "");
        lk_print_summary_table(out, links, -1);
    }
}

static void print_json_times(FILE *out, const hs_times *t)
{
    fprintf(out, "{\"compute_s\": %.17g, \"comm_s\": %.17g, \"exposed_comm_s\": %.17g, "
            "\"total_s\": %.17g}", t->compute_s, t->comm_s, t->exposed_comm_s, t->total_s);
}

static void print_json(FILE *out, const fb_request *req, const plat_platform *plat,
                       const fb_job *jobs, int n_jobs, const lk_stats *links)
{
    char gpus[4096];
    fputc('[', out);
    for (int k = 0; k < n_jobs; k++) {
        const fb_job *j = &jobs[k];
        format_gpus(j, gpus, sizeof gpus);
        fprintf(out, "%s{\"job\": \"%s\", \"gpu_set\": \"%s\", \"run\": ", k ? ", " : "", j->name,
                gpus);
        rp_run run = job_run(plat, j, links, k);
        rp_print_json(out, &run, &j->shared);
        if (req->baseline) {
            fprintf(out, ", \"alone\": ");
            print_json_times(out, &j->alone);
            fprintf(out, ", \"slowdown\": %.17g",
                    j->alone.total_s > 0 ? j->shared.iteration.total_s / j->alone.total_s : 0);
        }
        fputc('}', out);
    }
    fprintf(out, "]\n");
}

/* ---- the whole request -------------------------------------------------------------------- */

static void free_jobs(fb_job *jobs, int n_jobs)
{
    for (int k = 0; jobs && k < n_jobs; k++) {
        fb_job *j = &jobs[k];
        if (j->child) { /* an error before its result was read: do not leave it behind */
            close(j->child_fd);
            waitpid(j->child, NULL, 0);
        }
        if (j->graph_made)
            tg_free(&j->graph);
        if (j->wl_loaded)
            wl_free(&j->wl);
        list_free(&j->gpu_list);
        list_free(&j->racks);
        free(j->gpu_of_rank);
        free(j->text);
    }
    free(jobs);
}

int fb_run(const fb_request *req, FILE *out, char *err)
{
    fb_job *jobs = calloc((size_t)req->n_jobs + 1, sizeof *jobs);
    fb_background *bgs = calloc((size_t)req->n_backgrounds + 1, sizeof *bgs);
    plat_platform plat;
    memset(&plat, 0, sizeof plat);
    bool plat_loaded = false;
    lk_stats links;
    memset(&links, 0, sizeof links);
    int status = jobs && bgs ? HS_OK : hs_fail(err, HS_EINTERNAL, "out of memory for the jobs");
    if (status == HS_OK && req->links_path)
        status = lk_csv_check(req->links_path, err);
    if (status == HS_OK) {
        status = plat_load(req->platform, &plat, err);
        plat_loaded = status == HS_OK;
    }
    for (int k = 0; k < req->n_jobs && status == HS_OK; k++)
        status = parse_job(req->jobs[k], k + 1, &plat, &jobs[k], err);
    for (int b = 0; b < req->n_backgrounds && status == HS_OK; b++)
        status = parse_background(req->backgrounds[b], b + 1, &plat, &bgs[b], err);
    if (status == HS_OK)
        status = place_jobs(&plat, jobs, req->n_jobs, err);
    for (int k = 0; k < req->n_jobs && status == HS_OK; k++)
        status = load_job(&plat, &jobs[k], err);
    for (int k = 0; k < req->n_jobs && status == HS_OK && req->baseline; k++)
        status = start_baseline(req, &plat, &jobs[k], err);
    if (status == HS_OK)
        status = run_shared(req, &plat, jobs, req->n_jobs, bgs, req->n_backgrounds,
                            req->links_path ? &links : NULL, err);
    for (int k = 0; k < req->n_jobs && req->baseline; k++)
        if (jobs[k].child) {
            int st = finish_baseline(&jobs[k], status == HS_OK ? err : NULL);
            if (status == HS_OK)
                status = st;
        }
    if (status == HS_OK && req->links_path)
        status = lk_write_csv(&links, req->links_path, req->links_all, err);
    if (status == HS_OK) {
        const lk_stats *l = req->links_path ? &links : NULL;
        if (req->json)
            print_json(out, req, &plat, jobs, req->n_jobs, l);
        else
            print_tables(out, req, &plat, jobs, req->n_jobs, bgs, req->n_backgrounds, l);
    }
    lk_stats_free(&links);
    for (int b = 0; bgs && b < req->n_backgrounds; b++) {
        list_free(&bgs[b].from);
        list_free(&bgs[b].to);
    }
    free(bgs);
    free_jobs(jobs, req->n_jobs);
    if (plat_loaded)
        plat_free(&plat);
    return status;
}
