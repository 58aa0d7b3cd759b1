/* test_links.c: link statistics (links.h) against what the messages must have done.
 *
 * Every case runs in a fork()ed child (SimGrid: one engine per process) that loads ABCI, runs
 * a task graph with a collector, and checks the statistics against expectations computed
 * independently: routes asked of SimGrid directly (sg_host_get_route), costs from plat_route,
 * bytes from the graph. The child reports its first failed check; the parent fails with it.
 * The identities checked: the messages' bytes are the bytes the engine sent; every link of a
 * message's route carries its bytes (so the sum over links = sum of bytes x route length);
 * busy time, utilisations and congestion share of messages whose timing is known by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <simgrid/actor.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/link.h>
#include <simgrid/mailbox.h>
#include <xbt/dynar.h>

#include "child_result.h"
#include "engine.h"
#include "expand.h"
#include "out_helpers.h"
#include "links.h"
#include "platform.h"
#include "strategy.h"
#include "taskgraph.h"
#include "workload.h"

/* What a child reports: the first failed check, if any. */
typedef struct {
    int failed;
    char msg[1024];
} case_out;

typedef void (*case_fn)(const plat_platform *plat, case_out *out);

static void check(case_out *out, int ok, const char *fmt, ...)
{
    if (ok || out->failed)
        return;
    out->failed = 1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out->msg, sizeof out->msg, fmt, ap);
    va_end(ap);
}

static void check_rel(case_out *out, double actual, double expected, double tol, const char *what)
{
    double scale = fabs(expected) > 0 ? fabs(expected) : 1;
    check(out, fabs(actual - expected) <= tol * scale, "%s: got %.17g, expected %.17g", what,
          actual, expected);
}

static void record_load_failure(void *out, const char *err)
{
    check(out, 0, "plat_load: %s", err);
}

static void run_case(case_fn fn)
{
    case_out out;
    memset(&out, 0, sizeof out);
    child_result_run("abci", (void (*)(const plat_platform *, void *))fn, record_load_failure,
                     &out, sizeof out);
    if (out.failed)
        fail_msg("%s", out.msg);
}

/* ---- helpers (in the child) --------------------------------------------------------------- */

/* The statistics of the link SimGrid calls sg_name ("x_UP", "x_DOWN" or "x"). */
static const lk_link *find_link(const lk_stats *st, const char *sg_name)
{
    char name[PLAT_NAME_LEN];
    snprintf(name, sizeof name, "%s", sg_name);
    lk_direction dir = LK_BOTH;
    size_t n = strlen(name);
    if (n > 3 && strcmp(name + n - 3, "_UP") == 0) {
        dir = LK_UP;
        name[n - 3] = '\0';
    } else if (n > 5 && strcmp(name + n - 5, "_DOWN") == 0) {
        dir = LK_DOWN;
        name[n - 5] = '\0';
    }
    for (int i = 0; i < st->n_links; i++)
        if (st->links[i].direction == dir && strcmp(st->links[i].name, name) == 0)
            return &st->links[i];
    return NULL;
}

/* Add `bytes` to expected[] for every link of the route from GPU a to GPU b, indexed like
 * st->links (found by name, so the collector's own route resolution is not used). */
static int add_route(const plat_platform *plat, const lk_stats *st, int a, int b, double bytes,
                     double *expected)
{
    xbt_dynar_t d = xbt_dynar_new(sizeof(sg_link_t), NULL);
    sg_host_get_route(plat->gpus[a], plat->gpus[b], d);
    int n = (int)xbt_dynar_length(d);
    for (int k = 0; k < n; k++) {
        const lk_link *l = find_link(st, sg_link_get_name(xbt_dynar_get_as(d, (unsigned)k,
                                                                             sg_link_t)));
        if (l)
            expected[l - st->links] += bytes;
    }
    xbt_dynar_free(&d);
    return n;
}

