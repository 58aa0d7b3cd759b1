/* test_runtime.c: the runtime files (workloads/runtime/runtime.h): every shipped file parses
 * to the values its sources give, NCCL's allreduce choice by version, and every kind of bad
 * line is refused with its file and line. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "compute.h"
#include "footprint.h"
#include "generate.h"
#include "runtime.h"
#include "workload.h"

static rt_runtime load_ok(const char *name)
{
    char err[HS_ERR_LEN] = "";
    rt_runtime rt;
    if (rt_load(name, &rt, err) != HS_OK)
        fail_msg("rt_load %s: %s", name, err);
    return rt;
}

/* ParaDL's closed form: ring, no overlap, sendrecv halos, allreduced filter gradients. */
static void test_paradl(void **state)
{
    (void)state;
    rt_runtime rt = load_ok("paradl");
    assert_string_equal(rt.name, "paradl");
    assert_int_equal(rt.library, RT_MPI);
    assert_int_equal(rt.allreduce, CO_RING);
    assert_false(rt.overlap);
    assert_false(rt.halo_chain);
    assert_false(rt.filter_rs);
    assert_true(rt.gradient_bytes == 0);
    assert_int_equal(rt.optimizer, RT_OPT_NONE);
    assert_int_equal(rt_optimizer_states(&rt), -1);
    assert_true(rt.kernels.optimizer_kernels_per_tensor == 0);
    assert_true(rt.kernels.stream_rel == 1.0 && rt.kernels.library_rel == 1.0);
    assert_true(rt.kernels.depthwise_rel == 1.0 && rt.calibration[0] == 0);
    assert_int_equal(rt.compute, RT_COMPUTE_MEASURED); /* the closed form's measured times */
}

/* ChainerMN on ABCI: NCCL 2.3.5 has no tree, so its own choice is rings; Adam's one kernel a
 * tensor streaming 7 FP32 values a weight (w, g, m, v read; w, m, v written). */
static void test_chainermn(void **state)
{
    (void)state;
    rt_runtime rt = load_ok("chainermn");
    assert_int_equal(rt.library, RT_NCCL);
    assert_int_equal(rt.nccl_version, 20305);
    assert_int_equal(rt.allreduce, CO_RINGS);
    assert_false(rt.overlap);
    assert_true(rt.halo_chain);
    assert_true(rt.filter_rs);
    assert_int_equal(rt.optimizer, RT_OPT_ADAM);
    assert_int_equal(rt_optimizer_states(&rt), 2);
    assert_true(rt.kernels.optimizer_kernels_per_tensor == 1);
    assert_true(rt.kernels.optimizer_bytes_per_weight == 28);
    assert_true(rt.kernels.stream_rel == 0.52);
    assert_int_equal(rt.compute, RT_COMPUTE_UNSAID); /* hybridsim's default kernels */
}

/* DDP: 25 MiB buckets behind the backward, the first 1 MiB, FP32 gradients, NCCL >= 2.4
 * choosing by size;
 * Horovod: 64 MiB fusion; MLPerf's MXNet: one FP16 allreduce after the backward, its batch
 * normalisation fused with the ReLUs and adds after it. */
