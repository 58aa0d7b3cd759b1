/* test_expand.c: the strategy expansion writes the task lists the model describes.
 *
 * A hand-built 4-layer network (conv, relu, conv, fc) is expanded under every strategy and the
 * lists are checked: task counts, kernel seconds per rank against the compute ParaDL charges,
 * the bytes of every collective and message, group membership, sends matched by receives in
 * the same order, and `after` pointing backwards to the other stream. ResNet-50 is expanded at
 * 1024 ranks to see what the graph costs in memory. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <math.h>
#include <string.h>

#include <cmocka.h>

#include "analytic.h"
#include "expand.h"
#include "generate.h"

/* Equal to rounding: 1e-12 absolute or 1e-9 relative (cmocka's float assert is single precision). */
#define assert_close(a, b) assert_close_at((a), (b), __FILE__, __LINE__)
#include "expand_helpers.h"

/* ---------------------------------------------------------------- strategies */

static void test_serial(void **state)
{
    (void)state;
    wl_workload wl = tiny();
    tg_graph g = expand_ok(&wl, strat(ST_SERIAL, 1, 1, 1, 1), 8, false);
    const tg_rank *r = &g.ranks[0];
    /* 4 forward, 4 input-gradient, 3 weight-gradient (relu has none), 3 updates */
    assert_int_equal(r->n_tasks, 14);
    assert_int_equal(count(r, TG_EXEC, TG_FORWARD), 4);
    assert_int_equal(count(r, TG_EXEC, TG_BACKWARD_INPUT), 4);
    assert_int_equal(count(r, TG_EXEC, TG_BACKWARD_WEIGHT), 3);
    assert_int_equal(count(r, TG_EXEC, TG_UPDATE), 3);
    assert_close(exec_s(r), 8 * sample_s(&wl, 1) + update_s(&wl, 1));
    assert_int_equal(g.n_groups, 0);
    /* order: forward 0..3, then backward 3..0 (dx before dW), then updates */
    assert_int_equal(r->tasks[0].layer, 0);
    assert_int_equal(r->tasks[3].layer, 3);
    assert_int_equal(r->tasks[4].layer, 3);
    assert_int_equal(r->tasks[4].phase, TG_BACKWARD_INPUT);
    assert_int_equal(r->tasks[5].phase, TG_BACKWARD_WEIGHT);
    assert_close(r->tasks[4].amount, 8 * 1e-3 / 2);
    assert_int_equal(r->tasks[8].layer, 1); /* relu: one backward kernel with all of bw_s */
    assert_close(r->tasks[8].amount, 8 * 1e-4);
    assert_int_equal(r->tasks[9].layer, 0);
    tg_free(&g);
}

static void test_data(void **state)
{
    (void)state;
    wl_workload wl = tiny();
    const int p = 4;
    tg_graph g = expand_ok(&wl, strat(ST_DATA, p, p, 1, 1), 16, false);
    assert_int_equal(g.n_groups, 1);
    assert_int_equal(g.groups[0].n, p);
    for (int r = 0; r < p; r++) {
        const tg_rank *rk = &g.ranks[r];
        assert_int_equal(g.groups[0].ranks[r], r);
        assert_int_equal(rk->n_tasks, 15);
        assert_close(exec_s(rk), 16.0 / p * sample_s(&wl, 1) + update_s(&wl, 1));
        int ar = nth(rk, TG_ALLREDUCE, 0);
        assert_int_equal(count(rk, TG_ALLREDUCE, TG_GRADIENT), 1);
        assert_close(rk->tasks[ar].amount, wl.w_total * 4.0);
        /* after the last backward kernel (layer 0's weight gradient), before the updates */
        assert_int_equal(rk->tasks[ar].after, ar - 1);
        assert_int_equal(rk->tasks[ar - 1].phase, TG_BACKWARD_WEIGHT);
        assert_int_equal(rk->tasks[ar - 1].layer, 0);
        assert_int_equal(rk->tasks[ar + 1].phase, TG_UPDATE);
        assert_int_equal(rk->tasks[ar + 1].after, ar);
    }
    tg_free(&g);
}

