/* engine.c: runs a task graph on SimGrid (engine.h): the two streams of every rank, the order
 * between them, and what the run measured.
 *
 * A rank whose streams can overlap gets two actors on its GPU host. The compute actor runs the
 * rank's TG_EXEC tasks as waits of their length; the communication actor runs the others through
 * engine_comm.c. A stream that must wait for a task of the other stream (`after`) sleeps on a
 * semaphore that the other stream releases when it gets there. A rank whose list is one chain
 * (the blocking order: every task waits for the one before it) gets ONE actor that runs the list
 * in order: the second would only ever sleep, and the times are the same, because in a chain a
 * task starts exactly when the task before it ends. SimGrid's cost per call grows with the
 * number of live actors, so this halves the actors and saves the two semaphore calls per
 * communication task. SimGrid events are the cost of a large run (4096 GPUs x ~500 kernels), so
 * a run of kernels that nobody waits for in between is ONE wait of their total duration
 * (engine_kernels.c); the kernels' own start and end times follow by addition, exactly,
 * because nothing else runs on a rank's compute stream. Stretches of kernels and collectives
 * on a private ring are computed ahead for all the ring's members at once (engine_segment.c).
 * The engine's files are layers, this one the top (engine_int.h). */
#include "engine_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <simgrid/actor.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <xbt/log.h>

/* What an actor is told at start: its simulation, its rank and which of its streams it runs. */
typedef struct {
    eng_sim *s;
    int rank;
    void (*code)(eng_sim *s, int rank);
} eng_actor_arg;

/* ---- the streams -------------------------------------------------------------------------- */

/* Block stream `s` of a rank until the other stream has finished its task at list index idx. */
static void wait_other(eng_rank_state *st, int s, int idx)
{
    while (st->done_pos[1 - s] <= idx) {
        st->waiting_for[s] = idx;
        sg_sem_acquire(st->wake[s]);
    }
}

/* Stream `s` has advanced: wake the other stream if what it waits for is now done. */
static void notify_other(eng_rank_state *st, int s)
{
    int other = 1 - s;
    if (st->waiting_for[other] >= 0 && st->done_pos[s] > st->waiting_for[other]) {
        st->waiting_for[other] = -1;
        sg_sem_release(st->wake[other]);
    }
}

/* A TG_FLAG_CYCLE task waits for the first cycle (multiples of the graph's cycle_time_s from
 * the run's start) at or after the kernel it waits for ended: Horovod's background thread
 * fuses and launches what is ready when its cycle starts (horovod/common/operations.cc
 * RunLoopOnce). A task behind another communication task may start later still. */
static void wait_cycle(eng_sim *s, int r, const tg_task *t)
{
    const eng_rank_state *st = &s->rs[r];
    double period = s->g->cycle_time_s, now = simgrid_get_clock();
    double ready = t->after >= 0 && st->done_s ? st->done_s[t->after] : now;
    double launch = s->t0_s + ceil((ready - s->t0_s) / period) * period;
    if (launch > now)
        sg_actor_sleep_until(launch);
}

/* Run communication task i of rank r on the calling actor and record its times. */
static void run_comm(eng_sim *s, int r, int i)
{
    eng_rank_state *st = &s->rs[r];
    if ((s->g->ranks[r].tasks[i].flags & TG_FLAG_CYCLE) && s->g->cycle_time_s > 0)
        wait_cycle(s, r, &s->g->ranks[r].tasks[i]);
    double start = simgrid_get_clock();
    st->seg_next = -1;
    eng_comm_run(s, r, &s->g->ranks[r].tasks[i]);
    if (st->seg_next >= 0) /* a computed segment has accounted for it (engine_segment.c) */
        return;
    double end = simgrid_get_clock();
    if (s->start_s) {
        s->start_s[r][i] = start;
        s->end_s[r][i] = end;
    }
    st->busy_s[1] += end - start;
    st->last_end_s[1] = end;
}