static void test_nccl_runtimes(void **state)
{
    (void)state;
    rt_runtime ddp = load_ok("pytorch-ddp");
    assert_int_equal(ddp.allreduce, CO_AUTO);
    assert_true(ddp.overlap);
    assert_true(ddp.bucket_bytes == 25.0 * 1024 * 1024);
    assert_true(ddp.first_bucket_bytes == 1024.0 * 1024);
    assert_true(ddp.gradient_bytes == 4);
    assert_true(ddp.kernels.optimizer_kernels_per_tensor == 5); /* SGD's four, zero_grad's */
    assert_true(ddp.kernels.optimizer_bytes_per_weight == 20);
    assert_true(ddp.kernels.depthwise_rel == 0.0244);
    assert_string_equal(ddp.calibration, "dle-throughput.tsv:83 dle-throughput.tsv:17");
    /* its DataLoader: configs.yml's 8 workers a GPU (16 on a DGX A100, said per run), each at
     * the rate calibrated on dle-throughput.tsv:17 (2,470 img/s over 16 workers) */
    assert_true(ddp.kernels.loader_workers == 8);
    assert_true(ddp.kernels.loader_samples_per_s == 2470.0 / 16);
    rt_runtime hvd = load_ok("horovod-nccl");
    assert_true(hvd.bucket_bytes == 64.0 * 1024 * 1024);
    assert_true(hvd.first_bucket_bytes == 0); /* Horovod fuses by size and cycle time */
    assert_true(hvd.cycle_time_s == 0.005);   /* v0.19 operations.cc SetCycleTimeMs(5) */
    assert_true(ddp.cycle_time_s == 0);       /* DDP's buckets launch when full */
    assert_true(hvd.gradient_bytes == 4);
    assert_true(hvd.kernels.loader_workers == 0); /* DALI's or tf.data's, not priced */
    rt_runtime mlperf = load_ok("horovod-mxnet-mlperf");
    assert_false(mlperf.overlap);
    assert_true(mlperf.bucket_bytes == 0);
    assert_true(mlperf.gradient_bytes == 2);
    assert_int_equal(mlperf.allreduce, CO_AUTO);
    assert_true(mlperf.kernels.bn_act_fused == 1); /* --fuse-bn-relu, --fuse-bn-add-relu */
    /* MXNet's aggregated SGD: 54 tensors a kernel, 20 bytes a weight (FP32 master and
     * momentum read and written, FP16 gradient read, FP16 weight written) */
    assert_true(fabs(mlperf.kernels.optimizer_kernels_per_tensor - 1.0 / 54) < 1e-4);
    assert_true(mlperf.kernels.optimizer_bytes_per_weight == 20);
    assert_true(ddp.kernels.bn_act_fused == 0 && hvd.kernels.bn_act_fused == 0);
    /* NCHW but under AMP (PyTorch's configs; TensorFlow's layout optimizer), MXNet's NHWC */
    unsigned nchw = 1u << PR_FP32 | 1u << PR_TF32;
    assert_true(ddp.kernels.nchw_precisions == nchw && hvd.kernels.nchw_precisions == nchw);
    assert_true(mlperf.kernels.nchw_precisions == 0);
    /* cuDNN's channel padding: PyTorch's cudnn.benchmark times it; TensorFlow 1's would price a
     * kernel it never runs, MXNet's configs take cuDNN's heuristics (their files say why) */
    assert_true(ddp.kernels.pads_channels == 1);
    assert_true(hvd.kernels.pads_channels == 0 && mlperf.kernels.pads_channels == 0);
}


static void test_library_choice(void **state)
{
    (void)state;
    assert_int_equal(rt_library_choice(RT_MPI, 0), CO_RING);
    assert_int_equal(rt_library_choice(RT_NCCL, 20305), CO_RINGS);
    assert_int_equal(rt_library_choice(RT_NCCL, 20399), CO_RINGS);
    assert_int_equal(rt_library_choice(RT_NCCL, 20400), CO_AUTO);
    assert_int_equal(rt_library_choice(RT_NCCL, 21104), CO_AUTO);
}

/* What a runtime sets in a strategy: the allreduce and overlap everywhere (a strategy file's
 * fused gradient allreduces too), the halo on spatial splits only, the filter backward on
 * filter splits only; a strategy file's halos and filter backward too. */
static void test_apply_strategy(void **state)
{
    (void)state;
    char err[HS_ERR_LEN] = "";
    rt_runtime paradl = load_ok("paradl"), ddp = load_ok("pytorch-ddp");
    st_strategy ds, df, d;
    assert_int_equal(st_parse("data+spatial:2x4", 8, 4, 0, &ds, err), HS_OK);
    assert_int_equal(st_parse("data+filter:2x4", 8, 4, 0, &df, err), HS_OK);
    assert_int_equal(st_parse("data", 8, 4, 0, &d, err), HS_OK);
    assert_true(ds.halo_chain && df.filter_rs); /* hybridsim's defaults */
    rt_apply_strategy(&paradl, &ds);
    rt_apply_strategy(&paradl, &df);
    assert_false(ds.halo_chain);
    assert_false(df.filter_rs);
    rt_apply_strategy(&ddp, &d);
    assert_int_equal(d.allreduce, CO_AUTO);
    assert_true(d.overlap && d.bucket_bytes == 25.0 * 1024 * 1024);
    assert_true(d.first_bucket_bytes == 1024.0 * 1024);
    assert_false(d.halo_chain); /* data has no halos: left as parsed */
    st_strategy file = {.kind = ST_LAYERWISE, .allreduce = CO_RING, .halo_chain = true,
                        .filter_rs = true};
    rt_apply_strategy(&paradl, &file);
    assert_int_equal(file.allreduce, paradl.allreduce);
    assert_false(file.halo_chain); /* a file's halos as the runtime's: ParaDL's sendrecv */
    assert_false(file.filter_rs);  /* and its gathers: ParaDL's allreduce */
    rt_runtime chainermn = load_ok("chainermn");
    rt_apply_strategy(&chainermn, &file);
    assert_true(file.halo_chain);
    rt_apply_strategy(&ddp, &file);
    assert_int_equal(file.allreduce, CO_AUTO);
    assert_true(!file.halo_chain && file.filter_rs && file.overlap);
}

