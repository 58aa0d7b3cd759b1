/* test_runtime.c: the runtime files (workloads/runtime/runtime.h): every shipped file parses
 * to the values its sources give, NCCL's allreduce choice by version, what a runtime sets in a
 * strategy, and every kind of bad line is refused with its file and line. The fidelity keys'
 * own tests, a key each, are in test_runtime_keys.c. */
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
#include "runtime_helpers.h"
#include "workload.h"

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
    assert_true(ddp.kernels.depthwise_rel == 0.0277); /* with broadcast_backward = autograd */
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
    rt_runtime rt;
    assert_int_equal(parse_into(text, &rt, err), HS_OK);
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_paradl),        cmocka_unit_test(test_chainermn),
        cmocka_unit_test(test_nccl_runtimes), cmocka_unit_test(test_library_choice),
        cmocka_unit_test(test_bad_files),     cmocka_unit_test(test_unknown_name),
        cmocka_unit_test(test_list),          cmocka_unit_test(test_apply_strategy),
        cmocka_unit_test(test_training),      cmocka_unit_test(test_not_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
