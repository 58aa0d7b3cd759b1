/* test_trace.c: the trace file, the per-layer breakdown and the memory breakdown, on runs whose
 * every time is written by hand (no SimGrid: the engine's output is a table of start and end
 * times, built here), so that each number can be checked against arithmetic.
 *
 * The hand-made run: the four-layer workload of tiny_workload.h on two ranks, rank 0 on GPU 0
 * (node 0) and rank 1 on GPU 5 (node 1 of a 4-GPU-per-node machine).
 *   rank 0  compute  L0 forward [0,1]           L1 forward [3,4]  L1 bwd-input [4,5]
 *                    L3 update [5,6]
 *           comm     allgather L0 [1,3] (L1's forward waits for it)
 *                    allreduce gradient, no layer, [5,7.5] (overlaps the update)
 *           end 7.5: compute 4, comm 4.5, exposed 2 (allgather) + 1.5 (allreduce after the
 *           last kernel) = 3.5, and compute + exposed = 7.5 = end.
 *   rank 1  compute  L0 forward [0,2]; comm  recv from rank 0 for L2's bwd-input [2,2.5];
 *           end 2.5. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "analytic.h"
#include "breakdown.h"
#include "out_helpers.h"
#include "trace.h"
#include "workload.h"
#include "tiny_workload.h"

static wl_layer tiny_layers[4];
static wl_workload tiny;

static void check_close(double got, double want, const char *what)
{
    if (fabs(got - want) > 1e-12 * fabs(want) + 1e-15)
        fail_msg("%s: got %.15g, expected %.15g", what, got, want);
}

/* ---------------------------------------------------------------- the hand-made run */

typedef struct {
    tg_graph g;
    eng_result res;
    int gpu_of_rank[2];
} hand_run;

static void add(hand_run *h, int rank, tg_task t, double start_s, double end_s)
{
    int i = tg_add(&h->g, rank, t);
    assert_true(i >= 0);
    h->res.task_start_s[rank][i] = start_s;
    h->res.task_end_s[rank][i] = end_s;
}

static tg_task task(tg_op op, tg_phase phase, int layer, int peer, int after, double amount)
{
    tg_task t = {.op = (uint8_t)op, .phase = (uint8_t)phase, .layer = layer, .peer = peer,
                 .after = after, .amount = amount};
    return t;
}

static void hand_run_build(hand_run *h)
{
    char err[HS_ERR_LEN];
    memset(h, 0, sizeof *h);
    assert_int_equal(tg_init(&h->g, 2, err), HS_OK);
    int both[2] = {0, 1};
    int group = tg_add_group(&h->g, both, 2);
    h->res.n_ranks = 2;
    h->res.ranks = calloc(2, sizeof *h->res.ranks);
    h->res.task_start_s = calloc(2, sizeof *h->res.task_start_s);
    h->res.task_end_s = calloc(2, sizeof *h->res.task_end_s);
    for (int r = 0; r < 2; r++) {
        h->res.task_start_s[r] = calloc(8, sizeof **h->res.task_start_s);
        h->res.task_end_s[r] = calloc(8, sizeof **h->res.task_end_s);
    }
    add(h, 0, task(TG_EXEC, TG_FORWARD, 0, -1, -1, 1), 0, 1);
    add(h, 0, task(TG_ALLGATHER, TG_FORWARD, 0, group, -1, 100), 1, 3);
    add(h, 0, task(TG_EXEC, TG_FORWARD, 1, -1, 1, 1), 3, 4);
    add(h, 0, task(TG_EXEC, TG_BACKWARD_INPUT, 1, -1, -1, 1), 4, 5);
    add(h, 0, task(TG_ALLREDUCE, TG_GRADIENT, -1, group, 3, 1000), 5, 7.5);
    add(h, 0, task(TG_EXEC, TG_UPDATE, 3, -1, -1, 1), 5, 6);
    add(h, 1, task(TG_EXEC, TG_FORWARD, 0, -1, -1, 2), 0, 2);
    add(h, 1, task(TG_RECV, TG_BACKWARD_INPUT, 2, 0, -1, 64), 2, 2.5);
    h->res.ranks[0] = (eng_rank_stats){.end_s = 7.5, .compute_busy_s = 4, .comm_busy_s = 4.5,
                                       .exposed_comm_s = 3.5};
    h->res.ranks[1] = (eng_rank_stats){.end_s = 2.5, .compute_busy_s = 2, .comm_busy_s = 0.5,
                                       .exposed_comm_s = 0.5};
    h->res.makespan_s = 7.5;
    h->gpu_of_rank[0] = 0;
    h->gpu_of_rank[1] = 5;
}