/* How a runtime trains beyond the split rides on the strategy, not on the workload: MLPerf's
 * MXNet sends FP16 gradients and keeps momentum (1 value a weight) whatever the workload's own
 * optimizer (Adam here, 2); ParaDL names none, so the workload's stands; a plan written from
 * the strategy trains the same. */
static void test_training(void **state)
{
    (void)state;
    char err[HS_ERR_LEN] = "";
    rt_runtime mlperf = load_ok("horovod-mxnet-mlperf"), paradl = load_ok("paradl");
    wl_layer layer = {.name = "fc", .type = WL_FC, .w_elems = 1000, .x_elems = 10,
                      .y_elems = 100, .fw_s = 1e-3, .bw_s = 2e-3};
    wl_workload wl = {.name = "tiny", .samples = 64, .layers = &layer, .n_layers = 1,
                      .optimizer_states = 2, .x_total = 10, .y_total = 100, .w_total = 1000};
    st_strategy st;
    hs_memory mem;
    assert_int_equal(st_parse("data", 4, 4, 0, &st, err), HS_OK);
    assert_true(st_gradient_bytes(&st.train, NULL) == 4); /* fp32, none said */
    assert_int_equal(st_optimizer_states(&st.train, &wl), 2);
    rt_apply_strategy(&mlperf, &st);
    assert_true(st_gradient_bytes(&st.train, NULL) == 2);
    assert_int_equal(st_optimizer_states(&st.train, &wl), 1);
    assert_int_equal(fp_memory(&wl, NULL, &st, 64, &mem, err), HS_OK);
    assert_true(mem.optimizer_state_bytes == 1 * 4 * 1000.0);
    assert_int_equal(wl.optimizer_states, 2); /* the input as it was read */
    st_plan plan;
    assert_int_equal(st_plan_of(&wl, NULL, &st, 64, &plan, err), HS_OK);
    assert_true(plan.train.gradient_bytes == 2 && plan.train.optimizer_states == 1);
    st_plan_free(&plan);
    rt_apply_strategy(&paradl, &st);
    assert_int_equal(st_optimizer_states(&st.train, &wl), 2);
    assert_true(st_gradient_bytes(&st.train, NULL) == 4);
}

/* A minimal valid file, with `extra` appended (each line under its own source comment). */
static const char *const base_lines =
    "description = test\n"
    "# source: a\nlibrary = mpi\n"
    "# source: a\nallreduce = library\n"
    "# source: a\noverlap = off\n"
    "# source: a\ngradient_precision = storage\n"
    "# source: a\nhalo = chain\n"
    "# source: a\nfilter_backward = allreduce\n"
    "# source: a\noptimizer = sgd\n";

/* Write text to a file, parse it into rt; returns the status, the message in err. */
static int parse_into(const char *text, rt_runtime *rt, char *err)
{
    char path[512];
    snprintf(path, sizeof path, "%s/test_runtime.rt", HS_TEST_TMP);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return rt_parse_file(path, rt, err);
}

/* parse_into, the runtime not kept. */
static int parse_text(const char *text, char *err)
{
    rt_runtime rt;
    return parse_into(text, &rt, err);
}

/* The base file with `extra` added, parsed; fails the test if refused. */
static rt_runtime accepted(const char *extra)
{
    char text[4096], err[HS_ERR_LEN] = "";
    snprintf(text, sizeof text, "%s%s", base_lines, extra);
    rt_runtime rt;
    if (parse_into(text, &rt, err) != HS_OK)
        fail_msg("refused: %s: %s", extra, err);
    return rt;
}

/* The base file with `extra` added, expected to fail with a message containing `want`. */
static void refused(const char *extra, const char *want)
{
    char text[4096], err[HS_ERR_LEN] = "";
    snprintf(text, sizeof text, "%s%s", base_lines, extra);
    if (parse_text(text, err) != HS_EINPUT)
        fail_msg("accepted: %s", extra);
    if (!strstr(err, want))
        fail_msg("'%s' for %s: no '%s'", err, extra, want);
}

/* pads_unaligned_channels: on and off read into kt_runtime pads_channels; absent, off. */
static void test_pads_channels(void **state)
{
    (void)state;
    const char *values[] = {"off", "on"};
    char extra[128];
    for (int v = 0; v < 2; v++) {
        snprintf(extra, sizeof extra, "# source: a\npads_unaligned_channels = %s\n", values[v]);
        assert_int_equal(accepted(extra).kernels.pads_channels, v);
    }
}

/* broadcast_backward: one-kernel and autograd read into kt_runtime autograd_broadcast; absent,
 * one kernel. pytorch-ddp leaves it unset (its file says why), so at its calibrated
 * depthwise_efficiency. */
