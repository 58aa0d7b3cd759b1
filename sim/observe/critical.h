/* critical.h: a run read off the rank that finished last (the critical rank).
 *
 * The iteration a simulation reports is the critical rank's: its kernel time (compute), the
 * time its communication stream was busy (comm), the time its compute stream waited for
 * communication plus communication after its last kernel (exposed), and its end (total). For
 * `compare`, its communication is also told apart by analytic term (hs_term), with the part of
 * each term spent waiting for other ranks to reach the matching task kept apart: time lost to
 * other ranks being late (pipeline bubbles, imbalance), not to the transfer. */
#ifndef CRITICAL_H
#define CRITICAL_H

#include "breakdown.h"
#include "engine.h"
#include "estimate.h"
#include "hs_error.h"
#include "taskgraph.h"
#include "workload.h"

/* The rank of [first, first + n) that finished last (the first of equals). */
int cr_rank(const eng_result *res, int first, int n);

/* That rank's compute, communication and exposed communication, and its end as the total. */
hs_times cr_times(const eng_result *res, int first, int n);

/* What the critical rank did, for `compare` to explain differences. */
typedef struct {
    int critical_rank;                     /* the rank that finished last */
    double comm_by_op_s[TG_OP_COUNT];      /* its communication time per operation */
    long messages;                         /* point-to-point messages simulated */
    int rings_stepped;                     /* flow mode: groups whose rings ran in steps */
    int rings_over_budget;                 /* and those left as flows over the step budget */
    double bytes_sent;
    bd_breakdown layers;                   /* the critical rank per layer and phase */
    /* Its communication per analytic term. A task's waiting is the part before every rank it
     * exchanges with had started the matching task (the k-th collective on the group, the k-th
     * message of the pair). */
    double term_comm_s[HS_TERM_COUNT];     /* its tasks, start to end */
    double term_exposed_s[HS_TERM_COUNT];  /* the part during which no kernel of the rank ran */
    double term_waiting_s[HS_TERM_COUNT];  /* the part of the exposed time spent waiting */
} cr_details;

/* Fill *d for rank crit of a run with task times (without them, only the counts). p2: the
 * strategy's GPUs per model-parallel group, which tells a gradient allreduce inside a group
 * from one across groups. HS_EINTERNAL when out of memory. Free with cr_details_free. */
int cr_details_fill(const wl_workload *wl, const tg_graph *g, const eng_result *res, int crit,
                    int p2, cr_details *d, char *err);

void cr_details_free(cr_details *d);

#endif
