/* trace.c: Chrome trace-event JSON of a simulated run (trace.h).
 *
 * The JSON Object Format: {"traceEvents": [event, ...], "displayTimeUnit": "ms", ...}. Events
 * need not be sorted (the viewers sort them), so the writer emits every kept rank's metadata and
 * tasks in rank order as it goes, one line per event, through a large stdio buffer. Times are
 * microseconds with three decimals (nanoseconds), enough to keep the slices of one rank summing
 * to its busy times within a nanosecond per slice. Process and thread ids start at 1: Perfetto
 * treats pid 0 and tid 0 as the kernel's (google/perfetto#394). */
#define _POSIX_C_SOURCE 200809L
#include "trace.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_json.h"
#include "hs_out.h"

#define TR_BUFFER_BYTES (1 << 20)

struct tr_writer {
    hs_out file;        /* the trace file (hs_out.h: a temp renamed into place) */
    FILE *out;          /* file.f */
    char *buffer;       /* stdio buffer of out */
    int network_pid;    /* the counter tracks' process */
    bool network_named; /* its process_name was written */
    hs_json json;       /* the writer on out, inside "traceEvents": [...] */
};

/* ---------------------------------------------------------------- GPU lists */

int tr_parse_gpus(const char *text, tr_gpu_set *set, char *err)
{
    const char *bad = text;
    size_t len = 0;
    hs_ranges_status status = hs_parse_ranges(text, ',', set, &bad, &len);
    /* a GPU number is an int: anything larger is no GPU number at all */
    for (int i = 0; status == HS_RANGES_OK && i < set->n; i++)
        if (set->range[i][1] > INT_MAX) {
            status = HS_RANGES_SYNTAX;
            bad = text; /* the list's items are not kept: name the whole text */
            len = strlen(text);
        }
    if (status == HS_RANGES_NO_MEMORY) {
        hs_ranges_free(set);
        return hs_fail(err, HS_EINTERNAL, "--trace-gpus: out of memory");
    }
    if (status != HS_RANGES_OK) {
        int shown = len > 40 ? 40 : (int)len;
        hs_ranges_free(set);
        return hs_fail(err, HS_EINPUT, "--trace-gpus: '%.*s' is not %s (expected GPU numbers "
                       "and ranges such as 0-7,64,128-131)", shown, bad,
                       status == HS_RANGES_REVERSED ? "a range from low to high"
                                                    : "a GPU number or range");
    }
    return HS_OK;
}

void tr_gpus_free(tr_gpu_set *set)
{
    hs_ranges_free(set);
}

bool tr_gpus_has(const tr_gpu_set *set, int gpu)
{
    for (int i = 0; i < set->n; i++)
        if (gpu >= set->range[i][0] && gpu <= set->range[i][1])
            return true;
    return false;
}

int tr_gpus_check(const tr_gpu_set *set, const int *gpu_of_rank, int n_ranks, int n_gpus,
                  char *err)
{
    unsigned char *used = calloc((size_t)n_gpus, 1);
    if (!used)
        return hs_fail(err, HS_EINTERNAL, "--trace-gpus: out of memory for %d GPUs", n_gpus);
    for (int r = 0; r < n_ranks; r++)
        if (gpu_of_rank[r] >= 0 && gpu_of_rank[r] < n_gpus)
            used[gpu_of_rank[r]] = 1;
    int status = HS_OK;
    for (int i = 0; i < set->n && status == HS_OK; i++) {
        if (set->range[i][1] >= n_gpus) {
            status = hs_fail(err, HS_EINPUT, "--trace-gpus: GPU %d does not exist (the platform "
                             "has GPUs 0-%d)", (int)set->range[i][1], n_gpus - 1);
            break;
        }
        for (int gpu = (int)set->range[i][0]; gpu <= set->range[i][1]; gpu++)
            if (!used[gpu]) {
                status = hs_fail(err, HS_EINPUT, "--trace-gpus: GPU %d runs no rank of this "
                                 "run (%d ranks; rank r is on GPU r with --placement packed)",
                                 gpu, n_ranks);
                break;
            }
    }
    free(used);
    return status;
}

/* ---------------------------------------------------------------- writing */

/* Ids from 1 (Perfetto's pid and tid 0 are the kernel's); a GPU's streams side by side. */
static int node_pid(int node) { return node + 1; }
static int stream_tid(int gpu, int stream) { return 2 * gpu + 1 + stream; }

/* Start one event, on a line of its own. */
static hs_json *begin_event(tr_writer *w)
{
    hs_json_break(&w->json, "\n");
    hs_json_object(&w->json);
    return &w->json;
}