static void test_broadcast_backward(void **state)
{
    (void)state;
    const char *values[] = {"one-kernel", "autograd"};
    char extra[128];
    for (int v = 0; v < 2; v++) {
        snprintf(extra, sizeof extra, "# source: a\nbroadcast_backward = %s\n", values[v]);
        assert_int_equal(accepted(extra).kernels.autograd_broadcast, v);
    }
    assert_int_equal(load_ok("pytorch-ddp").kernels.autograd_broadcast, 0);
    assert_int_equal(load_ok("horovod-nccl").kernels.autograd_broadcast, 0);
    refused("# source: a\nbroadcast_backward = eager\n",
            ":17: broadcast_backward: unknown value 'eager' (known: one-kernel, autograd)");
}

/* norm_blocks: any, channel and sample-channel read into kt_runtime norm_blocks; absent, any;
 * no shipped runtime sets it (an opt-in: workloads/runtime/README.md says why). */
static void test_norm_blocks(void **state)
{
    (void)state;
    const char *values[] = {"any", "channel", "sample-channel"};
    const kt_norm_blocks want[] = {KT_NORM_ANY, KT_NORM_PER_CHANNEL, KT_NORM_PER_SAMPLE_CHANNEL};
    char extra[128];
    for (int v = 0; v < 3; v++) { /* NCHW tensors' normalisations: with nchw_precisions */
        snprintf(extra, sizeof extra, "# source: a\nnchw_precisions = fp32\n"
                 "# source: a\nnorm_blocks = %s\n", values[v]);
        assert_int_equal(accepted(extra).kernels.norm_blocks, want[v]);
    }
    assert_int_equal(accepted("").kernels.norm_blocks, KT_NORM_ANY);
    const char *shipped[] = {"pytorch-ddp", "horovod-nccl", "horovod-mxnet-mlperf", "chainermn"};
    for (int i = 0; i < 4; i++)
        assert_int_equal(load_ok(shipped[i]).kernels.norm_blocks, KT_NORM_ANY);
}

/* bn_activation_fusion: off, on (cuDNN's fused kernel) and xla (XLA's fusion) read into
 * kt_runtime bn_act_fused; absent, off; another word refused by file, line and the words. */
static void test_bn_activation_fusion(void **state)
{
    (void)state;
    const char *values[] = {"off", "on", "xla"};
    const kt_bn_fusion want[] = {KT_BN_UNFUSED, KT_BN_FUSED, KT_BN_FUSED_XLA};
    char extra[128];
    for (int v = 0; v < 3; v++) {
        snprintf(extra, sizeof extra, "# source: a\nbn_activation_fusion = %s\n", values[v]);
        assert_int_equal(accepted(extra).kernels.bn_act_fused, want[v]);
    }
    assert_int_equal(accepted("").kernels.bn_act_fused, KT_BN_UNFUSED);
    refused("# source: a\nbn_activation_fusion = grappler\n",
            ":17: bn_activation_fusion: unknown value 'grappler' (known: off, on, xla)");
}

/* first_bucket_bytes (DDP's 1 MiB first bucket): read with overlap, set in a strategy beside
 * bucket_bytes; absent, 0 (every bucket at bucket_bytes). */
static void test_first_bucket(void **state)
{
    (void)state;
    char text[4096], err[HS_ERR_LEN] = "";
    snprintf(text, sizeof text, "%s", base_lines);
    char *off = strstr(text, "overlap = off");
    assert_non_null(off);
    memcpy(off, "overlap = on ", 13); /* the same length: the lines stay in place */
    snprintf(text + strlen(text), sizeof text - strlen(text),
             "# source: a\nbucket_bytes = 25 MiB\n# source: b\nfirst_bucket_bytes = 512 KiB\n");
    rt_runtime rt;
    assert_int_equal(parse_into(text, &rt, err), HS_OK);
    assert_true(rt.first_bucket_bytes == 512.0 * 1024);
    st_strategy d;
    assert_int_equal(st_parse("data", 8, 4, 0, &d, err), HS_OK);
    rt_apply_strategy(&rt, &d);
    assert_true(d.overlap && d.bucket_bytes == 25.0 * 1024 * 1024);
    assert_true(d.first_bucket_bytes == 512.0 * 1024);
    assert_true(d.cycle_time_s == 0);
    rt_runtime hvd = load_ok("horovod-nccl");
    rt_apply_strategy(&hvd, &d); /* the cycle reaches the strategy the job runs */
    assert_true(d.cycle_time_s == 0.005);
    assert_false(d.after_backward); /* Horovod without XLA: each gradient as it is written */
}

