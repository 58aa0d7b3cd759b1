/* fabric_run.c: the jobs placed, loaded and expanded, each alone (--baseline) and all together
 * with the background flows (fabric_int.h).
 *
 * A job's iteration is read off its own ranks exactly as a single run is (critical.h): the
 * rank that finished last gives compute, communication and exposed communication, and its end
 * is the job's iteration time. Jobs start together at t = 0. */
#include "fabric_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <simgrid/actor.h>
#include <simgrid/engine.h>
#include <simgrid/mailbox.h>

#include "expand.h"
#include "footprint.h"

/* A background flow is a sequence of transfers of this many seconds' worth of its rate each:
 * short enough that the bytes counted when the jobs end (and the daemons with them) miss at
 * most this much, long enough that the route latency each transfer pays costs little
 * (31 us of 10 ms on ABCI). */
#define FB_BG_CHUNK_S 0.01
/* A background flow stops after this much simulated time, so that a deadlocked job graph
 * (an expansion bug) still ends instead of running forever beside the flows. */
#define FB_BG_MAX_S 3600.0

/* What a background actor is told. */
typedef struct {
    lk_collector *col;        /* may be NULL: traffic without statistics */
    sg_mailbox_t mailbox;     /* the flow's own, between its two actors */
    int from_gpu, to_gpu;
    double rate_Bps;
} fb_flow;

/* ---- placement ---------------------------------------------------------------------------- */