/* The compute stream of rank r: its kernels, each run after what it waits for. */
static void compute_stream(eng_sim *s, int r)
{
    const tg_rank *list = &s->g->ranks[r];
    eng_rank_state *st = &s->rs[r];
    for (int i = eng_next_of(list, 0, 0); i < list->n_tasks;) {
        st->current[0] = i;
        if (list->tasks[i].after >= 0) {
            double t0 = simgrid_get_clock();
            wait_other(st, 0, list->tasks[i].after);
            st->exposed_s += simgrid_get_clock() - t0;
        }
        int last = eng_run_kernels(s, r, i);
        st->done_pos[0] = last + 1;
        notify_other(st, 0);
        i = eng_next_of(list, 0, last + 1);
    }
    st->finished[0] = true;
}

/* The communication stream of rank r. */
static void comm_stream(eng_sim *s, int r)
{
    const tg_rank *list = &s->g->ranks[r];
    eng_rank_state *st = &s->rs[r];
    for (int i = eng_next_of(list, 1, 0); i < list->n_tasks; i = eng_next_of(list, 1, i + 1)) {
        st->current[1] = i;
        if (list->tasks[i].after >= 0)
            wait_other(st, 1, list->tasks[i].after);
        run_comm(s, r, i);
        st->done_pos[1] = i + 1;
        notify_other(st, 1);
    }
    st->finished[1] = true;
}

/* Is the list one chain: does every task that follows a task of the other stream wait for it?
 * Then running the list in order on one actor starts every task when the task before it ends,
 * as the two streams would: its own stream's task before it has ended too, by induction. */
static bool chained(const tg_rank *list)
{
    for (int i = 1; i < list->n_tasks; i++) {
        const tg_task *t = &list->tasks[i];
        if (t->after >= i ||
            (tg_stream(t) != tg_stream(&list->tasks[i - 1]) && t->after != i - 1))
            return false;
    }
    return true;
}

/* Both streams of a chained rank on one actor. The compute stream's exposed time is what the
 * compute actor would have waited: from the end of its previous kernels (or the start) to the
 * end of the communication task its next kernel waits for, which has just ended. */
static void both_streams(eng_sim *s, int r)
{
    const tg_rank *list = &s->g->ranks[r];
    eng_rank_state *st = &s->rs[r];
    double ready_s = simgrid_get_clock(); /* when the compute stream became free */
    for (int i = 0; i < list->n_tasks;) {
        int stream = tg_stream(&list->tasks[i]);
        st->current[stream] = i;
        if (stream == 1) {
            run_comm(s, r, i++);
            if (st->seg_next >= 0) { /* tasks up to seg_next were computed, kernels too */
                i = st->seg_next;
                ready_s = st->last_end_s[0];
            }
            continue;
        }
        if (list->tasks[i].after >= 0)
            st->exposed_s += simgrid_get_clock() - ready_s;
        i = eng_run_kernels(s, r, i) + 1;
        ready_s = st->last_end_s[0];
    }
    st->finished[0] = st->finished[1] = true;
}

/* What an actor runs: its rank's stream(s), as its start argument says. */
static void actor_main(int argc, char **argv)
{
    (void)argc, (void)argv;
    const eng_actor_arg *a = sg_actor_self_get_data();
    a->code(a->s, a->rank);
}

/* ---- checks ------------------------------------------------------------------------------- */

static int check_placement(const tg_graph *g, const plat_platform *plat, const int *gpu_of_rank,
                           char *err)
{
    if (g->n_ranks < 1)
        return hs_fail(err, HS_EINPUT, "the task graph has no ranks");
    if (g->n_ranks > plat->n_gpus)
        return hs_fail(err, HS_EINPUT, "%d ranks do not fit platform %s (%d GPUs)", g->n_ranks,
                       plat->name, plat->n_gpus);
    uint8_t *taken = calloc((size_t)plat->n_gpus, 1);
    if (!taken)
        return hs_fail(err, HS_EINTERNAL, "out of memory for %d GPUs", plat->n_gpus);
    int status = HS_OK;
    for (int r = 0; r < g->n_ranks && status == HS_OK; r++) {
        int gpu = gpu_of_rank[r];
        if (gpu < 0 || gpu >= plat->n_gpus)
            status = hs_fail(err, HS_EINPUT, "rank %d is placed on GPU %d, not in 0..%d of %s", r,
                             gpu, plat->n_gpus - 1, plat->name);
        else if (taken[gpu]++)
            status = hs_fail(err, HS_EINPUT, "rank %d is placed on GPU %d, which another rank "
                             "already uses", r, gpu);
    }
    free(taken);
    return status;
}

