/* suggest.h: the strategy oracle (su_; not sg_, SimGrid's own C prefix): every strategy the
 * tool knows for a job, priced by the analytic model, the best simulated, ranked, each with why
 * it lost its place. `suggest` and `strategy --search` both ask su_answer and print its answer;
 * the search also writes the first as a strategy file (su_answer_plan, su_describe). Part of
 * sim/compare (both derivations side by side); the simulation is a callback, so that the front
 * end decides where it runs (hybridsim-sim forks a child per run).
 *   suggest.c  the candidates priced (the per-layer search's among them), simulated, ranked
 *   oracle.c   the question asked whole (suggest.c's steps in turn), the answer's plan
 *   budget.c   the question over a GPU budget (suggest --max-gpus, --target-epoch-s)
 *   ghp.c      GHP's group size chosen on the machine (strategy --generate ghp)
 *   suggest_print.c  the answers as suggest and strategy --search print them */
#ifndef SUGGEST_H
#define SUGGEST_H

#include <stdbool.h>
#include <stdio.h>

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
    int overlap;              /* --overlap said: JS_ON or JS_OFF on every candidate; 0 not said */
    int halo;                 /* --halo said: JS_ON chain, JS_OFF sendrecv, on every candidate
                               * with halos (spatial built-ins, plans); 0 not said */
    int filter_rs;            /* --filter-backward said: JS_ON reduce-scatter, JS_OFF allreduce
                               * (filter built-ins, plans); 0 not said */
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
    const char *runtime_said; /* --runtime as the user gave it, for the reports (NULL: none) */
    int overlap;              /* --overlap said (JS_ON, JS_OFF; 0: not said, the runtime's) */
    int halo;                 /* --halo said (JS_ON chain, JS_OFF sendrecv; 0: not said) */
    int filter_rs;            /* --filter-backward said (JS_ON reduce-scatter, JS_OFF
                               * allreduce; 0: not said) */
    const char *who;          /* the command, for the progress lines on stderr */
} su_question;

/* The whole question: every candidate priced (su_price_all, the search's plan among them),
 * the top simulated, ranked (su_rank); the answer is l->c[l->order[0]]. Progress on stderr,
 * a line for each phase. HS_EINPUT when nothing runs. */
int su_answer(const su_question *q, su_list *l, char *err);

/* Candidate i of q's answer as a plan to write (free with st_plan_free): its own, or a
 * built-in's as a plan (st_plan_of, under q's kernel-time model); the gradient allreduce's
 * algorithm and the job's settings (job: the keys the command was given) among its <setting>s,
 * so that simulating the file runs what was ranked. */
int su_answer_plan(const su_list *l, int i, const su_question *q, const js_settings *job,
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

/* The model's choice among the finalists when the simulation overruled it: the simulated
 * candidate the analytic model prices cheapest, if the answer (the ranking's first) is dearer
 * by the model; else -1 (the answer is the model's cheapest finalist, or nothing simulated). */
int su_model_choice(const su_list *l);

/* Every candidate that runs at p GPUs and this batch, priced (those a strategy cannot run, as
 * a batch that does not divide, are left out). HS_EINPUT when none runs; HS_EINTERNAL when one
 * was priced without compute (its kernels have no time), which is never ranked. */
int su_price_all(const su_question *q, su_list *l, char *err);

/* Simulate the top fitting candidates by analytic time, and the fastest built-in. */
int su_simulate_top(const su_question *q, su_list *l, char *err);

/* The final ranking: simulated ones by simulated time, then the others that fit by analytic
 * time, then those that do not fit; each with its reason. */
void su_rank(su_list *l, double gpu_memory_bytes);

void su_list_free(su_list *l);

/* One GPU count of a budget, as su_answer_budget answered it. */
typedef struct {
    int p;                    /* GPUs */
    bool runs;                /* some strategy runs at p (else the batch does not divide, ...) */
    bool simulated;           /* its winner fits and was simulated */
    char name[SU_NAME_LEN];   /* the winner (the fastest by the model when nothing fits) */
    double sim_epoch_s;       /* its simulated epoch */
    double model_epoch_s;     /* its analytic epoch */
    double memory_bytes;      /* its memory per GPU, by the model */
} su_count;

/* A GPU budget: the fastest epoch within max_gpus, or the fewest GPUs reaching a target. */
typedef struct {
    int max_gpus;             /* --max-gpus N; 0: target_epoch_s */
    double target_epoch_s;    /* --target-epoch-s T */
    int64_t batch;            /* the global batch at every count, or 0: */
    int64_t batch_per_gpu;    /* B = this x GPUs */
    void (*each)(void *ctx, const su_count *c); /* each count as it is answered, or NULL */
    void *ctx;                /* each's */
} su_budget;

/* budget.c: the counts 1, 2, 4, ... up to the budget (max_gpus, else the platform's GPUs:
 * su_budget_limit), each asked as q (its p and batch replaced; q->top the count's simulated),
 * handed to b->each; *best the answer: the fastest simulated epoch (max_gpus) or the first
 * count whose simulated epoch is at most the target (then the counts stop); best->p 0 when no
 * count reaches the target. HS_EINPUT naming the workload when nothing runs within max_gpus. */
int su_answer_budget(const su_question *q, const su_budget *b, su_count *best, char *err);
int su_budget_limit(const su_budget *b, const plat_platform *plat);

/* strategy --search's answer, for printing: the first of the ranking and what it is beside. */
typedef struct {
    const su_question *q;
    const su_list *l;
    const st_plan *plan;      /* the answer as written (su_answer_plan) */
    const char *path;         /* the strategy file written */
    const hs_estimate *file;  /* a built-in answer's file simulated (su_simulate_plan), or NULL */
    int answer, builtin, searched; /* indices into l->c (-1: none) */
} su_found;

/* suggest_print.c: suggest's ranking as a table or as JSON; a budget's first lines, each
 * count's line (su_budget.each may call it) and the answer's line; strategy --search's answer
 * with its layers and what the search did, as a table or as JSON. */
void su_print_ranking(FILE *out, const su_question *q, const su_list *l);
void su_print_ranking_json(FILE *out, const su_question *q, const su_list *l);
void su_print_budget_head(FILE *out, const su_question *q, const su_budget *b);
void su_print_budget_count(FILE *out, const su_count *c);
void su_print_budget_answer(FILE *out, const su_question *q, const su_budget *b,
                            const su_count *best);
void su_print_found(FILE *out, const su_found *f);
void su_print_found_json(FILE *out, const su_found *f);

/* ghp.c: GHP's group size for `strategy --generate ghp` on gpus GPUs of plat: every divisor G
 * written as ghp:G and priced by the analytic model, each that fits simulated (simulate; NULL:
 * the model alone), the fastest that fits into *best (free with st_plan_free); why (why_len
 * bytes) says what was priced and simulated ("G chosen by the simulation on abci, ..."). Kernel
 * times as job_compute_for_pricing's defaults; progress on stderr. HS_EINPUT when no G gives a
 * plan, else the simulation's errors. */
int su_choose_ghp(const wl_workload *wl, plat_platform *plat, int gpus, int64_t batch,
                  su_simulate_fn simulate, st_plan *best, char *why, size_t why_len, char *err);

#endif