static void hand_run_free(hand_run *h)
{
    eng_result_free(&h->res);
    tg_free(&h->g);
}

static int setup(void **state)
{
    (void)state;
    tiny_workload(&tiny, tiny_layers);
    /* A name the trace must escape. */
    strcpy(tiny_layers[3].name, "FC \"out\"\\1");
    return 0;
}

/* ---------------------------------------------------------------- breakdown */

static void test_breakdown_by_hand(void **state)
{
    (void)state;
    hand_run h;
    hand_run_build(&h);
    bd_breakdown bd;
    char err[HS_ERR_LEN];
    assert_int_equal(bd_from_run(&h.g, &h.res, 0, &tiny, &bd, err), HS_OK);
    assert_int_equal(bd.rank, 0);
    assert_int_equal(bd.n_layers, 4);
    check_close(bd.layers[0][TG_FORWARD].compute_s, 1, "L0 forward compute");
    check_close(bd.layers[0][TG_FORWARD].comm_s, 2, "L0 forward comm");
    check_close(bd.layers[0][TG_FORWARD].exposed_comm_s, 2, "L0 forward exposed");
    check_close(bd.layers[1][TG_FORWARD].compute_s, 1, "L1 forward");
    check_close(bd.layers[1][TG_BACKWARD_INPUT].compute_s, 1, "L1 bwd-input");
    check_close(bd.layers[3][TG_UPDATE].compute_s, 1, "L3 update");
    check_close(bd.shared[TG_GRADIENT].comm_s, 2.5, "gradient comm");
    check_close(bd.shared[TG_GRADIENT].exposed_comm_s, 1.5, "gradient exposed (tail only)");
    check_close(bd.layers[2][TG_FORWARD].compute_s, 0, "L2 ran nothing on rank 0");

    /* The sums are the rank's: compute, comm, exposed, and compute + exposed = its end. */
    bd_cell total = bd_total(&bd);
    check_close(total.compute_s, h.res.ranks[0].compute_busy_s, "total compute");
    check_close(total.comm_s, h.res.ranks[0].comm_busy_s, "total comm");
    check_close(total.exposed_comm_s, h.res.ranks[0].exposed_comm_s, "total exposed");
    check_close(bd_layer_time_s(&bd, 0), 3, "L0 time = 1 + 2 exposed");
    check_close(bd_layer_time_s(&bd, -1), 1.5, "no-layer time");

    /* Most time first; ties (L1 and L3 at 2 and 1 s) in layer order. */
    int order[4];
    bd_rank_layers(&bd, order);
    assert_int_equal(order[0], 0);
    assert_int_equal(order[1], 1);
    assert_int_equal(order[2], 3);
    assert_int_equal(order[3], 2);
    bd_free(&bd);

    /* Rank 1: the receive overlaps no kernel, all of it is exposed. */
    assert_int_equal(bd_from_run(&h.g, &h.res, 1, &tiny, &bd, err), HS_OK);
    check_close(bd.layers[2][TG_BACKWARD_INPUT].exposed_comm_s, 0.5, "recv exposed");
    check_close(bd_total(&bd).exposed_comm_s, 0.5, "rank 1 exposed");
    bd_free(&bd);
    hand_run_free(&h);
}