/* gradients_ready (overlap only): backward, every bucket handed over at the backward's end,
 * reaches the strategy; kernel or absent, each as its kernels end; another word refused. */
static void test_gradients_ready(void **state)
{
    (void)state;
    char text[4096], err[HS_ERR_LEN] = "";
    const char *values[] = {"kernel", "backward"};
    for (int v = 0; v < 2; v++) {
        snprintf(text, sizeof text, "%s", base_lines);
        char *off = strstr(text, "overlap = off");
        assert_non_null(off);
        memcpy(off, "overlap = on ", 13); /* the same length: the lines stay in place */
        snprintf(text + strlen(text), sizeof text - strlen(text),
                 "# source: a\nbucket_bytes = 64 MiB\n# source: b\ngradients_ready = %s\n",
                 values[v]);
        rt_runtime rt;
        assert_int_equal(parse_into(text, &rt, err), HS_OK);
        assert_int_equal(rt.after_backward, v == 1);
        st_strategy d;
        assert_int_equal(st_parse("data", 8, 4, 0, &d, err), HS_OK);
        rt_apply_strategy(&rt, &d);
        assert_int_equal(d.after_backward, v == 1);
        if (v == 1) { /* and any other word refused by line */
            char *w = strstr(text, "= backward");
            memcpy(w, "= backwards", 11);
            assert_int_equal(parse_into(text, &rt, err), HS_EINPUT);
            assert_non_null(strstr(err, ":19: gradients_ready: unknown value 'backwards' "
                                        "(known: kernel, backward)"));
        }
    }
    refused("# source: a\ngradients_ready = backward\n", ":17: gradients_ready: overlap is off");
}

static void test_bad_files(void **state)
{
    (void)state;
    char err[HS_ERR_LEN] = "", text[4096];
    assert_int_equal(parse_text(base_lines, err), HS_OK);
    refused("# source: a\nbucket_bytes = 1 MiB\n", "overlap is off");
    refused("# source: a\nfirst_bucket_bytes = 1 MiB\n", "first_bucket_bytes: overlap is off");
    refused("# source: a\npads_unaligned_channels = yes\n",
            ":17: pads_unaligned_channels: unknown value 'yes' (known: off, on)");
    refused("# source: a\ncycle_time_s = 0.005\n", ":17: cycle_time_s: overlap is off");
    refused("# source: a\nnorm_blocks = plane\n",
            ":17: norm_blocks: unknown value 'plane' (known: any, channel, sample-channel)");
    refused("# source: a\nnorm_blocks = channel\n", ":17: norm_blocks: no nchw_precisions");
    refused("overlap2 = on\n", "test_runtime.rt:16: unknown key 'overlap2'");
    refused("# source: a\nhalo = sendrecv\n", ":17: halo given twice (first on line 11)");
    refused("host_call_s = 1e-6\n", ":16: host_call_s has no '# source:' comment");
    refused("# source: a\nhost_call_s = fast\n", ":17: host_call_s: 'fast' is not a number");
    refused("# source: a\nhost_call_s = -1\n", "out of range");
    refused("# source: a\nelementwise_efficiency = 1.5\n", "out of range");
    refused("# source: a\nnccl_version = 2.3.5\n", "the library is mpi");
    refused("# source: a\noptimizer_kernels_per_tensor = 2 kernels\n", "not a number");
    refused("just words\n", ":16: not 'key = value'");
    refused("# source: a\ncalibration =\n", "calibration has no value");
    refused("# source: a\nloader_workers_per_gpu = 8\n",
            ":17: loader_workers_per_gpu needs loader_samples_per_s");
    refused("# source: a\nloader_samples_per_s = 150\n",
            ":17: loader_samples_per_s needs loader_workers_per_gpu");
    refused("# source: a\nloader_samples_per_s = 0\n", "out of range");
    refused("# source: a\ncompute = fast\n",
            ":17: compute: unknown value 'fast' (known: measured, model, kernels)");
    refused("# source: a\ndepthwise_limit = flops\n",
            ":17: depthwise_limit: unknown value 'flops' (known: arithmetic, bytes)");
    refused("# source: a\nnchw_precisions = fp32 fp8\n",
            ":17: nchw_precisions: unknown precision 'fp8'");
    refused("# source: a\nnchw_precisions = ,\n", ":17: nchw_precisions: ',' names no precision");
    refused("# source: a\nactivation_memory = tensorflow\n",
            ":17: activation_memory: unknown value 'tensorflow' (known: paradl, autograd)");
    /* the depthwise limit: arithmetic unless said, bytes when said (pytorch-ddp: its AMP
     * depthwise convolutions are cuDNN's channels-last kernels, 2-byte reads; chainermn: none) */
    snprintf(text, sizeof text, "%s# source: a\ndepthwise_limit = bytes\n", base_lines);
    char path[512];
    snprintf(path, sizeof path, "%s/test_runtime.rt", HS_TEST_TMP);
    rt_runtime rt;
    assert_int_equal(parse_text(text, err), HS_OK);
    assert_int_equal(rt_parse_file(path, &rt, err), HS_OK);
    assert_int_equal(rt.kernels.depthwise_by_bytes, 1);
    assert_int_equal(load_ok("pytorch-ddp").kernels.depthwise_by_bytes, 1);
    assert_int_equal(load_ok("chainermn").kernels.depthwise_by_bytes, 0);
    /* a value's word, a missing key, NCCL without its version */
    assert_int_equal(parse_text("description = t\n# source: a\nlibrary = gloo\n", err),
                     HS_EINPUT);
    assert_non_null(strstr(err, ":3: library: unknown value 'gloo' (known: mpi, nccl)"));
    assert_int_equal(parse_text("description = t\n# source: a\nlibrary = mpi\n", err), HS_EINPUT);
    assert_non_null(strstr(err, ": no allreduce"));
    snprintf(text, sizeof text, "description = t\n# source: a\nlibrary = nccl\n%s",
             strstr(base_lines, "# source: a\nallreduce"));
    assert_int_equal(parse_text(text, err), HS_EINPUT);
    assert_non_null(strstr(err, "library = nccl needs nccl_version"));
    /* the version's syntax */
    snprintf(text, sizeof text, "description = t\n# source: a\nlibrary = nccl\n"
             "# source: a\nnccl_version = 2.x\n%s", strstr(base_lines, "# source: a\nallreduce"));
    assert_int_equal(parse_text(text, err), HS_EINPUT);
    assert_non_null(strstr(err, ":5: nccl_version: '2.x' is not a version"));
}