/* What engine.c itself relies on: known ops, sane amounts, `after` naming the other stream. */
static int check_tasks(const tg_graph *g, char *err)
{
    for (int r = 0; r < g->n_ranks; r++) {
        const tg_rank *list = &g->ranks[r];
        for (int i = 0; list->owner == r && i < list->n_tasks; i++) { /* shared: checked once */
            const tg_task *t = &list->tasks[i];
            if (t->op >= TG_OP_COUNT)
                return hs_fail(err, HS_EINTERNAL, "task graph: rank %d task %d: unknown op %d", r,
                               i, t->op);
            if (!isfinite(t->amount) || t->amount < 0)
                return hs_fail(err, HS_EINTERNAL, "task graph: rank %d task %d (%s): amount %g is "
                               "not a finite non-negative number", r, i,
                               tg_op_name((tg_op)t->op), t->amount);
            if (t->after < 0)
                continue;
            if (t->after >= list->n_tasks ||
                tg_stream(&list->tasks[t->after]) == tg_stream(t))
                return hs_fail(err, HS_EINTERNAL, "task graph: rank %d task %d (%s): after=%d is "
                               "not a task of the other stream", r, i,
                               tg_op_name((tg_op)t->op), t->after);
        }
    }
    return HS_OK;
}

/* ---- setup and results -------------------------------------------------------------------- */

/* Mark the tasks some task of the other stream waits for, and give a semaphore to every
 * stream that may have to wait. */
static int prepare_streams(eng_sim *s, char *err)
{
    const tg_graph *g = s->g;
    s->rs = calloc((size_t)g->n_ranks, sizeof *s->rs);
    s->awaited = calloc((size_t)g->n_ranks, sizeof *s->awaited);
    s->one_actor = calloc((size_t)g->n_ranks, sizeof *s->one_actor);
    if (!s->rs || !s->awaited || !s->one_actor)
        return hs_fail(err, HS_EINTERNAL, "out of memory for %d ranks", g->n_ranks);
    for (int r = 0; r < g->n_ranks; r++) {
        const tg_rank *list = &g->ranks[r];
        eng_rank_state *st = &s->rs[r];
        st->waiting_for[0] = st->waiting_for[1] = -1;
        st->current[0] = st->current[1] = -1;
        if (g->cycle_time_s > 0 && !(st->done_s = calloc((size_t)list->n_tasks + 1,
                                                          sizeof *st->done_s)))
            return hs_fail(err, HS_EINTERNAL, "out of memory for rank %d's tasks", r);
        if (list->owner != r) { /* a list shared with an earlier rank: its marks too */
            s->awaited[r] = s->awaited[list->owner];
            s->one_actor[r] = s->one_actor[list->owner];
            st->wake[0] = s->rs[list->owner].wake[0] ? sg_sem_init(0) : NULL;
            st->wake[1] = s->rs[list->owner].wake[1] ? sg_sem_init(0) : NULL;
            continue;
        }
        s->awaited[r] = calloc((size_t)list->n_tasks + 1, 1);
        if (!s->awaited[r])
            return hs_fail(err, HS_EINTERNAL, "out of memory for rank %d's tasks", r);
        s->one_actor[r] = chained(list);
        for (int i = 0; i < list->n_tasks; i++) {
            const tg_task *t = &list->tasks[i];
            if (t->after < 0)
                continue;
            s->awaited[r][t->after] = 1;
            int stream = tg_stream(t);
            if (!st->wake[stream] && !s->one_actor[r])
                st->wake[stream] = sg_sem_init(0);
        }
    }
    return HS_OK;
}