/* Run g on gpus with a collector (job of each GPU: jobs[r] for rank r, or 0). */
static int run_collected(const plat_platform *plat, const tg_graph *g, const int *gpus,
                         eng_fidelity fid, const int *jobs, int n_jobs, eng_result *res,
                         lk_stats *st, case_out *out)
{
    char err[HS_ERR_LEN];
    lk_collector *col;
    int status = lk_begin(plat, n_jobs, &col, err);
    check(out, status == HS_OK, "lk_begin: %s", err);
    if (status != HS_OK)
        return status;
    for (int r = 0; jobs && r < g->n_ranks; r++)
        lk_set_job(col, gpus[r], jobs[r]);
    /* computed: as simulate.c gives it, which tells the engine that link statistics watch
     * (they time a message by its sender's wait: eng_options) */
    eng_options opt = {.fidelity = fid, .exec_speed_scale = 1, .exact_messages = true,
                       .computed = lk_computed_message, .computed_ctx = col};
    status = eng_run(g, plat, gpus, &opt, res, err);
    check(out, status == HS_OK, "eng_run: %s", err);
    int lk_status = lk_end(col, res->makespan_s, st, err);
    check(out, lk_status == HS_OK, "lk_end: %s", err);
    return status != HS_OK ? status : lk_status;
}

static tg_task comm_task(tg_op op, int peer, double bytes)
{
    return (tg_task){.op = (uint8_t)op, .algo = TG_ALGO_RING, .layer = -1, .peer = peer,
                     .after = -1, .amount = bytes};
}

/* The identities every run must satisfy. */
static void check_conservation(const eng_result *res, const lk_stats *st, case_out *out)
{
    check(out, st->all.messages == res->messages, "messages: collector %ld, engine %ld",
          st->all.messages, res->messages);
    check_rel(out, st->all.bytes, res->bytes_sent, 0, "message bytes vs engine bytes_sent");
    double sum = 0;
    long crossings = 0;
    for (int i = 0; i < st->n_links; i++) {
        sum += st->links[i].bytes;
        crossings += st->links[i].messages;
    }
    check_rel(out, sum, st->all.route_bytes, 1e-12, "sum over links vs bytes x route length");
    double jobs = 0;
    for (int j = 0; j < st->n_jobs; j++)
        jobs += st->jobs[j].bytes;
    check_rel(out, jobs, st->all.bytes, 0, "per-job bytes");
    check(out, crossings >= st->all.messages, "fewer link crossings than messages");
}

/* ---- cases -------------------------------------------------------------------------------- */

/* One message across racks: every link of its 13-link route carries it, nothing else does;
 * busy = latency + bytes / bottleneck; peak of the bottleneck = its share of that time. */