static void test_filter(void **state)
{
    (void)state;
    wl_workload wl = tiny();
    const int p = 2, B = 8;
    tg_graph g = expand_ok(&wl, strat(ST_FILTER, p, 1, p, 1), B, false);
    assert_int_equal(g.n_groups, 1);
    for (int r = 0; r < p; r++) {
        const tg_rank *rk = &g.ranks[r];
        assert_close(exec_s(rk), B * sample_s(&wl, p) + update_s(&wl, p));
        /* the split layers but the last (here the two convolutions) exchange their output:
         * gathered after the forward, its gradient reduced before the layer's backward */
        assert_int_equal(count(rk, TG_ALLGATHER, TG_FORWARD), 2);
        assert_int_equal(count(rk, TG_ALLREDUCE, TG_BACKWARD_INPUT), 2);
        assert_int_equal(count(rk, TG_ALLREDUCE, TG_GRADIENT), 0);
        double fw = 0, bw = 0;
        for (int i = 0; i < rk->n_tasks; i++) {
            const tg_task *t = &rk->tasks[i];
            if (t->op == TG_EXEC)
                continue;
            assert_true(t->layer == 0 || t->layer == 2);
            if (t->op == TG_ALLGATHER) {
                assert_close(t->amount, B * wl.layers[t->layer].y_elems * 4.0 / p);
                /* right after the layer's forward; the next forward waits for it */
                assert_int_equal(rk->tasks[i - 1].phase, TG_FORWARD);
                assert_int_equal(rk->tasks[i - 1].layer, t->layer);
                assert_int_equal(rk->tasks[i + 1].after, i);
                fw += t->amount;
            } else {
                assert_int_equal(t->op, TG_ALLREDUCE);
                assert_close(t->amount, B * wl.layers[t->layer].y_elems * 4.0);
                /* after the backward of the layer it feeds, before its own */
                assert_int_equal(rk->tasks[i - 1].layer, t->layer + 1);
                assert_int_equal(rk->tasks[i + 1].layer, t->layer);
                assert_int_equal(rk->tasks[i + 1].phase, TG_BACKWARD_INPUT);
                bw += t->amount;
            }
        }
        /* a ring allgather moves (p-1) contributions, a ring allreduce 2(p-1) shares of 1/p:
         * together the model's 3(p-1) * sum B|y_l| delta / p over the exchanged layers */
        double y = wl.layers[0].y_elems + wl.layers[2].y_elems;
        assert_close((p - 1) * fw + 2.0 * (p - 1) * bw / p, 3.0 * (p - 1) * B * y * 4.0 / p);
    }
    tg_free(&g);

    /* the last layer never exchanges, split or not; unsplit layers never do */
    tiny_layers[3].split_mask = WL_SPLIT_ALL;
    tiny_layers[2].split_mask = 0;
    g = expand_ok(&wl, strat(ST_FILTER, p, 1, p, 1), B, false);
    assert_int_equal(count(&g.ranks[0], TG_ALLGATHER, -1), 1);
    assert_int_equal(count(&g.ranks[0], TG_ALLREDUCE, -1), 1);
    tg_free(&g);
}

static void test_channel(void **state)
{
    (void)state;
    wl_workload wl = tiny();
    const int p = 2, B = 4;
    tg_graph g = expand_ok(&wl, strat(ST_CHANNEL, p, 1, p, 1), B, false);
    const tg_rank *rk = &g.ranks[1];
    assert_close(exec_s(rk), B * sample_s(&wl, p) + update_s(&wl, p));
    assert_int_equal(count(rk, TG_ALLREDUCE, TG_FORWARD), 2);
    assert_int_equal(count(rk, TG_ALLGATHER, TG_BACKWARD_INPUT), 2);
    int ar = nth(rk, TG_ALLREDUCE, 0), ag = nth(rk, TG_ALLGATHER, 0);
    assert_int_equal(rk->tasks[ar].layer, 0);
    assert_close(rk->tasks[ar].amount, B * wl.layers[0].y_elems * 4.0);
    assert_int_equal(rk->tasks[ag].layer, 2); /* the first backward collective: dL/dy of conv 2 */
    assert_close(rk->tasks[ag].amount, B * wl.layers[2].y_elems * 4.0 / p);
    tg_free(&g);
}

/* The point-to-point tasks of a rank (halos, pipeline messages) as a string: r receive,
 * s send, h shift. */