static int prepare_records(eng_sim *s, char *err)
{
    const tg_graph *g = s->g;
    s->start_s = calloc((size_t)g->n_ranks, sizeof *s->start_s);
    s->end_s = calloc((size_t)g->n_ranks, sizeof *s->end_s);
    if (!s->start_s || !s->end_s)
        return hs_fail(err, HS_EINTERNAL, "out of memory for task records");
    for (int r = 0; r < g->n_ranks; r++) {
        size_t n = (size_t)g->ranks[r].n_tasks + 1;
        s->start_s[r] = calloc(n, sizeof **s->start_s);
        s->end_s[r] = calloc(n, sizeof **s->end_s);
        if (!s->start_s[r] || !s->end_s[r])
            return hs_fail(err, HS_EINTERNAL, "out of memory for task records");
    }
    return HS_OK;
}

static void free_records(double **rec, int n_ranks)
{
    for (int r = 0; rec && r < n_ranks; r++)
        free(rec[r]);
    free(rec);
}

static void start_actor(const char *name, sg_host_t host, eng_actor_arg *arg)
{
    sg_actor_t actor = sg_actor_init(name, host); /* its stack: contexts/stack-size */
    sg_actor_set_data(actor, arg);
    sg_actor_start(actor, actor_main, 0, NULL);
}

/* Start the actors of every rank: one for a chained list, else one per stream; a stream without
 * tasks gets none. args has room for two per rank. */
static void start_actors(eng_sim *s, eng_actor_arg *args)
{
    const tg_graph *g = s->g;
    char name[32];
    static void (*const streams[2])(eng_sim *, int) = {compute_stream, comm_stream};
    for (int r = 0; r < g->n_ranks; r++) {
        const tg_rank *list = &g->ranks[r];
        sg_host_t host = s->plat->gpus[s->gpu_of_rank[r]];
        bool empty[2] = {eng_next_of(list, 0, 0) == list->n_tasks,
                         eng_next_of(list, 1, 0) == list->n_tasks};
        s->rs[r].finished[0] = empty[0];
        s->rs[r].finished[1] = empty[1];
        if (s->one_actor[r] && !(empty[0] && empty[1])) {
            args[2 * r] = (eng_actor_arg){s, r, both_streams};
            snprintf(name, sizeof name, "rank%d", r);
            start_actor(name, host, &args[2 * r]);
            continue;
        }
        for (int stream = 0; stream < 2; stream++) {
            if (empty[stream])
                continue;
            args[2 * r + stream] = (eng_actor_arg){s, r, streams[stream]};
            snprintf(name, sizeof name, "rank%d.%s", r, stream ? "comm" : "compute");
            start_actor(name, host, &args[2 * r + stream]);
        }
    }
}

/* The actors the run will have at most: a rank's one or two, and relays for staged messages
 * between GPUs of a node (one per message in flight: a rank's exchange sends two at once). */
static long count_actors(const eng_sim *s)
{
    long n = 0;
    for (int r = 0; r < s->g->n_ranks; r++) {
        const tg_rank *list = &s->g->ranks[r];
        int streams = (eng_next_of(list, 0, 0) < list->n_tasks) +
                      (eng_next_of(list, 1, 0) < list->n_tasks);
        n += s->one_actor[r] && streams > 0 ? 1 : streams;
    }
    return n + (s->host_mem ? 2L * s->g->n_ranks + eng_sinks_count(s) : 0);
}

/* A run that ended with streams still waiting deadlocked. Name a stuck communication stream
 * if there is one: compute streams only ever wait for their own rank's communication. */