/* The first layer of type `type` in wl (-1: none). */
static int first_of(const wl_workload *wl, wl_type type)
{
    for (int i = 0; i < wl->n_layers; i++)
        if (wl->layers[i].type == type)
            return i;
    return -1;
}

/* ResNet-50 v1.5's weight updates on an A100 under a runtime in `precision`, once in `every`
 * iterations: update[] for its first convolution, batch normalisation and fully connected
 * layer. */
static void updates(const rt_runtime *rt, pr_precision precision, int every, double update[3],
                    kt_compute *c)
{
    char err[HS_ERR_LEN] = "";
    wl_workload wl;
    if (wl_load("resnet50-v1.5", &wl, err) != HS_OK)
        fail_msg("%s", err);
    kt_options opt = kt_options_default();
    opt.anchor = 0, opt.precision = precision, opt.runtime = rt->kernels;
    opt.runtime.optimizer_every = every;
    if (kt_compute_init_with(c, &wl, "a100-80gb", &opt, err) != HS_OK)
        fail_msg("%s", err);
    wl_type types[3] = {WL_CONV, WL_BNORM, WL_FC};
    for (int t = 0; t < 3; t++) {
        int i = first_of(&wl, types[t]);
        assert_true(i >= 0);
        update[t] = kt_compute_update_s(c, &wl, i, 1);
    }
    wl_free(&wl);
}

/* optimizer_sync_precisions: in those precisions a layer's update lasts at least its parameter
 * tensors' kernel launches on the host (a weight; a fully connected layer's bias; a batch
 * normalisation's two), in the others the GPU's kernels alone; --optimizer-every N divides
 * the update. pytorch-ddp says mixed (GradScaler.step's inf check read on the host); the other
 * shipped runtimes say nothing. */