static void p2p_order(const tg_rank *rk, char *out, int cap)
{
    int n = 0;
    for (int i = 0; i < rk->n_tasks && n < cap - 1; i++) {
        tg_op op = (tg_op)rk->tasks[i].op;
        if (op == TG_SEND || op == TG_RECV || op == TG_SHIFT)
            out[n++] = op == TG_SEND ? 's' : op == TG_RECV ? 'r' : 'h';
    }
    out[n] = 0;
}

static int count_p2p(const tg_rank *rk, int phase)
{
    return count(rk, TG_SEND, phase) + count(rk, TG_RECV, phase) + count(rk, TG_SHIFT, phase);
}

static void test_spatial(void **state)
{
    (void)state;
    wl_workload wl = tiny();
    const int p = 3, B = 6;
    tg_graph g = expand_ok(&wl, strat(ST_SPATIAL, p, 1, p, 1), B, false);
    /* the group of all ranks, and rank 1's two shift pairs {2, 0} (up) and {0, 2} (down) */
    assert_int_equal(g.n_groups, 3);
    /* a halo is two shifts: the upper face up, then the lower face down; the end ranks have
     * one neighbour, so one side of each shift is missing */
    const char *expect_order[3] = {"srsrsrsr", "hhhhhhhh", "rsrsrsrs"};
    for (int r = 0; r < p; r++) {
        const tg_rank *rk = &g.ranks[r];
        char order[32];
        p2p_order(rk, order, sizeof order);
        assert_string_equal(order, expect_order[r]);
        assert_close(exec_s(rk), B * sample_s(&wl, p) + update_s(&wl, 1));
        /* the two 3x3 convolutions swap one column of x forward, of dL/dx backward */
        assert_int_equal(count_p2p(rk, TG_FORWARD), 4);
        assert_int_equal(count_p2p(rk, TG_BACKWARD_INPUT), 4);
        for (int i = 0; i < rk->n_tasks; i++) {
            const tg_task *t = &rk->tasks[i];
            if (t->op != TG_SEND && t->op != TG_RECV && t->op != TG_SHIFT)
                continue;
            /* through host memory (no GPUDirect), as the model charges it */
            assert_int_equal(t->flags, TG_FLAG_STAGED);
            /* (K-1)/2 x C x H of the layer's input (backward: sized like it) */
            double c = t->layer == 0 ? 3 : 4;
            assert_close(t->amount, B * 1 * c * 8 * 4.0);
        }
        /* the forward halo of conv 1 comes first, and its kernel waits for the second shift */
        assert_int_equal(rk->tasks[0].layer, 0);
        assert_int_equal(rk->tasks[1].layer, 0);
        assert_int_equal(rk->tasks[2].op, TG_EXEC);
        assert_int_equal(rk->tasks[2].after, 1);
        /* backward of conv 2: after its kernels */
        int first_bw = -1;
        for (int i = 0; i < rk->n_tasks && first_bw < 0; i++)
            if (rk->tasks[i].op != TG_EXEC && rk->tasks[i].phase == TG_BACKWARD_INPUT &&
                rk->tasks[i].op != TG_REDUCE_SCATTER)
                first_bw = i;
        assert_int_equal(rk->tasks[first_bw].layer, 2);
        assert_int_equal(rk->tasks[first_bw - 1].phase, TG_BACKWARD_WEIGHT);
        /* the split point (conv 2, the last split layer): gathered forward, scattered back,
         * staged like the halos */
        const tg_task *ag = &rk->tasks[nth(rk, TG_ALLGATHER, 0)];
        assert_int_equal(ag->layer, 2);
        assert_close(ag->amount, B * wl.layers[2].y_elems * 4.0 / p);
        assert_int_equal(ag->flags, TG_FLAG_STAGED);
        const tg_task *rs = &rk->tasks[nth(rk, TG_REDUCE_SCATTER, 0)];
        assert_int_equal(rs->layer, 2);
        assert_close(rs->amount, B * wl.layers[2].y_elems * 4.0);
        assert_int_equal(rs->flags, TG_FLAG_STAGED);
        assert_int_equal(count(rk, TG_ALLGATHER, -1) + count(rk, TG_REDUCE_SCATTER, -1), 2);
        int ar = nth(rk, TG_ALLREDUCE, 0);
        assert_int_equal(count(rk, TG_ALLREDUCE, -1), 1);
        assert_int_equal(rk->tasks[ar].phase, TG_GRADIENT);
        assert_close(rk->tasks[ar].amount, wl.w_total * 4.0);
        assert_int_equal(rk->tasks[ar].flags, 0); /* NCCL over NVLink */
        assert_int_equal(g.groups[tg_peer(&g, r, &rk->tasks[ar])].n, p);
    }
    /* rank 1 shifts up (send to 2, receive from 0), then down */
    const tg_rank *mid = &g.ranks[1];
    const tg_group *up = &g.groups[tg_peer(&g, 1, &mid->tasks[nth(mid, TG_SHIFT, 0)])];
    const tg_group *down = &g.groups[tg_peer(&g, 1, &mid->tasks[nth(mid, TG_SHIFT, 1)])];
    assert_true(up->ranks[0] == 2 && up->ranks[1] == 0);
    assert_true(down->ranks[0] == 0 && down->ranks[1] == 2);
    assert_int_equal(tg_peer(&g, 0, &g.ranks[0].tasks[nth(&g.ranks[0], TG_SEND, 0)]), 1);
    tg_free(&g);

    /* a 2-wide window swaps no column but still sends its (empty) messages */
    tiny_layers[2].w_kernel[0] = 2;
    g = expand_ok(&wl, strat(ST_SPATIAL, p, 1, p, 1), B, false);
    assert_int_equal(count(&g.ranks[1], TG_SHIFT, -1), 8);
    assert_close(g.ranks[1].tasks[nth(&g.ranks[1], TG_SHIFT, 2)].amount, 0);
    tg_free(&g);
}