static void test_breakdown_refuses_what_it_cannot_do(void **state)
{
    (void)state;
    hand_run h;
    hand_run_build(&h);
    bd_breakdown bd;
    char err[HS_ERR_LEN];
    assert_int_equal(bd_from_run(&h.g, &h.res, 2, &tiny, &bd, err), HS_EINTERNAL);
    wl_workload short_wl = tiny;
    short_wl.n_layers = 2; /* rank 0 has tasks of L3 */
    assert_int_equal(bd_from_run(&h.g, &h.res, 0, &short_wl, &bd, err), HS_EINTERNAL);
    assert_non_null(strstr(err, "layer 3"));
    assert_null(bd.layers);
    double **saved = h.res.task_start_s;
    h.res.task_start_s = NULL;
    assert_int_equal(bd_from_run(&h.g, &h.res, 0, &tiny, &bd, err), HS_EINTERNAL);
    h.res.task_start_s = saved;
    hand_run_free(&h);
}

/* ---------------------------------------------------------------- GPU lists */

static void test_gpu_lists(void **state)
{
    (void)state;
    tr_gpu_set set;
    char err[HS_ERR_LEN];
    assert_int_equal(tr_parse_gpus("0-7,64,128-131", &set, err), HS_OK);
    assert_int_equal(set.n, 3);
    int in[] = {0, 7, 64, 128, 131}, out[] = {8, 63, 65, 127, 132, -1};
    for (size_t i = 0; i < sizeof in / sizeof *in; i++)
        assert_true(tr_gpus_has(&set, in[i]));
    for (size_t i = 0; i < sizeof out / sizeof *out; i++)
        assert_false(tr_gpus_has(&set, out[i]));
    tr_gpus_free(&set);

    const char *bad[] = {"", ",", "1,", ",1", "7-3", "a", "1-", "-1", "1--2", "1-2-3", "1 ,2",
                         "0x10", "99999999999", "4,,5"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        err[0] = '\0';
        if (tr_parse_gpus(bad[i], &set, err) != HS_EINPUT)
            fail_msg("'%s' was accepted", bad[i]);
        assert_non_null(strstr(err, "--trace-gpus"));
        assert_null(set.range);
    }
    assert_int_equal(tr_parse_gpus("7-3", &set, err), HS_EINPUT);
    assert_non_null(strstr(err, "'7-3'"));
}

static void test_gpu_lists_against_the_run(void **state)
{
    (void)state;
    int gpu_of_rank[3] = {0, 1, 5};
    tr_gpu_set set;
    char err[HS_ERR_LEN];
    assert_int_equal(tr_parse_gpus("0-1,5", &set, err), HS_OK);
    assert_int_equal(tr_gpus_check(&set, gpu_of_rank, 3, 8, err), HS_OK);
    tr_gpus_free(&set);
    assert_int_equal(tr_parse_gpus("0-2", &set, err), HS_OK);
    assert_int_equal(tr_gpus_check(&set, gpu_of_rank, 3, 8, err), HS_EINPUT);
    assert_non_null(strstr(err, "GPU 2 runs no rank"));
    tr_gpus_free(&set);
    assert_int_equal(tr_parse_gpus("5,8", &set, err), HS_OK);
    assert_int_equal(tr_gpus_check(&set, gpu_of_rank, 3, 8, err), HS_EINPUT);
    assert_non_null(strstr(err, "GPU 8 does not exist"));
    tr_gpus_free(&set);
}

/* ---------------------------------------------------------------- a tiny JSON reader */

/* Enough of RFC 8259 to say whether a file is one JSON value: returns the position after the
 * value, or NULL. */
static const char *json_value(const char *p);

static const char *json_ws(const char *p)
{
    while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r')
        p++;
    return p;
}

static const char *json_string(const char *p)
{
    if (*p++ != '"')
        return NULL;
    for (; *p && *p != '"'; p++) {
        if ((unsigned char)*p < 0x20)
            return NULL;
        if (*p == '\\') {
            p++;
            if (*p == 'u') {
                for (int i = 1; i <= 4; i++)
                    if (!strchr("0123456789abcdefABCDEF", p[i]) || !p[i])
                        return NULL;
                p += 4;
            } else if (!*p || !strchr("\"\\/bfnrt", *p)) {
                return NULL;
            }
        }
    }
    return *p == '"' ? p + 1 : NULL;
}

