/* expand.h: turns (workload, strategy, batch) into the task graph every rank runs.
 *
 * For every layer: the forward kernel, the backward kernels (input gradient, weight gradient)
 * and the weight update, with durations from the workload's calibration split as the strategy
 * splits the work (batch, space, filters, channels, layers); and the communication the strategy
 * needs (PARADL-MODEL.md): gradient allreduce, activation allgather / input-gradient allreduce,
 * halo exchanges, pipeline sends, hierarchical groups. Independent of placement: ranks only. */
#ifndef EXPAND_H
#define EXPAND_H

#include <stdint.h>

#include "hs_error.h"
#include "strategy.h"
#include "taskgraph.h"
#include "workload.h"

/* Build the graph (g is initialised by the call; free with tg_free). */
int ex_expand(const wl_workload *wl, const st_strategy *st, int64_t batch, tg_graph *g,
              char *err);

#endif