static void test_pipeline(void **state)
{
    (void)state;
    wl_workload wl = tiny();
    const int p = 2, S = 4, B = 8;
    tg_graph g = expand_ok(&wl, strat(ST_PIPELINE, p, 1, p, S), B, false);
    assert_int_equal(g.n_groups, 0);
    /* balanced by fw+bw per sample: 3e-3 + 2e-4 | 6e-3 + 1.5e-3 (bottleneck 7.5e-3, against
     * 7.7e-3 cutting after the first layer and 9.2e-3 before the last) */
    int stage_of[4] = {0, 0, 1, 1};
    for (int s = 0; s < p; s++) {
        const tg_rank *rk = &g.ranks[s];
        double expect = 0;
        int layers = 0, weights = 0;
        for (int l = 0; l < 4; l++)
            if (stage_of[l] == s) {
                expect += B * (wl.layers[l].fw_s + wl.layers[l].bw_s) + wl.layers[l].wu_s;
                layers++, weights += wl.layers[l].w_elems > 0;
            }
        assert_close(exec_s(rk), expect);
        assert_int_equal(count(rk, TG_EXEC, TG_FORWARD), S * layers);
        assert_int_equal(count(rk, TG_EXEC, TG_BACKWARD_WEIGHT), S * weights);
        assert_int_equal(count(rk, TG_SEND, -1), S);
        assert_int_equal(count(rk, TG_RECV, -1), S);
    }
    /* stage 0 sends y_1 (the relu's output) of a micro-batch forward, receives its gradient */
    const tg_rank *r0 = &g.ranks[0];
    int send = nth(r0, TG_SEND, 0);
    assert_int_equal(r0->tasks[send].phase, TG_FORWARD);
    assert_close(r0->tasks[send].amount, B / S * wl.layers[1].y_elems * 4.0);
    assert_int_equal(r0->tasks[nth(r0, TG_RECV, 0)].phase, TG_BACKWARD_INPUT);
    /* blocking sends: stage 0's second forward waits for the first send */
    assert_int_equal(r0->tasks[send + 1].after, send);
    tg_free(&g);

    /* a middle stage (of 3, S = 3) sends micro-batch m while it receives m+1, one shift each,
     * forward ({2, 0}) and backward ({0, 2}); the sizes are its boundaries' */
    g = expand_ok(&wl, strat(ST_PIPELINE, 3, 1, 3, 3), 6, false);
    const tg_rank *mid = &g.ranks[1];
    char order[32];
    p2p_order(mid, order, sizeof order);
    assert_string_equal(order, "rhhsrhhs");
    int fw = nth(mid, TG_SHIFT, 0), bw = nth(mid, TG_SHIFT, 2);
    assert_int_equal(g.groups[mid->tasks[fw].peer].ranks[0], 2);
    assert_int_equal(g.groups[mid->tasks[fw].peer].ranks[1], 0);
    assert_int_equal(g.groups[mid->tasks[bw].peer].ranks[0], 0);
    assert_int_equal(g.groups[mid->tasks[bw].peer].ranks[1], 2);
    assert_int_equal(mid->tasks[fw].phase, TG_FORWARD);
    assert_int_equal(mid->tasks[bw].phase, TG_BACKWARD_INPUT);
    assert_int_equal(mid->tasks[fw].flags, 0);
    /* 3 stages of 4 layers: {conv}, {relu, conv}, {fc} or as balanced; whatever the cut, the
     * forward shift carries the stage's output, the backward the gradient of its input */
    int lo = mid->tasks[nth(mid, TG_RECV, 0)].layer, hi = mid->tasks[fw].layer;
    assert_close(mid->tasks[fw].amount, 2.0 * wl.layers[hi].y_elems * 4.0);
    assert_close(mid->tasks[bw].amount, 2.0 * wl.layers[lo - 1].y_elems * 4.0);
    tg_free(&g);
}