static const char *json_number(const char *p)
{
    char *end;
    if (*p != '-' && (*p < '0' || *p > '9'))
        return NULL;
    strtod(p, &end);
    return end > p ? end : NULL;
}

/* Object or array: members separated by commas, `key` strings before ':' for objects. */
static const char *json_container(const char *p, char close, int keyed)
{
    p = json_ws(p + 1);
    if (*p == close)
        return p + 1;
    for (;;) {
        if (keyed) {
            if (!(p = json_string(p)))
                return NULL;
            p = json_ws(p);
            if (*p++ != ':')
                return NULL;
        }
        if (!(p = json_value(p)))
            return NULL;
        p = json_ws(p);
        if (*p == close)
            return p + 1;
        if (*p++ != ',')
            return NULL;
        p = json_ws(p);
    }
}

static const char *json_value(const char *p)
{
    p = json_ws(p);
    if (*p == '{')
        return json_container(p, '}', 1);
    if (*p == '[')
        return json_container(p, ']', 0);
    if (*p == '"')
        return json_string(p);
    if (!strncmp(p, "true", 4) || !strncmp(p, "null", 4))
        return p + 4;
    if (!strncmp(p, "false", 5))
        return p + 5;
    return json_number(p);
}

static char *read_whole(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *text = malloc((size_t)n + 1);
    if (text && fread(text, 1, (size_t)n, f) != (size_t)n) {
        free(text);
        text = NULL;
    }
    if (text)
        text[n] = '\0';
    fclose(f);
    return text;
}

static void test_json_reader_can_fail(void **state)
{
    (void)state;
    const char *good = "{\"a\": [1, -2.5e3, \"x\\\"\\u00e9\"], \"b\": {}, \"c\": true}";
    const char *end = json_value(good);
    assert_non_null(end);
    assert_int_equal(*json_ws(end), '\0');
    const char *bad[] = {"{\"a\": [1, 2,]}", "{\"a\" 1}", "[1 2]", "{\"a\": \"\n\"}",
                         "{\"a\": \"\\q\"}", "{a: 1}"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        end = json_value(bad[i]);
        if (end && *json_ws(end) == '\0')
            fail_msg("accepted %s", bad[i]);
    }
}

/* ---------------------------------------------------------------- the trace file */

/* Per-thread sums of "dur" over the file's complete events (the writer puts one per line). */
static void sum_durations(const char *text, double *dur_us, int n_tids, int *slices)
{
    memset(dur_us, 0, (size_t)n_tids * sizeof *dur_us);
    *slices = 0;
    for (const char *line = text; line && *line; line = strchr(line, '\n')) {
        line += *line == '\n';
        const char *eol = strchr(line, '\n');
        const char *x = strstr(line, "\"ph\": \"X\"");
        if (!x || (eol && x > eol))
            continue;
        int tid = atoi(strstr(line, "\"tid\": ") + 7);
        assert_true(tid >= 0 && tid < n_tids);
        dur_us[tid] += strtod(strstr(line, "\"dur\": ") + 7, NULL);
        (*slices)++;
    }
}

static char *write_trace(const hand_run *h, const tr_gpu_set *gpus, bool counter)
{
    char path[512], err[HS_ERR_LEN];
    snprintf(path, sizeof path, "%s/test_trace_hand.json", HS_TEST_TMP);
    remove(path);
    tr_writer *w = NULL;
    assert_int_equal(tr_open(path, 2, &w, err), HS_OK);
    tr_run run = {.g = &h->g, .res = &h->res, .gpu_of_rank = h->gpu_of_rank,
                  .gpus_per_node = 4, .wl = &tiny, .gpus = gpus};
    assert_int_equal(tr_write_run(w, &run, err), HS_OK);
    if (counter)
        tr_write_counter(w, "link \"spine-0\"", 1.5, 0.75);
    assert_int_equal(tr_close(w, err), HS_OK);
    assert_int_equal(temps_beside(path), 0); /* renamed away */
    char *text = read_whole(path);
    assert_non_null(text);
    const char *end = json_value(text);
    if (!end || *json_ws(end) != '\0')
        fail_msg("not one JSON value: %s", text);
    return text;
}