static int report_deadlock(const eng_sim *s, double t0, char *err)
{
    int stuck = 0, first_r = -1, first_s = 0;
    for (int stream = 1; stream >= 0; stream--)
        for (int r = 0; r < s->g->n_ranks; r++)
            if (!s->rs[r].finished[stream] && stuck++ == 0) {
                first_r = r;
                first_s = stream;
            }
    if (!stuck)
        return HS_OK;
    const eng_rank_state *st = &s->rs[first_r];
    int i = st->current[first_s];
    const tg_task *t = i >= 0 ? &s->g->ranks[first_r].tasks[i] : NULL;
    char why[64];
    if (st->waiting_for[first_s] >= 0)
        snprintf(why, sizeof why, "waiting for its task %d on the other stream",
                 st->waiting_for[first_s]);
    else
        snprintf(why, sizeof why, "waiting for messages");
    return hs_fail(err, HS_EINTERNAL,
                   "the simulation deadlocked at t=%.9g s: %d stream(s) never finished, among "
                   "them rank %d's %s stream at task %d (%s, peer/group %d), %s; the graph's sends "
                   "and receives do not match or its `after` links form a cycle (an expansion bug)",
                   simgrid_get_clock() - t0, stuck, first_r, first_s ? "communication" : "compute",
                   i, t ? tg_op_name((tg_op)t->op) : "?", t ? tg_peer(s->g, first_r, t) : -1, why);
}

static void fill_result(const eng_sim *s, double t0, eng_result *res)
{
    for (int r = 0; r < s->g->n_ranks; r++) {
        const eng_rank_state *st = &s->rs[r];
        eng_rank_stats *out = &res->ranks[r];
        /* A stream without tasks never set its end (0), hence the clamps. */
        double compute_end = st->last_end_s[0] > t0 ? st->last_end_s[0] - t0 : 0;
        double comm_end = st->last_end_s[1] > t0 ? st->last_end_s[1] - t0 : 0;
        out->end_s = compute_end > comm_end ? compute_end : comm_end;
        out->compute_busy_s = st->busy_s[0];
        out->comm_busy_s = st->busy_s[1];
        /* The rank's iteration is over when its last message is, so communication still
         * running after the last kernel is exposed too: end = compute busy + exposed. */
        out->exposed_comm_s = st->exposed_s + (out->end_s - compute_end);
        if (out->end_s > res->makespan_s)
            res->makespan_s = out->end_s;
        for (int i = 0; s->start_s && i < s->g->ranks[r].n_tasks; i++) {
            s->start_s[r][i] -= t0;
            s->end_s[r][i] -= t0;
        }
    }
    res->messages = s->messages;
    res->bytes_sent = s->bytes_sent;
    res->computed = s->computed;
    res->in_segments = s->in_segments;
    res->self_relayed = s->self_relayed;
    res->messages_received = s->messages_received;
    res->bytes_received = s->bytes_received;
    res->rings_stepped = s->rings_stepped;
    res->rings_over_budget = s->rings_over_budget;
    for (int gi = 0; gi < s->g->n_groups; gi++) {
        const tg_group *grp = &s->g->groups[gi];
        if (grp->n == 0)
            continue;
        eng_rank_stats *lead = &res->ranks[grp->ranks[0]];
        lead->rings_stepped += s->ring_exposed && s->ring_exposed[gi];
        lead->rings_over_budget += s->ring_over && s->ring_over[gi];
    }
}

/* The caller's options, or the defaults, checked: a bad value is the caller's input. */
static int take_options(eng_sim *s, const eng_options *opt, char *err)
{
    s->opt = opt ? *opt : (eng_options){.fidelity = ENG_FLOW, .exec_speed_scale = 1};
    if (!(s->opt.exec_speed_scale > 0) || !isfinite(s->opt.exec_speed_scale))
        return hs_fail(err, HS_EINPUT, "engine: exec_speed_scale %g is not a positive number",
                       s->opt.exec_speed_scale);
    if (s->opt.fidelity != ENG_FLOW && s->opt.fidelity != ENG_STEP)
        return hs_fail(err, HS_EINPUT, "engine: unknown fidelity %d", (int)s->opt.fidelity);
    return HS_OK;
}