static void test_data_filter(void **state)
{
    (void)state;
    wl_workload wl = tiny();
    const int p1 = 2, p2 = 2, B = 8;
    tg_graph g = expand_ok(&wl, strat(ST_DATA_FILTER, 4, p1, p2, 1), B, false);
    /* 2 filter groups {0,1} {2,3}, 2 gradient rings {0,2} {1,3} */
    assert_int_equal(g.n_groups, 4);
    for (int r = 0; r < 4; r++) {
        const tg_rank *rk = &g.ranks[r];
        assert_close(exec_s(rk), (double)B / p1 * sample_s(&wl, p2) + update_s(&wl, p2));
        const tg_task *ag = &rk->tasks[nth(rk, TG_ALLGATHER, 0)];
        const tg_group *model = &g.groups[tg_peer(&g, r, ag)];
        assert_int_equal(model->n, p2);
        assert_int_equal(model->ranks[0], r / p2 * p2);
        assert_int_equal(model->ranks[1], r / p2 * p2 + 1);
        assert_close(ag->amount, (double)B / p1 * wl.layers[0].y_elems * 4.0 / p2);
        int gi = nth(rk, TG_ALLREDUCE, 2); /* after the two input-gradient allreduces */
        assert_int_equal(rk->tasks[gi].phase, TG_GRADIENT);
        const tg_group *ring = &g.groups[tg_peer(&g, r, &rk->tasks[gi])];
        assert_int_equal(ring->n, p1);
        assert_int_equal(ring->ranks[0], r % p2);
        assert_int_equal(ring->ranks[1], p2 + r % p2);
        /* the weights a rank holds: half of each conv's filters, all of the fc */
        assert_close(rk->tasks[gi].amount, (108 / 2 + 288 / 2 + 1280) * 4.0);
    }
    tg_free(&g);
}

static void test_data_spatial(void **state)
{
    (void)state;
    wl_workload wl = tiny();
    tg_graph g = expand_ok(&wl, strat(ST_DATA_SPATIAL, 4, 2, 2, 1), 8, false);
    /* 2 spatial groups and 2 rings across; with one neighbour each, no shift pairs */
    assert_int_equal(g.n_groups, 4);
    for (int r = 0; r < 4; r++) {
        const tg_rank *rk = &g.ranks[r];
        assert_close(exec_s(rk), 4.0 * sample_s(&wl, 2) + update_s(&wl, 1));
        /* the other GPU of its pair is its only neighbour: the lower one sends up first */
        char order[32];
        p2p_order(rk, order, sizeof order);
        assert_string_equal(order, r % 2 == 0 ? "srsrsrsr" : "rsrsrsrs");
        assert_int_equal(tg_peer(&g, r, &rk->tasks[0]), r ^ 1);
        /* all weights reduced inside the pair, then across the pairs */
        const tg_task *in = &rk->tasks[nth(rk, TG_ALLREDUCE, 0)];
        const tg_task *across = &rk->tasks[nth(rk, TG_ALLREDUCE, 1)];
        assert_int_equal(in->phase, TG_GRADIENT);
        assert_int_equal(across->phase, TG_GRADIENT);
        assert_true(group_has(&g.groups[tg_peer(&g, r, in)], r ^ 1));
        assert_true(group_has(&g.groups[tg_peer(&g, r, across)], r ^ 2));
        assert_close(in->amount, wl.w_total * 4.0);
        assert_close(across->amount, wl.w_total * 4.0);
    }
    tg_free(&g);
}