static void test_optimizer_sync(void **state)
{
    (void)state;
    refused("# source: a\noptimizer_sync_precisions = mixed\n",
            ":17: optimizer_sync_precisions needs optimizer_kernels_per_tensor and host_call_s");
    refused("# source: a\noptimizer_sync_precisions = fp8\n",
            ":17: optimizer_sync_precisions: unknown precision 'fp8'");
    rt_runtime rt = load_ok("pytorch-ddp"), hvd = load_ok("horovod-nccl");
    assert_int_equal(rt.kernels.optimizer_sync_precisions, 1u << PR_MIXED);
    assert_int_equal(hvd.kernels.optimizer_sync_precisions, 0);
    assert_true(hvd.kernels.host_call_s == 0);
    double k = rt.kernels.optimizer_kernels_per_tensor, host = rt.kernels.host_call_s;
    assert_true(k == 5 && host > 0);
    double mixed[3], fp32[3], every8[3];
    kt_compute c;
    updates(&rt, PR_FP32, 0, fp32, &c);
    updates(&rt, PR_MIXED, 8, every8, &c);
    updates(&rt, PR_MIXED, 0, mixed, &c);
    const dv_device *d = c.device.device;
    double bw = d->stream_bw_frac * d->memory_bw_Bps;
    double conv_w = 3.0 * 64 * 7 * 7, fc_w = 2048.0 * 1000;
    double gpu_conv = k * d->launch_s + rt.kernels.optimizer_bytes_per_weight * conv_w / bw;
    /* every parameter tensor launches its kernels: fc's weight and bias, a batch
     * normalisation's scale and shift (their elements are not in w_elems: launches only) */
    double gpu_fc = 2 * k * d->launch_s + rt.kernels.optimizer_bytes_per_weight * fc_w / bw;
    assert_true(fabs(fp32[0] - gpu_conv) < 1e-15 && fabs(fp32[2] - gpu_fc) < 1e-15);
    assert_true(fabs(fp32[1] - 2 * k * d->launch_s) < 1e-15);
    assert_true(fabs(mixed[0] - fmax(gpu_conv, k * host)) < 1e-15);
    assert_true(fabs(mixed[1] - 2 * k * host) < 1e-15);
    assert_true(fabs(mixed[2] - fmax(gpu_fc, 2 * k * host)) < 1e-15);
    assert_true(mixed[0] > fp32[0]); /* the host's launches are longer than the kernels */
    for (int t = 0; t < 3; t++)
        assert_true(fabs(every8[t] - mixed[t] / 8) < 1e-15);
}

/* gradient_copy_kernels_per_tensor: each parameter tensor's gradient copied that many times
 * (a launch, and the gradient read and written once a copy) when it is allreduced across
 * replicas; pytorch-ddp says 2 (DDP's copy into its bucket and back), the others nothing.
 * buffer_copy_kernels_per_norm likewise (3, DDP's broadcast buffers). */
static void test_grad_copies(void **state)
{
    (void)state;
    refused("# source: a\ngradient_copy_kernels_per_tensor = -1\n",
            ":17: gradient_copy_kernels_per_tensor");
    refused("# source: a\nbuffer_copy_kernels_per_norm = x\n", ":17: buffer_copy_kernels_per_norm");
    rt_runtime ddp = load_ok("pytorch-ddp"), tf = load_ok("horovod-nccl");
    assert_true(ddp.kernels.grad_copy_kernels_per_tensor == 2);
    assert_true(tf.kernels.grad_copy_kernels_per_tensor == 0);
    char err[HS_ERR_LEN] = "";
    wl_workload wl;
    if (wl_load("resnet50-v1.5", &wl, err) != HS_OK)
        fail_msg("%s", err);
    kt_options opt = kt_options_default();
    opt.anchor = 0, opt.precision = PR_MIXED, opt.runtime = ddp.kernels;
    kt_compute c;
    if (kt_compute_init_with(&c, &wl, "a100-80gb", &opt, err) != HS_OK)
        fail_msg("%s", err);
    const dv_device *d = c.device.device;
    double bw = d->stream_bw_frac * d->memory_bw_Bps;
    int conv = first_of(&wl, WL_CONV), bn = first_of(&wl, WL_BNORM), fc = first_of(&wl, WL_FC);
    double conv_w = 3.0 * 64 * 7 * 7, fc_w = 2048.0 * 1000;
    /* FP32 gradients (4 bytes), a convolution's one tensor, a fully connected layer's two */
    assert_true(fabs(kt_compute_grad_copy_s(&c, &wl, conv, 1, 4) -
                     2 * (d->launch_s + 2 * 4 * conv_w / bw)) < 1e-15);
    assert_true(fabs(kt_compute_grad_copy_s(&c, &wl, fc, 1, 4) -
                     2 * (2 * d->launch_s + 2 * 4 * fc_w / bw)) < 1e-15);
    assert_true(fabs(kt_compute_grad_copy_s(&c, &wl, bn, 1, 4) - 2 * 2 * d->launch_s) < 1e-15);
    /* a GPU holding a quarter of the weights copies a quarter of the bytes */
    assert_true(fabs(kt_compute_grad_copy_s(&c, &wl, fc, 4, 4) -
                     2 * (2 * d->launch_s + 2 * 4 * fc_w / 4 / bw)) < 1e-15);
    int relu = first_of(&wl, WL_RELU);
    assert_true(kt_compute_grad_copy_s(&c, &wl, relu, 1, 4) == 0);
    /* buffer_copy_kernels_per_norm: a batch normalisation's three buffers copied back from
     * their broadcast, a launch each; nothing for a layer without buffers */
    assert_true(ddp.kernels.norm_buffer_kernels == 3 && tf.kernels.norm_buffer_kernels == 0);
    assert_true(fabs(kt_compute_buffer_sync_s(&c, &wl, bn) - 3 * d->launch_s) < 1e-18);
    assert_true(kt_compute_buffer_sync_s(&c, &wl, conv) == 0);
    opt.runtime = tf.kernels;
    kt_compute none;
    if (kt_compute_init_with(&none, &wl, "a100-80gb", &opt, err) != HS_OK)
        fail_msg("%s", err);
    assert_true(kt_compute_grad_copy_s(&none, &wl, fc, 1, 4) == 0);
    assert_true(kt_compute_buffer_sync_s(&none, &wl, bn) == 0);
    wl_free(&wl);
}