static void test_trace_of_the_hand_run(void **state)
{
    (void)state;
    hand_run h;
    hand_run_build(&h);
    char *text = write_trace(&h, NULL, true);

    /* A process per node (pid node + 1), a named track pair per GPU (tids 2G+1, 2G+2). */
    assert_non_null(strstr(text, "\"pid\": 1, \"args\": {\"name\": \"node 0\"}"));
    assert_non_null(strstr(text, "\"pid\": 2, \"args\": {\"name\": \"node 1\"}"));
    assert_non_null(strstr(text, "\"pid\": 1, \"tid\": 1, \"args\": {\"name\": \"gpu 0 (rank 0)\"}"));
    assert_non_null(strstr(text, "\"pid\": 1, \"tid\": 2, \"args\": {\"name\": \"gpu 0 (rank 0) "
                                 "comm\"}"));
    assert_non_null(strstr(text, "\"pid\": 2, \"tid\": 11, \"args\": {\"name\": \"gpu 5 (rank 1)\"}"));
    assert_non_null(strstr(text, "\"pid\": 2, \"tid\": 12, \"args\": {\"name\": \"gpu 5 (rank 1) "
                                 "comm\"}"));

    /* Slices: the durations per track are the ranks' busy times, in microseconds. */
    double dur_us[13];
    int slices;
    sum_durations(text, dur_us, 13, &slices);
    assert_int_equal(slices, 8);
    check_close(dur_us[1], 4e6, "gpu 0 compute");
    check_close(dur_us[2], 4.5e6, "gpu 0 comm");
    check_close(dur_us[11], 2e6, "gpu 5 compute");
    check_close(dur_us[12], 0.5e6, "gpu 5 comm");

    /* Names and args: the layer, the phase, the op, the group or peer, escaped names. */
    assert_non_null(strstr(text, "{\"name\": \"L0 forward\", \"cat\": \"compute\", \"ph\": \"X\", "
                                 "\"pid\": 1, \"tid\": 1, \"ts\": 0.000, \"dur\": 1000000.000"));
    assert_non_null(strstr(text, "\"name\": \"allgather L0\""));
    assert_non_null(strstr(text, "\"op\": \"allgather\", \"bytes\": 100, \"group_size\": 2, "
                                 "\"algorithm\": \"ring\""));
    assert_non_null(strstr(text, "\"name\": \"allreduce gradient\""));
    assert_non_null(strstr(text, "\"name\": \"FC \\\"out\\\"\\\\1 update\""));
    assert_non_null(strstr(text, "\"op\": \"recv\", \"bytes\": 64, \"peer_rank\": 0"));
    /* The counter hook: a network process after the nodes. */
    assert_non_null(strstr(text, "\"pid\": 3, \"args\": {\"name\": \"network\"}"));
    assert_non_null(strstr(text, "{\"name\": \"link \\\"spine-0\\\"\", \"ph\": \"C\", \"pid\": 3, "
                                 "\"ts\": 1500000.000, \"args\": {\"utilisation\": 0.75}}"));
    free(text);
    hand_run_free(&h);
}

static void test_trace_keeps_the_listed_gpus(void **state)
{
    (void)state;
    hand_run h;
    hand_run_build(&h);
    tr_gpu_set set;
    char err[HS_ERR_LEN];
    assert_int_equal(tr_parse_gpus("5", &set, err), HS_OK);
    char *text = write_trace(&h, &set, false);
    assert_null(strstr(text, "gpu 0 (rank 0)"));
    assert_null(strstr(text, "node 0"));
    assert_null(strstr(text, "network"));
    assert_non_null(strstr(text, "gpu 5 (rank 1)"));
    double dur_us[13];
    int slices;
    sum_durations(text, dur_us, 13, &slices);
    assert_int_equal(slices, 2);
    check_close(dur_us[11], 2e6, "gpu 5 compute");
    free(text);
    tr_gpus_free(&set);
    hand_run_free(&h);
}