/* Explicit GPU sets: in range (checked when parsed), not repeated, not another job's. */
static int claim_gpu_list(fb_job *j, int *owner, const fb_job *jobs, char *err)
{
    for (int r = 0; r < j->spec.gpus; r++) {
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

/* Whole free nodes of the job's racks (placement.h's pl_claim_nodes). */
static int claim_nodes(const plat_platform *plat, fb_job *j, int *owner, char *err)
{
    for (int i = 0; i < j->racks.n; i++)
        for (int k = 0; k < i; k++)
            if (j->racks.v[k] == j->racks.v[i])
                return hs_fail(err, HS_EINPUT, "--job %d: racks= lists rack %d twice", j->index,
                               j->racks.v[i]);
    int gpn = plat->gpus_per_node, need = (j->spec.gpus + gpn - 1) / gpn;
    int got = pl_claim_nodes(plat, j->placement, j->racks.n ? j->racks.v : NULL, j->racks.n,
                             owner, j->spec.gpus, j->gpu_of_rank);
    if (got < 0)
        return hs_fail(err, HS_EINTERNAL, "out of memory placing --job %d", j->index);
    if (got < need)
        return hs_fail(err, HS_EINPUT, "--job %d (%s): needs %d whole free nodes for %d GPUs, "
                       "but its racks have only %d left", j->index, j->name, need, j->spec.gpus,
                       got);
    for (int r = 0; r < j->spec.gpus; r++)
        owner[j->gpu_of_rank[r]] = j->index;
    return HS_OK;
}

/* The most GPUs of one node the job uses (its own: count[] starts zero and is left so), or
 * every job's (count[] holds them all). */
static int most_on_node(const fb_job *j, int gpn, int *count, bool own)
{
    int most = 0;
    for (int r = 0; r < j->spec.gpus; r++) {
        int *on_node = &count[j->gpu_of_rank[r] / gpn];
        *on_node += own;
        most = *on_node > most ? *on_node : most;
    }
    for (int r = 0; r < j->spec.gpus && own; r++)
        count[j->gpu_of_rank[r] / gpn] = 0;
    return most;
}

/* Each job's gpus_on_node: the GPUs running an input loader, every job's, on the busiest node
 * it uses, since the loaders of a node's GPUs share its CPU cores whichever job they run
 * (loader_share, job.c) and a GPU whose job runs no loader keeps none busy; a job spread one
 * GPU a node has its node's cores to itself. And own_gpus_on_node, the same counting its GPUs
 * alone (a --baseline's). */
int fb_count_gpus_on_nodes(const plat_platform *plat, fb_job *jobs, int n_jobs, char *err)
{
    int gpn = plat->gpus_per_node, n_nodes = (plat->n_gpus + gpn - 1) / gpn;
    int *busy = calloc((size_t)n_nodes, sizeof *busy); /* GPUs running a loader on node n */
    int *own = calloc((size_t)n_nodes, sizeof *own);   /* one job's, zero between jobs */
    if (!busy || !own) {
        free(busy), free(own);
        return hs_fail(err, HS_EINTERNAL, "out of memory for %d nodes", n_nodes);
    }
    for (int i = 0; i < n_jobs; i++)
        for (int r = 0; r < jobs[i].spec.gpus && jobs[i].runs_loader; r++)
            busy[jobs[i].gpu_of_rank[r] / gpn]++;
    for (int i = 0; i < n_jobs; i++) {
        jobs[i].gpus_on_node = most_on_node(&jobs[i], gpn, busy, false);
        jobs[i].own_gpus_on_node = most_on_node(&jobs[i], gpn, own, true);
    }
    free(busy);
    free(own);
    return HS_OK;
}

int fb_place_jobs(const plat_platform *plat, fb_job *jobs, int n_jobs, char *err)
{
    int *owner = calloc((size_t)plat->n_gpus, sizeof *owner); /* job index (1-based) or 0 */
    if (!owner)
        return hs_fail(err, HS_EINTERNAL, "out of memory for %d GPUs", plat->n_gpus);
    int status = HS_OK, total = 0;
    for (int i = 0; i < n_jobs; i++)
        total += jobs[i].spec.gpus > plat->n_gpus ? plat->n_gpus + 1 : jobs[i].spec.gpus;
    if (total > plat->n_gpus)
        status = hs_fail(err, HS_EINPUT, "--job: the jobs ask for more GPUs than platform %s has "
                         "(%d)", plat->name, plat->n_gpus);
    for (int i = 0; i < n_jobs && status == HS_OK; i++) {
        jobs[i].gpu_of_rank = malloc((size_t)jobs[i].spec.gpus * sizeof *jobs[i].gpu_of_rank);
        if (!jobs[i].gpu_of_rank)
            status = hs_fail(err, HS_EINTERNAL, "out of memory placing --job %d", jobs[i].index);
    }
    for (int i = 0; i < n_jobs && status == HS_OK; i++)
        if (jobs[i].gpu_list.n)
            status = claim_gpu_list(&jobs[i], owner, jobs, err);
    for (int i = 0; i < n_jobs && status == HS_OK; i++)
        if (!jobs[i].gpu_list.n)
            status = claim_nodes(plat, &jobs[i], owner, err);
    free(owner);
    return status;
}

/* ---- loading ------------------------------------------------------------------------------ */

int fb_load_workload(const plat_platform *plat, fb_job *j, char *err)
{
    char inner[HS_ERR_LEN];
    int status = job_load_workload(&j->spec, &j->job, inner);
    j->runs_loader = status == HS_OK && job_runs_loader(&j->spec, plat, &j->job.wl);
    return status == HS_OK ? HS_OK
                           : hs_fail(err, status, "--job %d (%s): %s", j->index, j->name, inner);
}

int fb_load_job(const plat_platform *plat, fb_job *j, char *err)
{
    char inner[HS_ERR_LEN];
    j->job.gpus_on_node = j->gpus_on_node; /* the placement's, for its loaders' CPU share */
    j->job.own_gpus_on_node = j->own_gpus_on_node;
    int status = job_load_strategy(&j->spec, plat, &j->job, inner);
    if (status == HS_OK)
        status = fp_fill(&j->job.wl, j->job.kc, &j->job.st, j->spec.batch,
                         plat->gpu_memory_bytes, &j->shared, inner);
    if (status == HS_OK) {
        /* the job's overlap (overlap=, --overlap, its runtime's), as sm_run's for one job */
        ex_options xo = ex_options_of(&j->job.st, false);
        status = ex_expand_opt(&j->job.wl, j->job.kc, &j->job.st, j->spec.batch, &xo,
                               &j->graph, inner);
        j->graph_made = status == HS_OK;
    }
    /* prefix the module's message (which names -w, -s, ...) with the --job it is about */
    return status == HS_OK ? HS_OK
                           : hs_fail(err, status, "--job %d (%s): %s", j->index, j->name, inner);
}

/* Seconds a GPU's input pipeline takes for the job's iteration (hs_estimate_input_floor); 0
 * without the compute model. */
static double job_input_s(const fb_job *j)
{
    return kt_compute_input_s(j->job.kc, j->spec.batch, st_input_groups(&j->job.st));
}

/* ---- each job alone ----------------------------------------------------------------------- */

/* What a --baseline child is given, and what it sends back. */
typedef struct {
    const fb_request *req;
    const plat_platform *plat;
    const fb_job *j;
} fb_child_in;

typedef struct {
    int status;
    char err[HS_ERR_LEN];
    hs_times times;
} fb_child_out;

static void baseline_child(void *arg, void *answer)
{
    const fb_child_in *in = arg;
    fb_child_out *out = answer;
    eng_options eo = sm_engine_options(in->req->fidelity, false);
    eo.step_budget_messages = in->req->step_budget_messages;
    eng_result res;
    out->status = sm_engine_run(&in->j->graph, in->plat, in->j->gpu_of_rank, &eo, NULL, &res,
                                out->err);
    if (out->status == HS_OK) {
        out->times = cr_times(&res, 0, res.n_ranks);
        /* as the shared run does, its loaders with the node's cores to the job's own GPUs */
        double scale = in->j->job.input_alone_scale > 0 ? in->j->job.input_alone_scale : 1.0;
        hs_times_host_step(&out->times, kt_compute_step_host_s(in->j->job.kc));
        hs_times_input_floor(&out->times, job_input_s(in->j) * scale);
        eng_result_free(&res);
    }
}

int fb_start_baseline(const fb_request *req, const plat_platform *plat, fb_job *j, char *err)
{
    fb_child_in in = {.req = req, .plat = plat, .j = j};
    hs_child_spec spec = {.work = baseline_child, .arg = &in,
                          .answer_bytes = sizeof(fb_child_out), .what = "--baseline"};
    return hs_child_start(&j->child, &spec, err);
}

int fb_finish_baseline(fb_job *j, char *err)
{
    fb_child_out out;
    hs_child_end end;
    int status = hs_child_wait(&j->child, &out, &end, err);
    if (status != HS_OK)
        return status;
    if (end.exit_status != 0 || !end.answered)
        return hs_fail(err, HS_EINTERNAL, "--baseline: the run of --job %d alone failed", j->index);
    if (out.status != HS_OK)
        return hs_fail(err, out.status, "--baseline, --job %d alone: %s", j->index, out.err);
    j->alone = out.times;
    return HS_OK;
}

/* ---- background flows --------------------------------------------------------------------- */

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
    sg_actor_set_stacksize(a, 64); /* KiB, as SimGrid 3.32 takes it */
    sg_actor_set_data(a, f);
    sg_actor_start(a, code, 0, NULL);
}

/* What the shared run's before_run hook needs. */
typedef struct {
    const plat_platform *plat;
    const fb_background *bgs;
    int n_bg;
    fb_flow *flows;           /* allocated by start_background, freed by the caller */
} fb_bg_ctx;

/* Two daemon actors per background flow: its sender on the source GPU's host, its receiver on
 * the destination's (sm_watch.before_run). */
static int start_background(void *ctx, lk_collector *col, char *err)
{
    fb_bg_ctx *c = ctx;
    int n = 0;
    for (int b = 0; b < c->n_bg; b++)
        n += fb_flows_of(&c->bgs[b]);
    c->flows = calloc((size_t)(n ? n : 1), sizeof *c->flows);
    if (!c->flows)
        return hs_fail(err, HS_EINTERNAL, "out of memory for %d background flows", n);
    int k = 0, gpn = c->plat->gpus_per_node;
    char name[48];
    for (int b = 0; b < c->n_bg; b++) {
        const fb_background *bg = &c->bgs[b];
        for (int i = 0; i < fb_flows_of(bg); i++, k++) {
            snprintf(name, sizeof name, "background%d.%d", bg->index, i);
            fb_flow *f = &c->flows[k];
            *f = (fb_flow){col, sg_mailbox_by_name(name),
                           bg->from.v[i % bg->from.n] * gpn + bg->gpu,
                           bg->to.v[i % bg->to.n] * gpn + bg->gpu, bg->rate_Bps};
            start_daemon(name, c->plat->gpus[f->from_gpu], f, background_sender);
            start_daemon(name, c->plat->gpus[f->to_gpu], f, background_receiver);
        }
    }
    return HS_OK;
}

/* ---- all together ------------------------------------------------------------------------- */

/* Every job's graph in one, job k's ranks and groups after those of jobs 0..k-1; per rank its
 * GPU and its job. */
static int merge_graphs(fb_job *jobs, int n_jobs, tg_graph *all, int **gpu_of_rank,
                        int **job_of_rank, char *err)
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
    *job_of_rank = malloc((size_t)total * sizeof **job_of_rank);
    if (!*gpu_of_rank || !*job_of_rank)
        return hs_fail(err, HS_EINTERNAL, "out of memory merging %d ranks", total);
    for (int k = 0; k < n_jobs && status == HS_OK; k++) {
        for (int r = 0; r < jobs[k].graph.n_ranks; r++) {
            (*gpu_of_rank)[jobs[k].rank_offset + r] = jobs[k].gpu_of_rank[r];
            (*job_of_rank)[jobs[k].rank_offset + r] = k;
        }
        status = tg_append(all, &jobs[k].graph, jobs[k].rank_offset, err);
    }
    return status;
}

