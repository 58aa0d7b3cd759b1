/* job_keys.h: a job's settings (js_settings) and the one table of job keys (js_keys) that
 * every reader of them reads: the run commands' flags (sim/cli/cli_options.c), suggest's and
 * strategy --search's flags, the sweep file's keys and their value lists (sim/sweep), the
 * shared fabric's --job KEY=VALUE (sim/fabric) and the --help lines for those keys.
 *
 * Adding a key is one row in js_keys (job_keys.c) and one field in js_settings; every reader
 * then takes it, refuses it repeated, and lists it in --help. What the key means is for the
 * derivations the settings are passed to (job.c loads and checks a job from them). */
#ifndef JOB_KEYS_H
#define JOB_KEYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <getopt.h>

/* Where kernel times come from (--compute). */
typedef enum {
    JS_COMPUTE_DEFAULT = 0, /* the model's kernels alone, as JS_COMPUTE_KERNELS, wherever
                             * the model can time the run (job.c), else the
                             * measured times where the workload was measured on the
                             * platform's GPU, else an input error naming --compute */
    JS_COMPUTE_MEASURED,    /* the measured per-sample times, whatever the GPU */
    JS_COMPUTE_MODEL,       /* the compute model (compute.h, kt_compute), anchored on the
                             * workload's measurement where it has one */
    JS_COMPUTE_KERNELS      /* the compute model's kernels alone, a measurement ignored */
} js_compute;

/* A choice between a mechanism and ParaDL's assumption, or not said (the strategy's default). */
enum { JS_ON = 1, JS_OFF = 2 };

/* One job's settings, as the user gave them; zeroed, every one is its default. */
typedef struct {
    const char *workload;  /* -w: a path or a short name */
    const char *layers;    /* --layers: a ParaDL layer file, or NULL */
    const char *strategy;  /* -s: a built-in strategy or a strategy file */
    int gpus;              /* -g: GPUs (ranks) p; 0 not said */
    int64_t batch;         /* -b: the global mini-batch, samples; 0 not said */
    int micro_batches;     /* --micro-batches: pipeline S, 0 = the default */
    int allreduce;         /* --allreduce: co_algo of the gradient allreduce (CO_RING) */
    bool overlap;          /* --overlap: gradients in buckets behind the backward */
    int compute;           /* --compute: js_compute */
    int precision;         /* --precision: pr_precision (0: fp32) */
    int filter_rs;         /* --filter-backward: JS_ON reduce-scatter, JS_OFF allreduce,
                            * 0 not said (the strategy's default, st_parse) */
    int halo_chain;        /* --halo: JS_ON chain, JS_OFF sendrecv, 0 not said */
    const char *runtime;   /* --runtime: a runtime's name or FILE.rt (workloads/runtime/), whose
                            * values the keys above not given take (job.c); NULL: none */
    int optimizer_every;   /* --optimizer-every: iterations per optimizer step (gradient
                            * accumulation); 0 not said: every iteration */
    int loader_workers;    /* --loader-workers: input loader workers a GPU; 0 not said: the
                            * runtime's loader_workers_per_gpu */
    unsigned given;        /* bit k: js_keys[k] was given (a second time is refused) */
} js_settings;

/* How a key's value is read. */
typedef enum {
    JS_TEXT,   /* a string kept as given (const char *) */
    JS_COUNT,  /* a whole number in [1, INT_MAX] (int) */
    JS_BATCH,  /* a whole number in [1, INT64_MAX / 4] (int64_t) */
    JS_CHOICE, /* one word of `values` (int: `first` + its index) */
    JS_SWITCH  /* a flag alone (true), or with on or off: --overlap=off, --job overlap=on, a
                * sweep's and a strategy file's value (bool) */
} js_type;

/* Where a key is taken besides the run commands (analytic, simulate, compare), which take
 * every key. */
enum {
    JS_IN_PRICING = 1u << 0, /* suggest and strategy --search (the others they choose) */
    JS_IN_FABRIC = 1u << 1,  /* a shared fabric's --job KEY=VALUE */
    JS_IN_SWEEP = 1u << 2    /* a sweep file's key and sweep's flag (sim/sweep) */
};