int tr_open(const char *path, int n_nodes, tr_writer **wp, char *err)
{
    *wp = NULL;
    tr_writer *w = calloc(1, sizeof *w);
    if (w)
        w->buffer = malloc(TR_BUFFER_BYTES);
    if (!w || !w->buffer) {
        tr_abort(w);
        return hs_fail(err, HS_EINTERNAL, "--trace: out of memory");
    }
    int status = hs_out_open(&w->file, "--trace", path, err);
    if (status != HS_OK) {
        tr_abort(w);
        return status;
    }
    w->out = w->file.f;
    setvbuf(w->out, w->buffer, _IOFBF, TR_BUFFER_BYTES);
    w->network_pid = node_pid(n_nodes);
    hs_json *j = &w->json;
    hs_json_init(j, w->out);
    hs_json_object(j);
    hs_json_kv_str(j, "displayTimeUnit", "ms");
    hs_json_key(j, "otherData");
    hs_json_object(j);
    hs_json_kv_str(j, "generator", "hybridsim");
    hs_json_end(j);
    hs_json_key(j, "traceEvents");
    hs_json_array(j);
    *wp = w;
    return HS_OK;
}

/* A metadata event's head: "name" (what it sets), "ph", "pid" and "tid" (-1: none); then
 * "args" is open. */
static hs_json *begin_metadata(tr_writer *w, const char *what, int pid, int tid)
{
    hs_json *j = begin_event(w);
    hs_json_kv_str(j, "name", what);
    hs_json_kv_str(j, "ph", "M");
    hs_json_kv_int(j, "pid", pid);
    if (tid >= 0)
        hs_json_kv_int(j, "tid", tid);
    hs_json_key(j, "args");
    hs_json_object(j);
    return j;
}

static void put_metadata(tr_writer *w, const char *what, int pid, int tid, const char *name)
{
    hs_json *j = begin_metadata(w, what, pid, tid);
    hs_json_kv_str(j, "name", name);
    hs_json_end(j);
    hs_json_end(j);
}

static void put_sort_index(tr_writer *w, const char *what, int pid, int tid, long index)
{
    hs_json *j = begin_metadata(w, what, pid, tid);
    hs_json_kv_int(j, "sort_index", index);
    hs_json_end(j);
    hs_json_end(j);
}

/* The node's process (once) and the GPU's two threads. */
static void put_tracks(tr_writer *w, int node, bool name_node, int gpu, int rank)
{
    char name[96];
    int pid = node_pid(node);
    if (name_node) {
        snprintf(name, sizeof name, "node %d", node);
        put_metadata(w, "process_name", pid, -1, name);
        put_sort_index(w, "process_sort_index", pid, -1, pid);
    }
    for (int stream = 0; stream < 2; stream++) {
        snprintf(name, sizeof name, "gpu %d (rank %d)%s", gpu, rank, stream ? " comm" : "");
        put_metadata(w, "thread_name", pid, stream_tid(gpu, stream), name);
        put_sort_index(w, "thread_sort_index", pid, stream_tid(gpu, stream),
                       stream_tid(gpu, stream));
    }
}

/* The slice's name: a kernel is "LAYER phase", a communication task "op LAYER" (or "op phase"
 * when it serves no single layer, as the fused gradient allreduce). */
static void put_task_name(hs_json *j, const tg_task *t, const wl_workload *wl)
{
    char name[WL_NAME_LEN + 64];
    const char *layer = t->layer >= 0 && t->layer < wl->n_layers ? wl->layers[t->layer].name
                                                                 : NULL;
    const char *phase = tg_phase_name((tg_phase)t->phase);
    if (tg_stream(t) == 0)
        snprintf(name, sizeof name, "%s %s", layer ? layer : "(no layer)", phase);
    else
        snprintf(name, sizeof name, "%s %s", tg_op_name((tg_op)t->op), layer ? layer : phase);
    hs_json_kv_str(j, "name", name);
}

/* Times in whole nanoseconds, rounded once: a slice's duration is the difference of its
 * rounded ends, so a slice that starts when the previous one on its track ends never starts
 * before it (rounding ts and dur apart put 576 of 7,696 slices 1 ns into their predecessor). */
static long long trace_ns(double t_s)
{
    return llround(t_s * 1e9);
}

/* A member: nanoseconds as microseconds with three decimals, exactly. */
static void put_us(hs_json *j, const char *key, long long ns)
{
    hs_json_key(j, key);
    hs_json_printf(j, "%s%lld.%03lld", ns < 0 ? "-" : "", llabs(ns) / 1000, llabs(ns) % 1000);
}