int fb_run_shared(const fb_request *req, const plat_platform *plat, fb_job *jobs, int n_jobs,
                  const fb_background *bgs, int n_bg, lk_stats *links, char *err)
{
    tg_graph all;
    memset(&all, 0, sizeof all);
    int *gpu_of_rank = NULL, *job_of_rank = NULL;
    fb_bg_ctx bg = {.plat = plat, .bgs = bgs, .n_bg = n_bg};
    eng_result res;
    memset(&res, 0, sizeof res);
    int status = merge_graphs(jobs, n_jobs, &all, &gpu_of_rank, &job_of_rank, err);
    if (status == HS_OK) {
        eng_options eo = sm_engine_options(req->fidelity, false);
        eo.step_budget_messages = req->step_budget_messages;
        sm_watch watch = {.links = links, .n_jobs = n_jobs, .job_of_rank = job_of_rank,
                          .before_run = n_bg ? start_background : NULL, .ctx = &bg};
        status = sm_engine_run(&all, plat, gpu_of_rank, &eo, &watch, &res, err);
    }
    for (int k = 0; status == HS_OK && k < n_jobs; k++) {
        fb_job *j = &jobs[k];
        j->shared.iteration = cr_times(&res, j->rank_offset, j->spec.gpus);
        for (int r = j->rank_offset; r < j->rank_offset + j->spec.gpus; r++) {
            j->rings_stepped += res.ranks[r].rings_stepped;
            j->rings_over_budget += res.ranks[r].rings_over_budget;
        }
        hs_estimate_host_step(&j->shared, kt_compute_step_host_s(j->job.kc));
        hs_estimate_input_floor(&j->shared, job_input_s(j));
        hs_estimate_scale_epoch(&j->shared, j->job.wl.samples, j->spec.batch);
    }
    eng_result_free(&res);
    free(bg.flows);
    free(gpu_of_rank);
    free(job_of_rank);
    tg_free(&all);
    return status;
}