static void one_message(const plat_platform *plat, case_out *out)
{
    const double bytes = 1e8;
    int gpus[2] = {0, 40 * 4 + 2}; /* n0000-gpu0 -> n0040-gpu2 (rack 0 -> rack 1) */
    tg_graph g;
    tg_init(&g, 2, NULL);
    tg_add(&g, 0, comm_task(TG_SEND, 1, bytes));
    tg_add(&g, 1, comm_task(TG_RECV, 0, bytes));
    eng_result res;
    lk_stats st;
    if (run_collected(plat, &g, gpus, ENG_FLOW, NULL, 1, &res, &st, out) != HS_OK)
        return;
    check_conservation(&res, &st, out);
    double *expected = calloc((size_t)st.n_links, sizeof *expected);
    int hops = add_route(plat, &st, gpus[0], gpus[1], bytes, expected);
    check(out, hops == 13, "route rack to rack has %d links, README says 13", hops);
    double lat_s, bw_Bps;
    plat_route(plat, gpus[0], gpus[1], &lat_s, &bw_Bps);
    double alone_s = lat_s + bytes / bw_Bps;
    int used = 0;
    for (int i = 0; i < st.n_links; i++) {
        const lk_link *l = &st.links[i];
        check_rel(out, l->bytes, expected[i], 0, l->name);
        if (!expected[i])
            continue;
        used++;
        check(out, l->messages == 1, "%s: %ld messages", l->name, l->messages);
        check_rel(out, l->busy_s, alone_s, 1e-9, "busy time");
        check_rel(out, l->mean_util, bytes / (l->bandwidth_Bps * res.makespan_s), 1e-12,
                  "mean utilisation");
        check_rel(out, l->peak_util, bytes / (l->bandwidth_Bps * alone_s), 1e-9,
                  "peak utilisation");
    }
    check(out, used == 13, "%d links carried the message", used);
    check_rel(out, st.all.route_bytes, 13 * bytes, 0, "route bytes");
    check(out, fabs(st.all.congestion_share) < 1e-9, "congestion share of a lone message %g",
          st.all.congestion_share);
    check_rel(out, st.all.actual_s, alone_s, 1e-9, "its duration");
    /* the kinds from the generator's names */
    const lk_link *r = find_link(&st, "r00-uplink_UP"), *s = find_link(&st, "spine-switch");
    const lk_link *n = find_link(&st, "n0040-nic1_DOWN"), *p = find_link(&st, "n0000-pcie0_UP");
    const lk_link *lu = find_link(&st, "l002-uplink_DOWN"), *ls = find_link(&st, "l000-switch");
    const lk_link *rs = find_link(&st, "r01-switch"), *nv = find_link(&st, "n0000-nvl0-1_UP");
    check(out, r && r->kind == LK_RACK_UP && r->direction == LK_UP, "r00-uplink_UP kind");
    check(out, s && s->kind == LK_SPINE && s->direction == LK_BOTH, "spine kind");
    check(out, n && n->kind == LK_NIC && n->direction == LK_DOWN && n->bytes == bytes, "nic");
    check(out, p && p->kind == LK_PCIE && p->bytes == bytes, "pcie");
    check(out, lu && lu->kind == LK_LEAF_UP && lu->bytes == bytes, "leaf uplink");
    check(out, ls && ls->kind == LK_LEAF_SWITCH && rs && rs->kind == LK_RACK_SWITCH, "switches");
    check(out, nv && nv->kind == LK_NVLINK && nv->bytes == 0, "nvlink");
    /* the narrowest links are the fullest; equal ones come in name order */
    check(out, st.top[0] >= 0 && strcmp(st.links[st.top[0]].name, "n0000-nic0") == 0 &&
                   st.top[1] >= 0 && strcmp(st.links[st.top[1]].name, "n0040-nic1") == 0 &&
                   st.top[2] >= 0 && st.links[st.top[2]].kind == LK_PCIE,
          "top links: %s, %s", st.top[0] >= 0 ? st.links[st.top[0]].name : "none",
          st.top[1] >= 0 ? st.links[st.top[1]].name : "none");
    check(out, st.by_kind[LK_NIC].links_used == 2 && st.by_kind[LK_NVLINK].links_used == 0,
          "by kind: nic %d nvlink %d", st.by_kind[LK_NIC].links_used,
          st.by_kind[LK_NVLINK].links_used);
    free(expected);
    lk_stats_free(&st);
    eng_result_free(&res);
    tg_free(&g);
}

/* A ring allreduce over 8 GPUs on two nodes in two racks: member i sends 2(n-1) chunks of
 * m/n to member i+1 (step: one message each; flow: one message of them all). */