/* A runtime file is read as every text input (hs_text.h): a NUL byte and a directory are
 * refused naming the file, never read as a short line or an empty file. */
static void test_not_text(void **state)
{
    (void)state;
    char path[512], err[HS_ERR_LEN] = "";
    rt_runtime rt;
    snprintf(path, sizeof path, "%s/test_runtime_nul.rt", HS_TEST_TMP);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fwrite("description = t\0x\n", 1, sizeof "description = t\0x\n" - 1, f);
    fclose(f);
    assert_int_equal(rt_parse_file(path, &rt, err), HS_EINPUT);
    assert_non_null(strstr(err, "test_runtime_nul.rt:1: a NUL byte"));
    assert_int_equal(rt_parse_file(HS_TEST_TMP, &rt, err), HS_EINPUT);
    assert_non_null(strstr(err, ": read error"));
}

static void test_unknown_name(void **state)
{
    (void)state;
    char err[HS_ERR_LEN] = "";
    rt_runtime rt;
    assert_int_equal(rt_load("tensorflow9", &rt, err), HS_EINPUT);
    assert_non_null(strstr(err, "--runtime: unknown runtime 'tensorflow9'"));
    assert_non_null(strstr(err, "chainermn"));
    assert_int_equal(rt_load("", &rt, err), HS_EINPUT);
    assert_int_equal(rt_load("/nonexistent/x.rt", &rt, err), HS_EINPUT);
    assert_non_null(strstr(err, "/nonexistent/x.rt: cannot read"));
}

/* The list names every shipped runtime with its description. */
static void test_list(void **state)
{
    (void)state;
    char buf[8192] = "", err[HS_ERR_LEN] = "";
    FILE *f = fmemopen(buf, sizeof buf, "w");
    assert_non_null(f);
    assert_int_equal(rt_list(f, err), HS_OK);
    fclose(f);
    const char *names[] = {"chainermn", "horovod-mxnet-mlperf", "horovod-nccl", "paradl",
                           "pytorch-ddp"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strstr(buf, names[i]))
            fail_msg("%s not in the list:\n%s", names[i], buf);
    assert_non_null(strstr(buf, "ParaDL's closed form"));
}

/* grouped_convolution: per-group and packed read into kt_runtime packs_groups; absent,
 * per-group; no shipped runtime sets it (an opt-in: workloads/runtime/README.md says why). */
static void test_grouped_convolution(void **state)
{
    (void)state;
    const char *values[] = {"per-group", "packed"};
    char extra[128];
    for (int v = 0; v < 2; v++) {
        snprintf(extra, sizeof extra, "# source: a\ngrouped_convolution = %s\n", values[v]);
        assert_int_equal(accepted(extra).kernels.packs_groups, v);
    }
    assert_int_equal(accepted("").kernels.packs_groups, 0);
    const char *shipped[] = {"pytorch-ddp", "horovod-nccl", "horovod-mxnet-mlperf", "chainermn"};
    for (int i = 0; i < 4; i++)
        assert_int_equal(load_ok(shipped[i]).kernels.packs_groups, 0);
    refused("# source: a\ngrouped_convolution = tiled\n",
            ":17: grouped_convolution: unknown value 'tiled' (known: per-group, packed)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_paradl),        cmocka_unit_test(test_chainermn),
        cmocka_unit_test(test_nccl_runtimes), cmocka_unit_test(test_library_choice),
        cmocka_unit_test(test_bad_files),     cmocka_unit_test(test_unknown_name),
        cmocka_unit_test(test_list),          cmocka_unit_test(test_apply_strategy),
        cmocka_unit_test(test_training),      cmocka_unit_test(test_optimizer_sync),
        cmocka_unit_test(test_not_text),      cmocka_unit_test(test_grad_copies),
        cmocka_unit_test(test_first_bucket), cmocka_unit_test(test_pads_channels),
        cmocka_unit_test(test_broadcast_backward),
        cmocka_unit_test(test_norm_blocks),
        cmocka_unit_test(test_grouped_convolution),
        cmocka_unit_test(test_bn_activation_fusion),
        cmocka_unit_test(test_gradients_ready),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
