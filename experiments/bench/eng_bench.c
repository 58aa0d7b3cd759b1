/* eng_bench.c: how long the simulation engine takes, and how much memory, as the GPU count grows.
 *
 * The graph is synthetic and shaped like data-parallel ResNet-50: every rank runs 170 kernels
 * (one per layer) and then a ring allreduce of 100 MB over all ranks. Usage:
 *   eng_bench RANKS flow|step [PLATFORM [sent]]
 * prints one CSV row: ranks,fidelity,makespan_s,messages,bytes,run_wall_s,us_per_message.
 * "sent" sends every message through SimGrid (eng_options.exact_messages): SimGrid's own cost
 * per message, against the engine's computing of messages on private links. The process's
 * total wall time and peak RSS come from /usr/bin/time -v (see run.sh, scale.sh). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine.h"
#include "platform.h"
#include "taskgraph.h"

#define LAYERS 170
#define GRADIENT_BYTES 100e6

static double wall_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int build(tg_graph *g, int n, char *err)
{
    int status = tg_init(g, n, err);
    if (status != HS_OK)
        return status;
    int *ranks = malloc((size_t)n * sizeof *ranks);
    if (!ranks)
        return hs_fail(err, HS_EINTERNAL, "out of memory");
    for (int r = 0; r < n; r++)
        ranks[r] = r;
    int group = tg_add_group(g, ranks, n);
    free(ranks);
    for (int r = 0; r < n; r++) {
        for (int l = 0; l < LAYERS; l++) {
            /* layer times vary as a CNN's do (a few tenths of a millisecond) */
            tg_task t = {.op = TG_EXEC, .layer = l, .peer = -1, .after = -1,
                         .amount = 1e-4 * (1 + (l * 7) % 5)};
            if (tg_add(g, r, t) < 0)
                return hs_fail(err, HS_EINTERNAL, "out of memory");
        }
        tg_task ar = {.op = TG_ALLREDUCE, .phase = TG_GRADIENT, .algo = TG_ALGO_RING,
                      .layer = -1, .peer = group, .after = LAYERS - 1, .amount = GRADIENT_BYTES};
        if (group < 0 || tg_add(g, r, ar) < 0)
            return hs_fail(err, HS_EINTERNAL, "out of memory");
    }
    return HS_OK;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s RANKS flow|step [PLATFORM [sent]]\n", argv[0]);
        return HS_EINPUT;
    }
    int n = atoi(argv[1]);
    eng_options opt = {.fidelity = strcmp(argv[2], "step") == 0 ? ENG_STEP : ENG_FLOW,
                       .exec_speed_scale = 1,
                       .exact_messages = argc > 4 && strcmp(argv[4], "sent") == 0};
    char err[HS_ERR_LEN];
    plat_platform plat;
    int status = plat_load(argc > 3 ? argv[3] : "abci", &plat, err);
    tg_graph g = {0};
    int *gpus = malloc((size_t)(n > 0 ? n : 1) * sizeof *gpus);
    if (status == HS_OK && !gpus)
        status = hs_fail(err, HS_EINTERNAL, "out of memory");
    if (status == HS_OK)
        status = build(&g, n, err);
    eng_result res = {0};
    double t0 = wall_s();
    if (status == HS_OK) {
        for (int r = 0; r < n; r++)
            gpus[r] = r;
        status = eng_run(&g, &plat, gpus, &opt, &res, err);
    }
    double run_s = wall_s() - t0;
    if (status != HS_OK) {
        fprintf(stderr, "eng_bench: %s\n", err);
    } else {
        printf("%d,%s,%.9g,%ld,%.6g,%.3f,%.3f\n", n, argv[2], res.makespan_s, res.messages,
               res.bytes_sent, run_s, res.messages > 0 ? run_s / res.messages * 1e6 : 0);
    }
    eng_result_free(&res);
    tg_free(&g);
    free(gpus);
    if (plat.gpus)
        plat_free(&plat);
    return status;
}
