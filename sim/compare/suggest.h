/* suggest.h: the strategy oracle (su_; not sg_, SimGrid's own C prefix): every strategy the
 * tool knows for a job, priced by the analytic model, the best simulated, ranked, each with why
 * it lost its place. `suggest` and `strategy --search` both ask su_answer and print its answer;
 * the search also writes the first as a strategy file (su_answer_plan, su_describe). Part of
 * sim/compare (both derivations side by side); the simulation is a callback, so that the front
 * end decides where it runs (hybridsim-sim forks a child per run).
 *   suggest.c  the candidates priced, simulated and ranked
 *   oracle.c   the question asked whole (the search among the candidates), the answer's plan */
#ifndef SUGGEST_H
#define SUGGEST_H

#include <stdbool.h>

#include "an_search.h"
#include "analytic.h"
#include "job_keys.h"
#include "runtime.h"

#define SU_MAX 512
#define SU_NAME_LEN 64
#define SU_WHY_LEN 160

/* The per-layer search (PaSE's dynamic programme with hybridsim's cost model) as the oracle ran
 * it: what strategy --search reports of it. */
typedef struct {
    bool ran;                 /* it found a plan (else: why) */
    char why[HS_ERR_LEN];     /* why it found none (a table too large, nothing fits) */
    int vertices, edges;
    int64_t largest_table;    /* entries */
    double total_s;           /* its sum (gradients unfused, without latency) */
    double seconds;           /* its wall time */
    an_polish polish;         /* its plan checked with the exact model against the best
                               * whole-model strategy (reference_kept: that one won, and the
                               * list has no "searched" entry but the built-in) */
    char reference[AN_UNIFORM_NAME_LEN]; /* that strategy */
} su_search;

typedef struct {
    char name[SU_NAME_LEN];   /* as -s or strategy --generate takes it ("data+filter:16x4",
                               * "splitbrain:4", "searched"), with the gradient allreduce's
                               * algorithm when it is not the ring ("data --allreduce hier",
                               * "splitbrain:8 --allreduce rings") */
    char base[SU_NAME_LEN];   /* the name without the algorithm */
    st_strategy st;           /* how it runs (a per-layer one points at plan) */
    st_plan *plan;            /* per-layer candidates: their plan (owned), else NULL */
    hs_estimate analytic;
    hs_estimate sim;
    bool simulated;
    int same_as;              /* -1, or the earlier candidate that runs the same plan (owt and
                               * splitbrain:p): simulated once, its result copied */
    char why[SU_WHY_LEN];     /* why it is not first (empty for the first) */
} su_candidate;

typedef struct {
    su_candidate *c;
    int n;
    int fitting;              /* candidates that fit in a GPU's memory */
    int simulated;            /* of them, simulated */
    int *order;               /* the ranking: indices into c */
    const rt_runtime *runtime; /* what every candidate runs under (rt_apply_strategy), or
                                * NULL: hybridsim's defaults */
    su_search search;         /* the per-layer search among the candidates */
} su_list;

/* One strategy simulated (cli_sim's simulate). */
typedef int (*su_simulate_fn)(const wl_workload *wl, const kt_compute *kc, plat_platform *plat,
                              const st_strategy *st, int64_t batch, hs_estimate *est, char *err);

/* One question: the job, and how much to simulate. */
typedef struct {
    const wl_workload *wl; /* the workload, as loaded */
    const kt_compute *kc;  /* its kernel-time model (job_compute_for_pricing; NULL: the
                               * measured times) */
    plat_platform *plat;
    int p;
    int64_t batch;
    int top;                  /* the K fastest fitting by the model are simulated, and the
                               * fastest built-in beside them (the check of the rest) */
    su_simulate_fn simulate;  /* NULL: the model's ranking only (--analytic-only) */
    int64_t max_table;        /* the search's bound on a table (0: its default) */
    const rt_runtime *runtime; /* what every candidate runs under (rt_apply_strategy: its
                               * allreduce, overlap, gradient bytes, optimizer, halos and
                               * filter backward; a plan's, rt_training; its kernel terms are
                               * kc's, job_compute_for_pricing), the allreduce variants those
                               * faster than the runtime's; NULL: hybridsim's defaults */
    const char *who;          /* the command, for the progress lines on stderr */
} su_question;

/* The whole question: every candidate priced (su_price_all, the search's plan among them),
 * the top simulated, ranked (su_rank); the answer is l->c[l->order[0]]. Progress on stderr,
 * a line for each phase. HS_EINPUT when nothing runs. */
int su_answer(const su_question *q, su_list *l, char *err);

/* Candidate i as a plan to write (free with st_plan_free): its own, or a built-in's as a plan
 * (st_plan_of); the gradient allreduce's algorithm and the job's settings (job: the keys the
 * command was given) among its <setting>s, so that simulating the file runs what was ranked. */
int su_answer_plan(const su_list *l, int i, const wl_workload *wl, const js_settings *job,
                   st_plan *plan, char *err);

/* The answer's plan as written (su_answer_plan) simulated as `simulate -s FILE` runs it: under
 * the runtime, with the plan's allreduce. A built-in written as a plan runs as the built-in
 * except where it overlaps its gradients (a runtime's buckets: the plan's expansion orders them
 * its own way), so the file's time is said when the answer is a built-in. */
int su_simulate_plan(const su_question *q, const st_plan *plan, hs_estimate *est, char *err);

/* What candidate i is and how it was chosen, for the file's <description>; file (NULL: the
 * candidate's own) the written plan's simulated estimate. */
void su_describe(const su_question *q, const su_list *l, int i, const hs_estimate *file,
                 char *buf, size_t len);

/* The fastest built-in (whole-model) candidate: simulated first, else by the model; -1. */
int su_best_builtin(const su_list *l);

/* Every candidate that runs at p GPUs and this batch, priced (those a strategy cannot run, as
 * a batch that does not divide, are left out). HS_EINPUT when none runs. */
int su_price_all(const su_question *q, su_list *l, char *err);

/* Simulate the top fitting candidates by analytic time, and the fastest built-in. */
int su_simulate_top(const su_question *q, su_list *l, char *err);

/* The final ranking: simulated ones by simulated time, then the others that fit by analytic
 * time, then those that do not fit; each with its reason. */
void su_rank(su_list *l, double gpu_memory_bytes);

void su_list_free(su_list *l);

#endif
