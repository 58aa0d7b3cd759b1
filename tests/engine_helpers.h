/* engine_helpers.h: what the engine tests share: each case runs in a fork()ed child
 * that loads ABCI and runs one graph (run_case), and small graph builders (run in the child).
 * Header-only; include after <cmocka.h>. */
#ifndef ENGINE_HELPERS_H
#define ENGINE_HELPERS_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <simgrid/host.h>
#include "child_result.h"
#include "engine.h"
#include "expand.h"
#include "platform.h"
#include "taskgraph.h"

#define MAX_VALUES 256

/* Sizes and GPUs several cases use. */
static const double P2P_BYTES = 64e6;
__attribute__((unused)) static int NODE_GPUS[4] = {0, 1, 2, 3};

/* What a child sends back. */
typedef struct {
    int status;               /* eng_run's status (or plat_load's) */
    char err[HS_ERR_LEN];
    long messages;
    double bytes_sent;
    double v[MAX_VALUES];     /* case-specific values */
} case_out;

typedef void (*case_fn)(const plat_platform *plat, case_out *out);

static inline void record_load_failure(void *out, const char *err)
{
    case_out *o = out;
    o->status = HS_EINPUT;
    snprintf(o->err, sizeof o->err, "%s", err);
}

static inline case_out run_case(case_fn fn)
{
    static case_out out; /* static: the child writes it from its own copy of this memory */
    memset(&out, 0, sizeof out);
    child_result_run("abci", (void (*)(const plat_platform *, void *))fn, record_load_failure,
                     &out, sizeof out);
    return out;
}

static inline void assert_rel(double actual, double expected, double tol)
{
    double scale = fabs(expected) > 0 ? fabs(expected) : 1;
    if (fabs(actual - expected) > tol * scale)
        fail_msg("got %.17g, expected %.17g (relative error %.3g > %.3g)", actual, expected,
                 fabs(actual - expected) / scale, tol);
}

/* ---- graph helpers (run in the child) ----------------------------------------------------- */

static inline tg_task exec_task(double seconds, int after)
{
    return (tg_task){.op = TG_EXEC, .layer = -1, .peer = -1, .after = after, .amount = seconds};
}

static inline tg_task comm_task(tg_op op, int peer, double bytes, int after)
{
    return (tg_task){.op = (uint8_t)op, .algo = TG_ALGO_RING, .layer = -1, .peer = peer,
                     .after = after, .amount = bytes};
}

/* Every rank runs one collective over all ranks (in rank order). */
static inline void one_collective(tg_graph *g, int n, tg_op op, tg_algo algo, double bytes)
{
    int ranks[64];
    for (int r = 0; r < n; r++)
        ranks[r] = r;
    assert_int_equal(tg_init(g, n, NULL), HS_OK);
    int group = tg_add_group(g, ranks, n);
    for (int r = 0; r < n; r++) {
        tg_task t = comm_task(op, group, bytes, -1);
        t.algo = (uint8_t)algo;
        tg_add(g, r, t);
    }
}

/* Run g and copy the common outputs; returns the status. */
static inline int run(const plat_platform *plat, const tg_graph *g, const int *gpus, eng_fidelity fid,
               bool record, eng_result *res, case_out *out)
{
    eng_options opt = {.fidelity = fid, .exec_speed_scale = 1, .record_tasks = record};
    out->status = eng_run(g, plat, gpus, &opt, res, out->err);
    out->messages = res->messages;
    out->bytes_sent = res->bytes_sent;
    return out->status;
}

/* v[0] makespan, then per rank end_s; v[100..] the platform's expectation inputs. */
static inline void collective_case(const plat_platform *plat, case_out *out, const int *gpus, int n,
                            tg_op op, tg_algo algo, double bytes, eng_fidelity fid)
{
    tg_graph g;
    one_collective(&g, n, op, algo, bytes);
    eng_result res;
    if (run(plat, &g, gpus, fid, false, &res, out) == HS_OK) {
        out->v[0] = res.makespan_s;
        for (int r = 0; r < n; r++)
            out->v[1 + r] = res.ranks[r].end_s;
        eng_result_free(&res);
    }
    plat_ring_cost(plat, gpus, n, &out->v[100], &out->v[101]);
    tg_free(&g);
}

#endif
