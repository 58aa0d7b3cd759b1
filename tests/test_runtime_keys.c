/* test_runtime_keys.c: the runtime files' fidelity keys (workloads/runtime/README.md), one test
 * a key: each value read into kt_runtime or the strategy, the default when absent, what the
 * shipped runtimes set, another word refused by line, and, for the optimizer's and the
 * gradient copies' keys, the update and copy times the kernel-time model then gives.
 * test_runtime.c has the files' parsing, refusals, the shipped runtimes and the strategy. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "compute.h"
#include "estimate.h"
#include "runtime.h"
#include "runtime_helpers.h"
#include "workload.h"

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
 * one kernel. pytorch-ddp sets autograd (its depthwise_efficiency calibrated with it), the
 * TensorFlow runtimes leave it unset. */
static void test_broadcast_backward(void **state)
{
    (void)state;
    const char *values[] = {"one-kernel", "autograd"};
    char extra[128];
    for (int v = 0; v < 2; v++) {
        snprintf(extra, sizeof extra, "# source: a\nbroadcast_backward = %s\n", values[v]);
        assert_int_equal(accepted(extra).kernels.autograd_broadcast, v);
    }
    assert_int_equal(load_ok("pytorch-ddp").kernels.autograd_broadcast, 1);
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
 * replicas; pytorch-ddp says 2 (DDP's copy into its bucket and back), horovod-nccl 2 (Horovod
 * 0.19's copy into its fusion buffer and out), the others nothing.
 * buffer_copy_kernels_per_norm likewise (3, DDP's broadcast buffers). */
static void test_grad_copies(void **state)
{
    (void)state;
    refused("# source: a\ngradient_copy_kernels_per_tensor = -1\n",
            ":17: gradient_copy_kernels_per_tensor");
    refused("# source: a\nbuffer_copy_kernels_per_norm = x\n", ":17: buffer_copy_kernels_per_norm");
    rt_runtime ddp = load_ok("pytorch-ddp"), tf = load_ok("horovod-nccl");
    assert_true(ddp.kernels.grad_copy_kernels_per_tensor == 2);
    assert_true(tf.kernels.grad_copy_kernels_per_tensor == 2);
    assert_true(load_ok("chainermn").kernels.grad_copy_kernels_per_tensor == 0);
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
    opt.runtime = load_ok("chainermn").kernels;
    kt_compute none;
    if (kt_compute_init_with(&none, &wl, "a100-80gb", &opt, err) != HS_OK)
        fail_msg("%s", err);
    assert_true(kt_compute_grad_copy_s(&none, &wl, fc, 1, 4) == 0);
    assert_true(kt_compute_buffer_sync_s(&none, &wl, bn) == 0);
    wl_free(&wl);
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

/* loader_host_threads_per_gpu: read (pytorch-ddp's one, its spinning Python thread; absent,
 * none), refused without the loader's workers; and rt_loader_host_share, what a worker keeps of
 * its rate when a node's GPUs share its cores: all while every busy thread has a core, then
 * the cores plus 30% of each paired thread's over the busy threads, the hardware threads'
 * work shared out in time past them, all of it when the platform says no cores. */
static void test_loader_host_threads(void **state)
{
    (void)state;
    rt_runtime ddp = load_ok("pytorch-ddp");
    assert_true(ddp.loader_host_threads == 1);
    rt_runtime none = accepted("");
    assert_true(none.loader_host_threads == 0);
    refused("# source: a\nloader_host_threads_per_gpu = 1\n",
            ":17: loader_host_threads_per_gpu needs loader_workers_per_gpu");
    refused("# source: a\nloader_workers_per_gpu = 8\n# source: a\nloader_samples_per_s = 150\n"
            "# source: a\nloader_host_threads_per_gpu = -1\n", "out of range");
    /* a DGX-1 (40 cores, 80 threads), 8 GPUs of 8 workers and a thread: 72 busy, 32 paired */
    assert_true(fabs(rt_loader_host_share(&ddp, 8, 8, 40, 80) - (40 + 32 * 0.3) / 72) < 1e-12);
    assert_true(fabs(rt_loader_host_share(&ddp, 8, 8, 40, 0) - 40.0 / 72) < 1e-12); /* no SMT */
    /* 16 GPUs' 144 threads on its 80: every core paired, the rest waits its turn */
    assert_true(fabs(rt_loader_host_share(&ddp, 8, 16, 40, 80) - 40 * 1.3 / 144) < 1e-12);
    /* a DGX A100 (128 cores): one GPU's 17 threads, the calibration's, keep their rate; eight
     * GPUs' 136 pair 8 */
    assert_true(rt_loader_host_share(&ddp, 16, 1, 128, 256) == 1);
    assert_true(fabs(rt_loader_host_share(&ddp, 16, 8, 128, 256) - (128 + 8 * 0.3) / 136) <
                1e-12);
    assert_true(rt_loader_host_share(&ddp, 8, 8, 0, 0) == 1);  /* cores not said */
    assert_true(rt_loader_host_share(&none, 8, 8, 40, 80) == 1); /* no loader */
}

/* autocast_weight_casts: on reaches the strategy's training rules (rt_apply_strategy); absent,
 * off; another word refused by line. In mixed precision a convolution's casts, each way, take
 * its weights read in FP32 and written in FP16 (6 bytes a weight) at the streaming bandwidth
 * after a launch, at least host_call_s; a fully connected layer's bias a launch more; a GPU
 * holding a quarter of the weights casts a quarter; nothing for a batch normalisation, in FP32
 * or TF32, or when off. */
static void test_autocast_casts(void **state)
{
    (void)state;
    refused("# source: a\nautocast_weight_casts = yes\n",
            ":17: autocast_weight_casts: unknown value 'yes' (known: off, on)");
    assert_false(load_ok("pytorch-ddp").autocast_casts);
    rt_runtime on = accepted("# source: a\nautocast_weight_casts = on\n"
                             "# source: b\nhost_call_s = 1e-9\n");
    assert_true(on.autocast_casts);
    char err[HS_ERR_LEN] = "";
    st_strategy d;
    assert_int_equal(st_parse("data", 8, 4, 0, &d, err), HS_OK);
    assert_false(d.train.autocast_casts);
    rt_apply_strategy(&on, &d);
    assert_true(d.train.autocast_casts);
    wl_workload wl;
    if (wl_load("resnet50-v1.5", &wl, err) != HS_OK)
        fail_msg("%s", err);
    int conv = first_of(&wl, WL_CONV), bn = first_of(&wl, WL_BNORM), fc = first_of(&wl, WL_FC);
    double conv_w = 3.0 * 64 * 7 * 7, fc_w = 2048.0 * 1000;
    kt_options opt = kt_options_default();
    opt.anchor = 0, opt.precision = PR_MIXED, opt.runtime = on.kernels;
    kt_compute c;
    if (kt_compute_init_with(&c, &wl, "a100-80gb", &opt, err) != HS_OK)
        fail_msg("%s", err);
    const dv_device *dv = c.device.device;
    double bw = dv->stream_bw_frac * dv->memory_bw_Bps;
    assert_true(fabs(st_autocast_cast_s(&d.train, &c, &wl, conv, 1) -
                     (dv->launch_s + 6 * conv_w / bw)) < 1e-15);
    assert_true(fabs(st_autocast_cast_s(&d.train, &c, &wl, fc, 1) -
                     (2 * dv->launch_s + 6 * fc_w / bw)) < 1e-15);
    assert_true(fabs(st_autocast_cast_s(&d.train, &c, &wl, fc, 4) -
                     (2 * dv->launch_s + 6 * fc_w / 4 / bw)) < 1e-15);
    assert_true(st_autocast_cast_s(&d.train, &c, &wl, bn, 1) == 0);
    c.device.runtime.host_call_s = 1; /* the host's launch bounds each kernel */
    assert_true(st_autocast_cast_s(&d.train, &c, &wl, fc, 1) == 2);
    const pr_precision fp32_weights[] = {PR_FP32, PR_TF32};
    for (int p = 0; p < 2; p++) {
        opt.precision = fp32_weights[p];
        if (kt_compute_init_with(&c, &wl, "a100-80gb", &opt, err) != HS_OK)
            fail_msg("%s", err);
        assert_true(st_autocast_cast_s(&d.train, &c, &wl, conv, 1) == 0);
    }
    d.train.autocast_casts = false;
    assert_true(st_autocast_cast_s(&d.train, &c, &wl, conv, 1) == 0);
    wl_free(&wl);
}

/* step_host_s: read into kt_runtime (absent: none; pytorch-ddp sets none, each nnU-Net row's
 * runtime its progress bar's and Lightning's 2.349 ms), refused at 0, below and past a
 * second; kt_compute_step_host_s gives it (none without a compute model), and
 * hs_times_host_step adds it to an iteration's wall time alone. */
static void test_step_host(void **state)
{
    (void)state;
    assert_true(accepted("# source: a\nstep_host_s = 2.5e-3\n").kernels.step_host_s == 2.5e-3);
    assert_true(accepted("").kernels.step_host_s == 0);
    assert_true(load_ok("pytorch-ddp").kernels.step_host_s == 0);
    const char *nnunet[] = {"pytorch-nnunet-2d.rt", "pytorch-nnunet-3d.rt"};
    for (int i = 0; i < 2; i++) {
        char path[1024];
        snprintf(path, sizeof path, HYBRIDSIM_SOURCE_DIR "/experiments/validation/runtime/%s",
                 nnunet[i]);
        assert_true(load_ok(path).kernels.step_host_s == 2.349e-3);
    }
    refused("# source: a\nstep_host_s = 0\n", ":17: step_host_s: 0 is out of range (0, 1]");
    refused("# source: a\nstep_host_s = -1e-3\n", "out of range");
    refused("# source: a\nstep_host_s = 2\n", "out of range");
    refused("# source: a\nstep_host_s = 2 ms\n", ":17: step_host_s: '2 ms' is not a number");
    char err[HS_ERR_LEN] = "";
    wl_workload wl;
    if (wl_load("resnet50-v1.5", &wl, err) != HS_OK)
        fail_msg("%s", err);
    kt_options opt = kt_options_default();
    opt.runtime = accepted("# source: a\nstep_host_s = 2.5e-3\n").kernels;
    kt_compute c;
    if (kt_compute_init_with(&c, &wl, "a100-80gb", &opt, err) != HS_OK)
        fail_msg("%s", err);
    assert_true(kt_compute_step_host_s(&c) == 2.5e-3);
    assert_true(kt_compute_step_host_s(NULL) == 0);
    hs_times it = {.compute_s = 0.02, .comm_s = 0.01, .exposed_comm_s = 0.004, .total_s = 0.024};
    hs_times_host_step(&it, kt_compute_step_host_s(&c));
    assert_true(fabs(it.total_s - 0.0265) < 1e-15);
    assert_true(it.compute_s == 0.02 && it.comm_s == 0.01 && it.exposed_comm_s == 0.004);
    hs_times_host_step(&it, 0);
    assert_true(fabs(it.total_s - 0.0265) < 1e-15);
    wl_free(&wl);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pads_channels),   cmocka_unit_test(test_broadcast_backward),
        cmocka_unit_test(test_norm_blocks),     cmocka_unit_test(test_grouped_convolution),
        cmocka_unit_test(test_bn_activation_fusion),
        cmocka_unit_test(test_optimizer_sync),  cmocka_unit_test(test_grad_copies),
        cmocka_unit_test(test_first_bucket),    cmocka_unit_test(test_gradients_ready),
        cmocka_unit_test(test_loader_host_threads),
        cmocka_unit_test(test_autocast_casts),   cmocka_unit_test(test_step_host),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