static void ring(const plat_platform *plat, case_out *out, eng_fidelity fid)
{
    const int n = 8;
    const double m = 8e7;
    int gpus[8] = {0, 1, 2, 3, 40 * 4, 40 * 4 + 1, 40 * 4 + 2, 40 * 4 + 3};
    int ranks[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    tg_graph g;
    tg_init(&g, n, NULL);
    int group = tg_add_group(&g, ranks, n);
    for (int r = 0; r < n; r++)
        tg_add(&g, r, comm_task(TG_ALLREDUCE, group, m));
    eng_result res;
    lk_stats st;
    if (run_collected(plat, &g, gpus, fid, NULL, 1, &res, &st, out) != HS_OK)
        return;
    check_conservation(&res, &st, out);
    double *expected = calloc((size_t)st.n_links, sizeof *expected);
    double edge_bytes = 2.0 * (n - 1) * llround(m / n), route_bytes = 0;
    for (int i = 0; i < n; i++)
        route_bytes += edge_bytes * add_route(plat, &st, gpus[i], gpus[(i + 1) % n], edge_bytes,
                                              expected);
    for (int i = 0; i < st.n_links; i++)
        check_rel(out, st.links[i].bytes, expected[i], 0, st.links[i].name);
    check_rel(out, st.all.bytes, n * edge_bytes, 0, "ring bytes");
    check_rel(out, st.all.route_bytes, route_bytes, 1e-15, "ring route bytes");
    long expect_msgs = fid == ENG_STEP ? (long)n * 2 * (n - 1) : n;
    check(out, st.all.messages == expect_msgs, "%ld messages, expected %ld", st.all.messages,
          expect_msgs);
    free(expected);
    lk_stats_free(&st);
    eng_result_free(&res);
    tg_free(&g);
}

static void ring_step(const plat_platform *plat, case_out *out) { ring(plat, out, ENG_STEP); }
static void ring_flow(const plat_platform *plat, case_out *out) { ring(plat, out, ENG_FLOW); }

/* GPUs 0 and 1 of node 0 send to GPUs 0 and 1 of node 1 at once: both cross NIC 0 of each
 * node, each gets half, so each takes latency + 2B / bw where alone it takes latency + B / bw.
 * Two jobs: one message each. */
static void shared_nic(const plat_platform *plat, case_out *out)
{
    const double bytes = 5e7;
    int gpus[4] = {0, 1, 4, 5};
    int jobs[4] = {0, 1, 0, 1};
    tg_graph g;
    tg_init(&g, 4, NULL);
    tg_add(&g, 0, comm_task(TG_SEND, 2, bytes));
    tg_add(&g, 1, comm_task(TG_SEND, 3, bytes));
    tg_add(&g, 2, comm_task(TG_RECV, 0, bytes));
    tg_add(&g, 3, comm_task(TG_RECV, 1, bytes));
    eng_result res;
    lk_stats st;
    if (run_collected(plat, &g, gpus, ENG_FLOW, jobs, 2, &res, &st, out) != HS_OK)
        return;
    check_conservation(&res, &st, out);
    double lat_s, bw_Bps;
    plat_route(plat, 0, 4, &lat_s, &bw_Bps);
    double alone_s = lat_s + bytes / bw_Bps, shared_s = lat_s + 2 * bytes / bw_Bps;
    double share = (shared_s - alone_s) / shared_s;
    check_rel(out, st.all.congestion_share, share, 1e-9, "congestion share");
    check_rel(out, st.jobs[0].congestion_share, share, 1e-9, "job 0 congestion share");
    check_rel(out, st.jobs[1].congestion_share, share, 1e-9, "job 1 congestion share");
    check(out, st.jobs[0].messages == 1 && st.jobs[1].messages == 1, "one message per job");
    check_rel(out, st.all.waiting_s, 2 * (shared_s - alone_s), 1e-9, "waiting time");
    const lk_link *nic = find_link(&st, "n0000-nic0_UP");
    check(out, nic && nic->messages == 2, "nic0 carried both");
    if (nic) {
        check_rel(out, nic->busy_s, shared_s, 1e-9, "nic busy");
        check_rel(out, nic->peak_util, 2 * bytes / (nic->bandwidth_Bps * shared_s), 1e-9,
                  "nic peak");
    }
    check(out, st.top[0] >= 0 && st.links[st.top[0]].kind == LK_NIC, "top link is a NIC: %s",
          st.top[0] >= 0 ? st.links[st.top[0]].name : "none");
    lk_stats_free(&st);
    eng_result_free(&res);
    tg_free(&g);
}

/* A message staged through host memory between GPUs 0 and 1 of a node: one message, two
 * transfers (GPU 0 -> n0000-cpu over pcie0 up, n0000-cpu -> GPU 1 over pcie1 down); the
 * NVLink between them carries nothing. */
static void staged(const plat_platform *plat, case_out *out)
{
    const double bytes = 3e7;
    int gpus[2] = {0, 1};
    tg_graph g;
    tg_init(&g, 2, NULL);
    tg_task send = comm_task(TG_SEND, 1, bytes), recv = comm_task(TG_RECV, 0, bytes);
    send.flags = recv.flags = TG_FLAG_STAGED;
    tg_add(&g, 0, send);
    tg_add(&g, 1, recv);
    eng_result res;
    lk_stats st;
    if (!plat_host_memory(plat, 0)) {
        check(out, 0, "ABCI declares no host memory for node 0");
        return;
    }
    if (run_collected(plat, &g, gpus, ENG_FLOW, NULL, 1, &res, &st, out) != HS_OK)
        return;
    check_conservation(&res, &st, out);
    check(out, st.all.messages == 1, "%ld messages", st.all.messages);
    double *expected = calloc((size_t)st.n_links, sizeof *expected);
    xbt_dynar_t d = xbt_dynar_new(sizeof(sg_link_t), NULL);
    int hops = 0;
    sg_host_t ends[3] = {plat->gpus[0], plat_host_memory(plat, 0), plat->gpus[1]};
    for (int leg = 0; leg < 2; leg++) {
        xbt_dynar_reset(d);
        sg_host_get_route(ends[leg], ends[leg + 1], d);
        for (unsigned k = 0; k < xbt_dynar_length(d); k++, hops++) {
            const lk_link *l = find_link(&st, sg_link_get_name(xbt_dynar_get_as(d, k, sg_link_t)));
            if (l)
                expected[l - st.links] += bytes;
        }
    }
    xbt_dynar_free(&d);
    check(out, hops == 2, "the two legs cross %d links, expected pcie0 and pcie1", hops);
    for (int i = 0; i < st.n_links; i++)
        check_rel(out, st.links[i].bytes, expected[i], 0, st.links[i].name);
    check_rel(out, st.all.route_bytes, 2 * bytes, 0, "route bytes of the two legs");
    const lk_link *up = find_link(&st, "n0000-pcie0_UP"), *down = find_link(&st, "n0000-pcie1_DOWN");
    check(out, up && down && up->bytes == bytes && down->bytes == bytes, "pcie legs");
    free(expected);
    lk_stats_free(&st);
    eng_result_free(&res);
    tg_free(&g);
}

/* A send nobody receives: the engine reports the deadlock, and the collector the message it
 * never saw end, rather than statistics without it. */
static void lost(const plat_platform *plat, case_out *out)
{
    int gpus[2] = {0, 4};
    tg_graph g;
    tg_init(&g, 2, NULL);
    tg_add(&g, 0, comm_task(TG_SEND, 1, 1e6));
    tg_add(&g, 1, (tg_task){.op = TG_EXEC, .layer = -1, .peer = -1, .after = -1, .amount = 1e-3});
    char err[HS_ERR_LEN];
    lk_collector *col, *other;
    lk_stats st;
    check(out, lk_begin(plat, 1, &col, err) == HS_OK, "lk_begin: %s", err);
    check(out, lk_begin(plat, 1, &other, err) == HS_EINTERNAL, "a second collector was accepted");
    /* the engine told that link statistics watch, as simulate.c tells it (run_collected) */
    eng_options opt = {.fidelity = ENG_FLOW, .exec_speed_scale = 1,
                       .computed = lk_computed_message, .computed_ctx = col};
    eng_result res;
    check(out, eng_run(&g, plat, gpus, &opt, &res, err) == HS_EINTERNAL, "no deadlock reported");
    check(out, lk_end(col, 0, &st, err) == HS_EINTERNAL && strstr(err, "1 message(s)"),
          "lk_end after a lost message: %s", err);
    tg_free(&g);
}

/* A real expansion (ResNet-50, data+filter 4x4 on 16 GPUs spread over racks, both fidelities):
 * the identities hold whatever the collectives. */
static void expansion(const plat_platform *plat, case_out *out, eng_fidelity fid)
{
    char err[HS_ERR_LEN];
    wl_workload wl;
    st_strategy s;
    tg_graph g;
    if (wl_load("resnet50", &wl, err) != HS_OK || st_parse("data+filter:4x4", 16, 4, 0, &s, err) ||
        ex_expand(&wl, NULL, &s, 64, &g, err) != HS_OK) {
        check(out, 0, "setup: %s", err);
        return;
    }
    int gpus[16];
    for (int r = 0; r < 16; r++)
        gpus[r] = (r / 4) * 34 * 4 + r % 4; /* node k in rack k */
    eng_result res;
    lk_stats st;
    if (run_collected(plat, &g, gpus, fid, NULL, 1, &res, &st, out) == HS_OK) {
        check_conservation(&res, &st, out);
        check(out, st.by_kind[LK_RACK_UP].links_used == 8, "rack uplinks used: %d",
              st.by_kind[LK_RACK_UP].links_used);
        lk_stats_free(&st);
        eng_result_free(&res);
    }
    tg_free(&g);
    wl_free(&wl);
}

static void expansion_flow(const plat_platform *plat, case_out *out) { expansion(plat, out, ENG_FLOW); }
static void expansion_step(const plat_platform *plat, case_out *out) { expansion(plat, out, ENG_STEP); }

/* Background traffic capped below the NIC: it takes latency + bytes / rate, counts as
 * background on its links and not as a job's message. */
typedef struct {
    lk_collector *col;
    sg_mailbox_t box;
    double bytes, rate_Bps;
} bg_arg;

static void bg_sender(int argc, char **argv)
{
    (void)argc, (void)argv;
    bg_arg *a = sg_actor_self_get_data();
    lk_background_send(a->col, a->box, 0, 8, a->bytes, a->rate_Bps);
}

static void bg_receiver(int argc, char **argv)
{
    (void)argc, (void)argv;
    bg_arg *a = sg_actor_self_get_data();
    sg_mailbox_get(a->box);
}

static void background(const plat_platform *plat, case_out *out)
{
    char err[HS_ERR_LEN];
    bg_arg a = {.box = sg_mailbox_by_name("bg"), .bytes = 1e8, .rate_Bps = 2.5e9};
    lk_stats st;
    if (lk_begin(plat, 1, &a.col, err) != HS_OK) {
        check(out, 0, "lk_begin: %s", err);
        return;
    }
    sg_actor_t s = sg_actor_init("s", plat->gpus[0]), r = sg_actor_init("r", plat->gpus[8]);
    sg_actor_set_data(s, &a);
    sg_actor_set_data(r, &a);
    sg_actor_start(s, bg_sender, 0, NULL);
    sg_actor_start(r, bg_receiver, 0, NULL);
    simgrid_run();
    double end_s = simgrid_get_clock();
    if (lk_end(a.col, end_s, &st, err) != HS_OK) {
        check(out, 0, "lk_end: %s", err);
        return;
    }
    double lat_s, bw_Bps;
    plat_route(plat, 0, 8, &lat_s, &bw_Bps);
    check_rel(out, end_s, lat_s + a.bytes / a.rate_Bps, 1e-9, "capped transfer time");
    check(out, st.all.messages == 0 && st.background.messages == 1, "background counted apart");
    const lk_link *nic = find_link(&st, "n0000-nic0_UP");
    check(out, nic && nic->background_bytes == a.bytes && nic->bytes == 0, "nic background");
    if (nic)
        check_rel(out, nic->mean_util, a.bytes / (nic->bandwidth_Bps * end_s), 1e-12,
                  "background utilisation");
    lk_stats_free(&st);
}

/* The CSV: header, one row per used link direction (or all), bytes adding up, atomic. */
static void csv(const plat_platform *plat, case_out *out)
{
    int gpus[2] = {0, 40 * 4 + 2};
    tg_graph g;
    tg_init(&g, 2, NULL);
    tg_add(&g, 0, comm_task(TG_SEND, 1, 1e6));
    tg_add(&g, 1, comm_task(TG_RECV, 0, 1e6));
    eng_result res;
    lk_stats st;
    if (run_collected(plat, &g, gpus, ENG_FLOW, NULL, 1, &res, &st, out) != HS_OK)
        return;
    char path[1024], err[HS_ERR_LEN], line[512];
    snprintf(path, sizeof path, "%s/test_links.csv", HS_TEST_TMP);
    for (int all = 0; all <= 1; all++) {
        check(out, lk_write_csv(&st, path, all, err) == HS_OK, "lk_write_csv: %s", err);
        check(out, temps_beside(path) == 0, "the temporary file was left behind");
        FILE *f = fopen(path, "r");
        if (!f) {
            check(out, 0, "cannot read %s", path);
            break;
        }
        int rows = 0;
        double sum = 0;
        if (fgets(line, sizeof line, f))
            check(out, strcmp(line, "link,kind,direction,bandwidth_Bps,messages,bytes,"
                                    "background_bytes,busy_s,mean_utilisation,"
                                    "peak_utilisation\n") == 0, "header: %s", line);
        while (fgets(line, sizeof line, f)) {
            char name[64], kind[32], dir[8];
            double bw, bytes;
            long msgs;
            if (sscanf(line, "%63[^,],%31[^,],%7[^,],%lf,%ld,%lf", name, kind, dir, &bw, &msgs,
                       &bytes) != 6) {
                check(out, 0, "malformed row: %s", line);
                break;
            }
            rows++;
            sum += bytes;
        }
        fclose(f);
        check(out, rows == (all ? st.n_links : 13), "%d rows with all=%d", rows, all);
        check_rel(out, sum, 13e6, 0, "CSV bytes");
    }
    remove(path);
    char bad[1100];
    snprintf(bad, sizeof bad, "%s/no-such-dir/x.csv", HS_TEST_TMP);
    check(out, lk_write_csv(&st, bad, false, err) == HS_EINPUT && strstr(err, "no-such-dir"),
          "unwritable path: %s", err);
    check(out, lk_csv_check(bad, err) == HS_EINPUT, "lk_csv_check accepted %s", bad);
    lk_stats_free(&st);
    eng_result_free(&res);
    tg_free(&g);
}

/* ---- tests -------------------------------------------------------------------------------- */

static void test_one_message(void **state) { (void)state; run_case(one_message); }
static void test_ring_step(void **state) { (void)state; run_case(ring_step); }
static void test_ring_flow(void **state) { (void)state; run_case(ring_flow); }
static void test_shared_nic(void **state) { (void)state; run_case(shared_nic); }
static void test_expansion_flow(void **state) { (void)state; run_case(expansion_flow); }
static void test_expansion_step(void **state) { (void)state; run_case(expansion_step); }
static void test_background(void **state) { (void)state; run_case(background); }
static void test_csv(void **state) { (void)state; run_case(csv); }
static void test_staged(void **state) { (void)state; run_case(staged); }
static void test_lost(void **state) { (void)state; run_case(lost); }

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_message),    cmocka_unit_test(test_ring_step),
        cmocka_unit_test(test_ring_flow),      cmocka_unit_test(test_shared_nic),
        cmocka_unit_test(test_expansion_flow), cmocka_unit_test(test_expansion_step),
        cmocka_unit_test(test_background),     cmocka_unit_test(test_csv),
        cmocka_unit_test(test_staged),         cmocka_unit_test(test_lost),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