static void test_trace_file_errors(void **state)
{
    (void)state;
    char err[HS_ERR_LEN], path[512];
    tr_writer *w = NULL;
    assert_int_equal(tr_open("/nonexistent-dir/x/trace.json", 1, &w, err), HS_EINPUT);
    assert_null(w);
    assert_non_null(strstr(err, "--trace"));
    assert_non_null(strstr(err, "/nonexistent-dir/x/trace.json"));

    /* Abandoned: neither the file nor its temporary remains. */
    snprintf(path, sizeof path, "%s/test_trace_abandoned.json", HS_TEST_TMP);
    remove(path);
    int before = temps_beside(path); /* an earlier run that stopped half-way */
    assert_int_equal(tr_open(path, 1, &w, err), HS_OK);
    assert_int_equal(temps_beside(path), before + 1);
    tr_abort(w);
    assert_int_equal(temps_beside(path), before);
    assert_int_equal(access(path, F_OK), -1);

    /* A run without task times is refused. */
    hand_run h;
    hand_run_build(&h);
    assert_int_equal(tr_open(path, 2, &w, err), HS_OK);
    eng_result bare = h.res;
    bare.task_start_s = NULL;
    tr_run run = {.g = &h.g, .res = &bare, .gpu_of_rank = h.gpu_of_rank, .gpus_per_node = 4,
                  .wl = &tiny};
    assert_int_equal(tr_write_run(w, &run, err), HS_EINTERNAL);
    tr_abort(w);
    assert_int_equal(temps_beside(path), before);
    hand_run_free(&h);
}

/* ---------------------------------------------------------------- memory breakdown */

static hs_estimate memory_of(const char *strategy, int p, int segments, int64_t batch,
                             int optimizer_states)
{
    an_link stage = {1e-5, 1e-9};
    an_links links = {.ring = {1e-5, 1e-9}, .group = {2e-6, 2e-10}, .across = {3e-5, 1e-9},
                      .staged = {3e-3, 6.25e-11}, .node_sharing = 2, .stage = &stage,
                      .n_stage_links = 1};
    st_strategy st;
    hs_estimate est;
    char err[HS_ERR_LEN];
    tiny.optimizer_states = optimizer_states;
    if (st_parse(strategy, p, 2, segments, &st, err) != HS_OK)
        fail_msg("%s: %s", strategy, err);
    if (an_model(&tiny, NULL, &st, batch, &links, 1e9, &est, err) != HS_OK)
        fail_msg("%s: %s", strategy, err);
    tiny.optimizer_states = 0;
    const hs_memory *m = &est.memory;
    /* The parts add up to the total exactly (not within a tolerance). */
    assert_true(m->weights_bytes + m->gradients_bytes + m->activations_bytes +
                    m->optimizer_state_bytes == est.memory_per_gpu_bytes);
    assert_true(m->gradients_bytes == m->weights_bytes);
    assert_true(m->optimizer_state_bytes == optimizer_states * m->weights_bytes);
    return est;
}