/* A communication task of rank `rank`: its op, bytes, peers or group, staging, algorithm. */
static void put_comm_args(hs_json *j, const tr_run *run, int rank, const tg_task *t)
{
    static const char *const algo[TG_ALGO_COUNT] = {"ring", "hierarchical", "tree", "rings",
                                                     "auto"};
    hs_json_kv_str(j, "op", tg_op_name((tg_op)t->op));
    hs_json_kv_number(j, "bytes", t->amount);
    int peer = tg_peer(run->g, rank, t); /* a rank or a group */
    const tg_group *grp = peer >= 0 && peer < run->g->n_groups ? &run->g->groups[peer] : NULL;
    if (t->op == TG_SEND || t->op == TG_RECV) {
        hs_json_kv_int(j, "peer_rank", peer);
    } else if (t->op == TG_SHIFT && grp && grp->n == 2) { /* {send peer, receive peer} */
        hs_json_kv_int(j, "send_to_rank", grp->ranks[0]);
        hs_json_kv_int(j, "recv_from_rank", grp->ranks[1]);
    } else if (grp) {
        hs_json_kv_int(j, "group_size", grp->n);
    }
    if (t->flags & TG_FLAG_STAGED)
        hs_json_kv_bool(j, "staged", true);
    if ((t->op == TG_ALLREDUCE || t->op == TG_ALLGATHER || t->op == TG_REDUCE_SCATTER) &&
        t->algo < TG_ALGO_COUNT)
        hs_json_kv_str(j, "algorithm", algo[t->algo]);
}

static void put_task(tr_writer *w, const tr_run *run, int rank, int node, int gpu, int i)
{
    const tg_task *t = &run->g->ranks[rank].tasks[i];
    double start_s = run->res->task_start_s[rank][i], end_s = run->res->task_end_s[rank][i];
    bool kernel = tg_stream(t) == 0;
    hs_json *j = begin_event(w);
    put_task_name(j, t, run->wl);
    long long start_ns = trace_ns(start_s), end_ns = trace_ns(end_s);
    hs_json_kv_str(j, "cat", kernel ? "compute" : "comm");
    hs_json_kv_str(j, "ph", "X");
    hs_json_kv_int(j, "pid", node_pid(node));
    hs_json_kv_int(j, "tid", stream_tid(gpu, !kernel));
    put_us(j, "ts", start_ns);
    put_us(j, "dur", end_ns - start_ns);
    hs_json_key(j, "args");
    hs_json_object(j);
    hs_json_kv_int(j, "layer", (int)t->layer);
    hs_json_kv_str(j, "phase", tg_phase_name((tg_phase)t->phase));
    hs_json_key(j, "seconds");
    hs_json_printf(j, "%.9g", end_s - start_s);
    if (!kernel)
        put_comm_args(j, run, rank, t);
    hs_json_end(j);
    hs_json_end(j);
}

int tr_write_run(tr_writer *w, const tr_run *run, char *err)
{
    if (!run->res->task_start_s || !run->res->task_end_s)
        return hs_fail(err, HS_EINTERNAL, "trace: the run recorded no task times");
    int per_node = run->gpus_per_node > 0 ? run->gpus_per_node : 1;
    int max_node = -1;
    for (int r = 0; r < run->g->n_ranks; r++)
        if (run->gpu_of_rank[r] / per_node > max_node)
            max_node = run->gpu_of_rank[r] / per_node;
    unsigned char *named = calloc((size_t)max_node + 1, 1);
    if (!named)
        return hs_fail(err, HS_EINTERNAL, "trace: out of memory for %d nodes", max_node + 1);
    for (int r = 0; r < run->g->n_ranks; r++) {
        int gpu = run->gpu_of_rank[r], node = gpu / per_node;
        if (run->gpus && !tr_gpus_has(run->gpus, gpu))
            continue;
        put_tracks(w, node, !named[node], gpu, r);
        named[node] = 1;
        for (int i = 0; i < run->g->ranks[r].n_tasks; i++)
            put_task(w, run, r, node, gpu, i);
    }
    free(named);
    return HS_OK;
}

void tr_write_counter(tr_writer *w, const char *name, double t_s, double value)
{
    if (!w->network_named) {
        put_metadata(w, "process_name", w->network_pid, -1, "network");
        put_sort_index(w, "process_sort_index", w->network_pid, -1, w->network_pid);
        w->network_named = true;
    }
    hs_json *j = begin_event(w);
    hs_json_kv_str(j, "name", name);
    hs_json_kv_str(j, "ph", "C");
    hs_json_kv_int(j, "pid", w->network_pid);
    hs_json_key(j, "ts");
    hs_json_printf(j, "%.3f", t_s * 1e6);
    hs_json_key(j, "args");
    hs_json_object(j);
    hs_json_key(j, "utilisation");
    hs_json_printf(j, "%.9g", value);
    hs_json_end(j);
    hs_json_end(j);
}

int tr_close(tr_writer *w, char *err)
{
    hs_json_break(&w->json, "\n"); /* the array's end on a line of its own */
    hs_json_end(&w->json);
    hs_json_end(&w->json);
    fputc('\n', w->out);
    int status = hs_out_commit(&w->file, err);
    free(w->buffer);
    free(w);
    return status;
}

void tr_abort(tr_writer *w)
{
    if (!w)
        return;
    hs_out_abort(&w->file);
    free(w->buffer);
    free(w);
}