/* The overlap order lets a weight-gradient kernel run while the input gradient is reduced,
 * reduces data parallelism's gradients in buckets as the backward produces them, and lets a
 * pipeline stage compute its next micro-batch while it sends the last. */
static void test_overlap_order(void **state)
{
    (void)state;
    wl_workload wl = tiny();
    tg_graph g = expand_ok(&wl, strat(ST_FILTER, 2, 1, 2, 1), 8, true);
    const tg_rank *rk = &g.ranks[0];
    int ar = nth(rk, TG_ALLREDUCE, 0); /* dL/dx of the fc: after its input-gradient kernel */
    assert_int_equal(rk->tasks[rk->tasks[ar].after].phase, TG_BACKWARD_INPUT);
    /* the fc's weight-gradient kernel is written behind the allreduce, so it runs meanwhile */
    assert_int_equal(rk->tasks[ar + 1].phase, TG_BACKWARD_WEIGHT);
    assert_true(rk->tasks[ar + 1].after != ar);
    tg_free(&g);

    /* data parallelism: one bucket (the tiny weights are far below 25 MiB) after the last
     * weight-gradient kernel, an allreduce of all the weights */
    g = expand_ok(&wl, strat(ST_DATA, 2, 2, 1, 1), 8, true);
    rk = &g.ranks[0];
    ar = nth(rk, TG_ALLREDUCE, 0);
    assert_int_equal(nth(rk, TG_ALLREDUCE, 1), -1);
    assert_int_equal(rk->tasks[rk->tasks[ar].after].phase, TG_BACKWARD_WEIGHT);
    assert_close(rk->tasks[ar].amount, wl.w_total * 4.0);
    tg_free(&g);

    g = expand_ok(&wl, strat(ST_PIPELINE, 2, 1, 2, 4), 8, true);
    rk = &g.ranks[0];
    int send = nth(rk, TG_SEND, 0);
    assert_int_equal(rk->tasks[send + 1].op, TG_EXEC);
    assert_int_equal(rk->tasks[send + 1].after, -1);
    tg_free(&g);

    /* a middle stage posts the next micro-batch's receive before sending the current one,
     * in both directions; blocking, it sends one while receiving the next (a shift) */
    for (int overlap = 0; overlap <= 1; overlap++) {
        g = expand_ok(&wl, strat(ST_PIPELINE, 3, 1, 3, 3), 6, overlap);
        char order[32];
        p2p_order(&g.ranks[1], order, sizeof order);
        assert_string_equal(order, overlap ? "rrsrssrrsrss" : "rhhsrhhs");
        tg_free(&g);
    }
}

/* Data parallelism's first bucket (PyTorch DDP's 1 MiB, ex_options.first_bucket_bytes) closes
 * at its own size, the later ones at bucket_bytes: the tiny network's gradients, in the order
 * the backward produces them, are the fc's 5120 bytes, CONV_2's 1152, CONV_1's 432. */
static void test_first_bucket(void **state)
{
    (void)state;
    wl_workload wl = tiny();
    st_strategy st = strat(ST_DATA, 2, 2, 1, 1);
    struct {
        double first, rest; /* the options' bucket sizes */
        int n;              /* the allreduces expected */
        double bytes[3];    /* and their amounts */
    } cases[] = {
        {4096, 1 << 20, 2, {5120, 1152 + 432}}, /* the fc alone, then the rest at the end */
        {6000, 1000, 2, {5120 + 1152, 432}},    /* the first bucket is the larger here */
        {0, 1000, 3, {5120, 1152, 432}},        /* no first bucket: every one at 1000 */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tg_graph g;
        char err[HS_ERR_LEN] = "";
        ex_options opt = {.overlap = true, .bucket_bytes = cases[i].rest,
                          .first_bucket_bytes = cases[i].first};
        assert_int_equal(ex_expand_opt(&wl, NULL, &st, 8, &opt, &g, err), HS_OK);
        const tg_rank *rk = &g.ranks[0];
        assert_int_equal(nth(rk, TG_ALLREDUCE, cases[i].n), -1);
        for (int k = 0; k < cases[i].n; k++) {
            int ar = nth(rk, TG_ALLREDUCE, k);
            assert_true(ar >= 0);
            assert_close(rk->tasks[ar].amount, cases[i].bytes[k]);
            /* each follows the weight-gradient kernel that filled it */
            assert_int_equal(rk->tasks[rk->tasks[ar].after].phase, TG_BACKWARD_WEIGHT);
        }
        tg_free(&g);
    }
}