/* One job key. */
typedef struct {
    const char *name;      /* the long flag (--NAME) and the sweep file's key */
    char short_flag;       /* -X, also a key in --job (w=, g=) beside NAME=; 0: none */
    js_type type;          /* how its value is read and what field it fills */
    size_t offset;         /* of its field in js_settings */
    const char *values;    /* JS_CHOICE: the words, ", " between, in the field's order */
    int first;             /* JS_CHOICE: the field's value for the first word */
    const char *noun;      /* JS_CHOICE: what a value is ("unknown algorithm 'x'") */
    const char *arg;       /* the value's name in --help ("N"); NULL for a switch */
    const char *help;      /* --help's text, one paragraph (js_print_help wraps it) */
    unsigned scope;        /* JS_IN_* */
    bool job_own;          /* the job's own (what runs, where, how much): not a strategy
                            * file's <setting>; every other key is one (job.c) */
    const char *only;      /* a value given for many runs (a sweep's, --job's from the command
                            * line) goes to the runs whose strategy has this word (st_text_is:
                            * "spatial"), the others refusing the key; NULL: to every run */
    bool files;            /* with only: the runs of a strategy file take it too (js_applies) */
} js_key;

#define JS_MAX_KEYS 32 /* bits of js_settings.given */

extern const js_key js_keys[];
extern const int js_n_keys;

/* Whether the key named `name` was given in s. */
bool js_given(const js_settings *s, const char *name);

/* Whether key k, given for many runs, goes to a run of strategy `strategy` (js_key.only and
 * .files). */
bool js_applies(int k, const char *strategy);

/* The key named `name` (its long name), or -1. */
int js_find(const char *name);

/* The key whose short flag is c, or -1. */
int js_find_short(int c);

/* The key named `name` in --job: its short flag or its name; or -1. (A shared fabric's own
 * keys, gpus= the list of GPUs among them, are looked up first, sim/fabric.) */
int js_find_job_key(const char *name);

/* The flag that names key k in messages: "-g" where it has a short flag, else "--NAME"; and
 * "--micro-batches", whose -S is only a shorthand (written into buf of at least 40 bytes). */
const char *js_flag_name(int k, char *buf);

/* Key k's value (NULL: a switch alone, on) into s: HS_EINPUT when k was given before ("WHERE is
 * given twice") or the value is malformed ("WHERE: 'x' is not a whole number", "WHERE:
 * unknown algorithm 'x' (known: ...)", "WHERE: 2147483648 is too large (at most ...)");
 * `where` names it as the user wrote it ("-g", "--job 2: g", "FILE:3: gpus"). */
int js_set(js_settings *s, int k, const char *value, const char *where, char *err);

/* Key k of `from` into `to` when `from` has it (and `to` then has it given). */
void js_take(js_settings *to, const js_settings *from, int k);

/* Whether value is a valid value of key k (the message as js_set's otherwise), without
 * keeping it: for readers that keep values as text (a sweep's lists). */
int js_check(int k, const char *value, const char *where, char *err);

/* The text of key k's field in s, for a child's command line or a CSV key (JS_CHOICE: its
 * word; JS_TEXT: as given; counts into buf of at least 24 bytes); NULL when not given. */
const char *js_value_text(const js_settings *s, int k, char *buf);

/* getopt_long entries for the keys whose scope includes `scope` (0: every key) into opts
 * (room for js_n_keys), key k's entry returning code base + k (a switch's value optional:
 * --overlap, --overlap=off); and their short flags (each followed by ':' unless a switch)
 * appended to shortopts. Returns the entries written. */
int js_getopt_entries(struct option *opts, unsigned scope, int base, char *shortopts,
                      size_t shortopts_size);

/* The --help lines of the keys whose scope includes `scope` (0: every key). */
void js_print_help(FILE *out, unsigned scope);

/* Key k's --help line, its flag written as `flag` ("--precision P"). */
void js_print_key_help(FILE *out, int k, const char *flag);

#endif