/* Everything the run needs before its first actor starts, each step only if the one before
 * worked, so that a failure leaves what was made for release_sim. */
static int prepare_sim(eng_sim *s, char *err)
{
    int status = prepare_streams(s, err);
    if (status == HS_OK)
        status = eng_comm_prepare(s, err);
    if (status == HS_OK && s->opt.record_tasks)
        status = prepare_records(s, err);
    if (status == HS_OK)
        status = eng_fit_actors(count_actors(s), err);
    if (status == HS_OK)
        status = eng_sinks_start(s, err);
    return status;
}

/* Start the actors, run SimGrid to the end and, if nothing deadlocked, fill res; the task
 * records move into res, so release_sim does not free them. */
static int simulate(eng_sim *s, eng_actor_arg *args, eng_result *res, char *err)
{
    double t0 = simgrid_get_clock();
    s->t0_s = t0;
    start_actors(s, args);
    /* On a deadlock SimGrid logs a notice (kept) and every actor's state (thousands of lines,
     * silenced), then kills the actors and returns; our message names a stuck task. */
    xbt_log_control_set("ker_engine.thresh:critical");
    simgrid_run();
    int status = report_deadlock(s, t0, err);
    if (status != HS_OK)
        return status;
    res->n_ranks = s->g->n_ranks;
    fill_result(s, t0, res);
    if (s->opt.record_tasks) {
        res->task_start_s = s->start_s;
        res->task_end_s = s->end_s;
        s->start_s = s->end_s = NULL;
    }
    return HS_OK;
}

/* Free what prepare_sim made, however far it got. */
static void release_sim(eng_sim *s)
{
    const tg_graph *g = s->g;
    eng_sinks_release(s);
    eng_comm_release(s);
    for (int r = 0; s->rs && r < g->n_ranks; r++)
        for (int stream = 0; stream < 2; stream++)
            if (s->rs[r].wake[stream])
                sg_sem_destroy(s->rs[r].wake[stream]);
    for (int r = 0; s->awaited && r < g->n_ranks; r++)
        if (g->ranks[r].owner == r)
            free(s->awaited[r]);
    for (int r = 0; s->rs && r < g->n_ranks; r++)
        free(s->rs[r].done_s);
    free(s->awaited);
    free(s->one_actor);
    free(s->rs);
    free_records(s->start_s, g->n_ranks);
    free_records(s->end_s, g->n_ranks);
}

int eng_run(const tg_graph *g, const plat_platform *plat, const int *gpu_of_rank,
            const eng_options *opt, eng_result *res, char *err)
{
    memset(res, 0, sizeof *res);
    eng_sim s = {.g = g, .plat = plat, .gpu_of_rank = gpu_of_rank,
                 .nics_per_node = plat_nics_per_node(plat)};
    int status = take_options(&s, opt, err);
    if (status == HS_OK)
        status = check_placement(g, plat, gpu_of_rank, err);
    if (status == HS_OK)
        status = check_tasks(g, err);
    if (status != HS_OK)
        return status;

    eng_actor_arg *args = calloc(2 * (size_t)g->n_ranks, sizeof *args);
    res->ranks = calloc((size_t)g->n_ranks, sizeof *res->ranks);
    if (!args || !res->ranks)
        status = hs_fail(err, HS_EINTERNAL, "out of memory for %d ranks", g->n_ranks);
    if (status == HS_OK)
        status = prepare_sim(&s, err);
    if (status == HS_OK)
        status = simulate(&s, args, res, err);
    release_sim(&s);
    free(args);
    if (status != HS_OK) {
        free(res->ranks);
        memset(res, 0, sizeof *res);
    }
    return status;
}

void eng_result_free(eng_result *res)
{
    free(res->ranks);
    free_records(res->task_start_s, res->n_ranks);
    free_records(res->task_end_s, res->n_ranks);
    memset(res, 0, sizeof *res);
}
