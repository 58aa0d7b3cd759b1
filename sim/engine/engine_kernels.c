/* engine_kernels.c: a rank's kernels (its compute stream's TG_EXEC tasks), in fused runs
 * (engine_int.h, "engine_kernels.c"): a run of kernels nothing waits on in between is one wait
 * of its total length, each kernel's start and end following by addition. Run on the calling
 * actor by engine.c's streams, or computed ahead, without running, for a computed segment
 * (engine_segment.c); both record and account them the same way. */
#include "engine_int.h"

#include <simgrid/actor.h>
#include <simgrid/engine.h>

/* The last task of the run of kernels starting at i that can be one execution: it stops before
 * a kernel with its own dependency, and at a kernel the other stream waits for. */
static int fused_run_end(const tg_rank *list, const uint8_t *awaited, int i, double *seconds)
{
    int last = i;
    *seconds = list->tasks[i].amount;
    if (awaited[i])
        return last;
    for (int k = eng_next_of(list, 0, i + 1); k < list->n_tasks && list->tasks[k].after < 0;
         k = eng_next_of(list, 0, k + 1)) {
        *seconds += list->tasks[k].amount;
        last = k;
        if (awaited[k])
            break;
    }
    return last;
}

/* Kernels i..last of rank r (a fused run) ran from start to end: their records and the
 * compute stream's accounts. */
static void account_kernels(eng_sim *s, int r, int i, int last, double start, double end)
{
    const tg_rank *list = &s->g->ranks[r];
    eng_rank_state *st = &s->rs[r];
    double scale = s->opt.exec_speed_scale;
    if (s->start_s) {
        double t = start;
        for (int k = i; k <= last; k = eng_next_of(list, 0, k + 1)) {
            s->start_s[r][k] = t;
            t += list->tasks[k].amount * scale;
            s->end_s[r][k] = k == last ? end : t;
        }
    }
    st->busy_s[0] += end - start;
    st->last_end_s[0] = end;
    if (st->done_s)
        st->done_s[last] = end;
}

/* Run the kernels of the fused run starting at list index i (fused_run_end) on the calling
 * actor, record their times; returns the run's last index. The run is a sleep of its length,
 * not a SimGrid exec: a GPU runs one rank's compute stream (one rank a GPU, jobs on disjoint
 * GPUs), so an exec would share the GPU's speed with nothing and end at the same time, for
 * about twice the simulator's cost (README, "Speed"). */
int eng_run_kernels(eng_sim *s, int r, int i)
{
    double scale = s->opt.exec_speed_scale, seconds;
    int last = fused_run_end(&s->g->ranks[r], s->awaited[r], i, &seconds);
    double start = simgrid_get_clock();
    if (seconds > 0)
        sg_actor_sleep_for(seconds * scale);
    account_kernels(s, r, i, last, start, simgrid_get_clock());
    return last;
}

int eng_kernels_ahead(eng_sim *s, int r, int i, double *t_s, bool commit)
{
    const tg_rank *list = &s->g->ranks[r];
    eng_rank_state *st = &s->rs[r];
    while (i < list->n_tasks && tg_stream(&list->tasks[i]) == 0) {
        double seconds;
        int last = fused_run_end(list, s->awaited[r], i, &seconds);
        double start = *t_s, end = seconds > 0 ? start + seconds * s->opt.exec_speed_scale : start;
        if (commit && list->tasks[i].after >= 0) /* as engine.c's both_streams counts it */
            st->exposed_s += start - st->last_end_s[0];
        if (commit)
            account_kernels(s, r, i, last, start, end);
        *t_s = end;
        i = last + 1;
    }
    return i;
}