/* Under a runtime with a background cycle (Horovod's, ex_options.cycle_time_s) each bucket's
 * allreduce is flagged TG_FLAG_CYCLE and the graph carries the period; without one, neither. */
static void test_cycle_flags_buckets(void **state)
{
    (void)state;
    wl_workload wl = tiny();
    st_strategy st = strat(ST_DATA, 2, 2, 1, 1);
    for (int with = 0; with < 2; with++) {
        tg_graph g;
        char err[HS_ERR_LEN] = "";
        ex_options opt = {.overlap = true, .bucket_bytes = 1000, .cycle_time_s = with ? 5e-3 : 0};
        assert_int_equal(ex_expand_opt(&wl, NULL, &st, 8, &opt, &g, err), HS_OK);
        assert_true(g.cycle_time_s == (with ? 5e-3 : 0));
        const tg_rank *rk = &g.ranks[0];
        assert_int_equal(nth(rk, TG_ALLREDUCE, 3), -1);
        for (int k = 0; k < 3; k++)
            assert_int_equal(rk->tasks[nth(rk, TG_ALLREDUCE, k)].flags & TG_FLAG_CYCLE,
                             with ? TG_FLAG_CYCLE : 0);
        tg_free(&g);
    }
}

/* A per-layer plan under the same runtime: its fused gradient allreduces launch in Horovod's
 * cycle as the built-ins' buckets do, the first after the backward flagged TG_FLAG_CYCLE (the
 * others follow it in the same cycle) and the graph carries the period; without a cycle, or in
 * the blocking order, neither. data+filter 2x2 with its replicas reduced: two fused buffers,
 * three allreduces on every rank (the replicated fc inside its group, then across; the split
 * convolutions' across). */
static void test_cycle_flags_plan(void **state)
{
    (void)state;
    wl_workload wl = tiny();
    st_strategy st = strat(ST_DATA_FILTER, 4, 2, 2, 1), from;
    st_plan plan;
    char err[HS_ERR_LEN] = "";
    assert_int_equal(st_plan_of(&wl, NULL, &st, 8, &plan, err), HS_OK);
    plan.reduce_replicas = true;
    st_from_plan(&plan, &from);
    for (int how = 0; how < 3; how++) { /* cycle and overlap, no cycle, blocking */
        tg_graph g;
        ex_options opt = {.overlap = how != 2, .cycle_time_s = how != 1 ? 5e-3 : 0};
        assert_int_equal(ex_expand_opt(&wl, NULL, &from, 8, &opt, &g, err), HS_OK);
        assert_true(g.cycle_time_s == (how == 0 ? 5e-3 : 0));
        for (int r = 0; r < 4; r++) {
            const tg_rank *rk = &g.ranks[r];
            assert_int_equal(count(rk, TG_ALLREDUCE, TG_GRADIENT), 3);
            for (int k = 0; k < 3; k++)
                assert_int_equal(rk->tasks[nth(rk, TG_ALLREDUCE, k)].flags & TG_FLAG_CYCLE,
                                 how == 0 && k == 0 ? TG_FLAG_CYCLE : 0);
        }
        tg_free(&g);
    }
    st_plan_free(&plan);
}

/* With ex_options.after_backward (TensorFlow's XLA cluster hands every gradient over at once)
 * the buckets are the same, but each allreduce waits for the backward's last kernel, the
 * task written just before the first of them; without it the first follows the fc's. */
