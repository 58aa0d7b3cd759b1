/* trace.h: a simulated run as a Chrome trace-event file (--trace FILE.json), to look at in
 * Perfetto (ui.perfetto.dev) or chrome://tracing.
 *
 * Layout: one process per node (pid = node + 1, named "node N"); per GPU two threads, its
 * compute stream (tid 2G+1, named "gpu G (rank r)") and its communication stream (tid 2G+2,
 * "gpu G (rank r) comm"), as the two streams overlap; one complete event ("ph":"X", ts and dur
 * in microseconds) per kernel and per communication task, with the layer, phase, seconds and
 * (communication) peer(s) or group size, bytes, algorithm, staging in its args. Counter events
 * ("ph":"C") go to one more process, "network" (pid = the platform's node count + 1): that is
 * the hook through which link statistics are drawn as utilisation tracks. Ids start at 1
 * because Perfetto reserves pid and tid 0 for the kernel.
 *
 * The file is streamed event by event into FILE.tmp and renamed to FILE when complete, so a
 * large run needs no memory for it and a failed run leaves no half-written trace. */
#ifndef TRACE_H
#define TRACE_H

#include <stdbool.h>

#include "engine.h"
#include "hs_error.h"
#include "hs_parse.h"
#include "taskgraph.h"
#include "workload.h"

/* The GPUs to keep (--trace-gpus "0-7,64,128-131"): inclusive ranges of platform GPU indices,
 * as written. */
typedef hs_ranges tr_gpu_set;

/* Parse a GPU list; HS_EINPUT naming the flag and the bad item otherwise. Free with
 * tr_gpus_free. */
int tr_parse_gpus(const char *text, tr_gpu_set *set, char *err);
void tr_gpus_free(tr_gpu_set *set);
bool tr_gpus_has(const tr_gpu_set *set, int gpu);

/* HS_EINPUT unless every listed GPU exists (< n_gpus) and runs a rank of this run. */
int tr_gpus_check(const tr_gpu_set *set, const int *gpu_of_rank, int n_ranks, int n_gpus,
                  char *err);

typedef struct tr_writer tr_writer;

/* Open the trace file (hs_out.h: a temp beside it, or a device written in place) and write
 * its opening (HS_EINPUT naming --trace if it cannot be written there). n_nodes: the
 * platform's, to number the network process after the nodes. */
int tr_open(const char *path, int n_nodes, tr_writer **w, char *err);

/* What tr_write_run needs to know about a run. */
typedef struct {
    const tg_graph *g;
    const eng_result *res;   /* with task times (eng_options.record_tasks) */
    const int *gpu_of_rank;
    int gpus_per_node;       /* node of GPU G = G / gpus_per_node */
    const wl_workload *wl;   /* layer names */
    const tr_gpu_set *gpus;  /* GPUs to keep, NULL: all */
} tr_run;

/* Write the tracks and events of every kept rank. HS_EINTERNAL if the run has no task times. */
int tr_write_run(tr_writer *w, const tr_run *run, char *err);

/* A counter sample on the network process: track `name` (a link) has `value` (its
 * utilisation, 0..1) from time t_s on. */
void tr_write_counter(tr_writer *w, const char *name, double t_s, double value);

/* Finish the JSON and put the file in place (hs_out_commit); HS_EINTERNAL naming --trace if
 * writing failed (disk full, ...). Frees w either way. */
int tr_close(tr_writer *w, char *err);

/* Give up: close and remove the temp, free w (NULL is allowed). */
void tr_abort(tr_writer *w);

#endif