static void test_memory_breakdown(void **state)
{
    (void)state;
    /* Data, 4 GPUs, B = 64: 16 samples of 906 activation elements, W = 1640 weights.
     * weights 4 * 1640 = 6560 B, gradients as much, activations 2 * 4 * 16 * 906 = 115968 B:
     * 129088 B, ParaDL's 2 * 4 * (16 * 906 + 1640). Adam adds 2 * 6560. */
    hs_estimate e = memory_of("data", 4, 0, 64, 0);
    check_close(e.memory.weights_bytes, 6560, "data weights");
    check_close(e.memory.activations_bytes, 115968, "data activations");
    check_close(e.memory_per_gpu_bytes, 129088, "data total");
    e = memory_of("data", 4, 0, 64, 2);
    check_close(e.memory.optimizer_state_bytes, 13120, "adam");
    check_close(e.memory_per_gpu_bytes, 129088 + 13120, "data + adam");
    /* Filter on 2: a GPU holds half of L0 and L2 (180) and all of L3 (1280) = 1460 weights;
     * momentum keeps one more value per weight. */
    e = memory_of("filter", 2, 0, 8, 1);
    check_close(e.memory.weights_bytes, 4 * 1460, "filter weights");
    check_close(e.memory.optimizer_state_bytes, 4 * 1460, "filter momentum");
    check_close(e.memory.activations_bytes, 2 * 4 * 8 * 906, "filter activations");
    /* Spatial on 2 (test_analytic's 46528 B): the split layers' activations are halved. */
    e = memory_of("spatial", 2, 0, 8, 0);
    check_close(e.memory_per_gpu_bytes, 46528, "spatial total");
    check_close(e.memory.activations_bytes, 46528 - 2 * 6560, "spatial activations");
    /* Pipeline on 2 (test_analytic's 45952 B): stage 1 holds L2 and L3, 1568 weights. */
    e = memory_of("pipeline", 2, 2, 8, 0);
    check_close(e.memory_per_gpu_bytes, 45952, "pipeline total");
    check_close(e.memory.weights_bytes, 4 * 1568, "pipeline stage weights");
    memory_of("data+filter", 4, 0, 8, 2);
    memory_of("data+spatial", 4, 0, 8, 1);
}

/* The workload XML's optimizer attribute: the three names, and a message naming the line of
 * anything else (the DTD's enumeration). */
static void test_optimizer_attribute(void **state)
{
    (void)state;
    const char *names[] = {"sgd", "momentum", "adam", NULL};
    const int states[] = {0, 1, 2, 0};
    char path[512], err[HS_ERR_LEN];
    snprintf(path, sizeof path, "%s/test_trace_optimizer.xml", HS_TEST_TMP);
    for (int i = 0; i < 5; i++) {
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fprintf(f, "<?xml version=\"1.0\"?>\n<workload name=\"opt\">\n"
                   "<dataset name=\"d\" samples=\"100\" sample=\"3x8x8\"/>\n"
                   "<calibration device=\"V100-16GB\" sample_time_s=\"0.001\"");
        if (i < 3)
            fprintf(f, " optimizer=\"%s\"", names[i]);
        else if (i == 4)
            fprintf(f, "\n  optimizer=\"rmsprop\"");
        fprintf(f, "/>\n<layers>\n<layer id=\"c\" type=\"conv\" x=\"3x8x8\" y=\"4x8x8\" "
                   "w=\"3x4x3x3\" padding=\"same\"/>\n</layers>\n</workload>\n");
        fclose(f);
        wl_workload wl;
        int rc = wl_load(path, &wl, err);
        if (i < 4) {
            if (rc != HS_OK)
                fail_msg("%s: %s", i < 3 ? names[i] : "(none)", err);
            assert_int_equal(wl.optimizer_states, states[i]);
            wl_free(&wl);
        } else {
            assert_int_equal(rc, HS_EINPUT);
            assert_non_null(strstr(err, "test_trace_optimizer.xml:"));
            assert_non_null(strstr(err, "rmsprop"));
        }
    }
    remove(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_breakdown_by_hand),
        cmocka_unit_test(test_breakdown_refuses_what_it_cannot_do),
        cmocka_unit_test(test_gpu_lists),
        cmocka_unit_test(test_gpu_lists_against_the_run),
        cmocka_unit_test(test_json_reader_can_fail),
        cmocka_unit_test(test_trace_of_the_hand_run),
        cmocka_unit_test(test_trace_keeps_the_listed_gpus),
        cmocka_unit_test(test_trace_file_errors),
        cmocka_unit_test(test_memory_breakdown),
        cmocka_unit_test(test_optimizer_attribute),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