static void test_after_backward(void **state)
{
    (void)state;
    wl_workload wl = tiny();
    st_strategy st = strat(ST_DATA, 2, 2, 1, 1);
    const double bytes[3] = {5120, 1152, 432}; /* test_first_bucket's, at 1000 a bucket */
    for (int at_end = 0; at_end < 2; at_end++) {
        tg_graph g;
        char err[HS_ERR_LEN] = "";
        ex_options opt = {.overlap = true, .bucket_bytes = 1000, .after_backward = at_end};
        assert_int_equal(ex_expand_opt(&wl, NULL, &st, 8, &opt, &g, err), HS_OK);
        const tg_rank *rk = &g.ranks[0];
        int first = nth(rk, TG_ALLREDUCE, 0), last_kernel = -1;
        for (int i = 0; i < rk->n_tasks; i++)
            if (rk->tasks[i].op == TG_EXEC && rk->tasks[i].phase != TG_UPDATE)
                last_kernel = i;
        assert_int_equal(nth(rk, TG_ALLREDUCE, 3), -1);
        for (int k = 0; k < 3; k++) {
            int ar = nth(rk, TG_ALLREDUCE, k);
            assert_close(rk->tasks[ar].amount, bytes[k]);
            if (at_end)
                assert_int_equal(rk->tasks[ar].after, last_kernel);
        }
        assert_true(at_end ? first > last_kernel : rk->tasks[first].after < last_kernel);
        tg_free(&g);
    }
}

/* With the gradients held to the backward's end and a first layer without weights but with a
 * halo (a 3x3 pool split in space), the allreduces wait for the backward's last kernel, not for
 * the halo after it. */
static void test_after_backward_halo(void **state)
{
    (void)state;
    wl_workload wl = tiny();
    layer(&tiny_layers[0], "POOL", WL_POOL, shape(4, 8, 8), shape(4, 8, 8), 3, 0, 1e-3, 2e-3, 0,
          WL_SPLIT_ALL);
    wl.w_total = 288 + 1280;
    tg_graph g;
    char err[HS_ERR_LEN] = "";
    ex_options opt = {.overlap = true, .bucket_bytes = 1000, .after_backward = true};
    st_strategy st = strat(ST_DATA_SPATIAL, 4, 2, 2, 1);
    assert_int_equal(ex_expand_opt(&wl, NULL, &st, 8, &opt, &g, err), HS_OK);
    for (int r = 0; r < g.n_ranks; r++) {
        const tg_rank *rk = &g.ranks[r];
        int last_kernel = -1;
        for (int i = 0; i < rk->n_tasks; i++)
            if (rk->tasks[i].op == TG_EXEC && rk->tasks[i].phase != TG_UPDATE)
                last_kernel = i;
        int ar = nth(rk, TG_ALLREDUCE, 0);
        assert_true(ar > last_kernel);
        assert_int_equal(rk->tasks[ar].after, last_kernel);
    }
    tg_free(&g);
}

static void test_bad_input(void **state)
{
    (void)state;
    wl_workload wl = tiny();
    char err[HS_ERR_LEN];
    tg_graph g;
    st_strategy bad[] = {
        strat(ST_DATA_FILTER, 8, 3, 2, 1), /* 3 x 2 != 8 */
        strat(ST_PIPELINE, 5, 1, 5, 1),    /* 5 stages, 4 layers */
        strat(ST_PIPELINE, 2, 1, 2, 0),    /* no micro-batch */
        strat(ST_SERIAL, 2, 1, 2, 1),      /* serial on 2 GPUs */
        strat(ST_DATA, 0, 0, 1, 1),        /* no GPU */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = 0;
        assert_int_equal(ex_expand(&wl, NULL, &bad[i], 8, &g, err), HS_EINPUT);
        assert_true(strlen(err) > 0);
        assert_int_equal(g.n_ranks, 0);
        assert_null(g.ranks);
    }
    st_strategy ok = strat(ST_DATA, 2, 2, 1, 1);
    assert_int_equal(ex_expand(&wl, NULL, &ok, 0, &g, err), HS_EINPUT);
    assert_non_null(strstr(err, "batch"));
    wl.n_layers = 0;
    assert_int_equal(ex_expand(&wl, NULL, &ok, 8, &g, err), HS_EINPUT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_serial),
        cmocka_unit_test(test_data),
        cmocka_unit_test(test_filter),
        cmocka_unit_test(test_channel),
        cmocka_unit_test(test_spatial),
        cmocka_unit_test(test_pipeline),
        cmocka_unit_test(test_data_filter),
        cmocka_unit_test(test_data_spatial),
        cmocka_unit_test(test_overlap_order),
        cmocka_unit_test(test_first_bucket),
        cmocka_unit_test(test_cycle_flags_buckets),
        cmocka_unit_test(test_cycle_flags_plan),
        cmocka_unit_test(test_after_backward),
        cmocka_unit_test(test_after_backward_halo),
        cmocka_unit_test(test_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
