/* anchored.c: a run's kernel times from the model, anchored on the workload's measurement
 * (compute.h, "--compute model"). */
#include "compute.h"

#include <math.h>
#include <string.h>

int kt_same_compute(const char *a, const char *b)
{
    const dv_device *da = dv_find(a), *db = dv_find(b);
    if (!da || !db)
        return a && b && strcmp(a, b) == 0;
    return da->fp32_flops == db->fp32_flops && da->memory_bw_Bps == db->memory_bw_Bps &&
           da->fp16_tensor_flops == db->fp16_tensor_flops &&
           da->sustained_frac == db->sustained_frac;
}

/* The measured seconds per sample over the model's, every layer whole at `samples` on the
 * calibration device: what anchors a workload that measured only its total. */
static int network_scale(const kt_compute *c, const wl_workload *wl, int64_t samples,
                         double *scale, char *err)
{
    double model_s = 0;
    int rc = kt_sample_s(&c->calib, wl, samples, &model_s, err);
    *scale = rc == HS_OK && model_s > 0 ? wl->sample_time_s / model_s : 1.0;
    return rc;
}

pr_precision kt_precision(const kt_compute *c)
{
    return c ? c->device.precision : PR_FP32;
}

double kt_message_bytes(const kt_compute *c)
{
    return pr_message_bytes(kt_precision(c));
}

double kt_gradient_bytes(const kt_compute *c)
{
    return pr_gradient_message_bytes(kt_precision(c));
}

kt_options kt_options_default(void)
{
    kt_options o = {.anchor = 1, .runtime = kt_runtime_neutral()};
    return o;
}

const char *kt_compute_name(const kt_compute *c)
{
    return c->kernels_only ? "kernels" : "model";
}

int kt_compute_init(kt_compute *c, const wl_workload *wl, const char *device, char *err)
{
    kt_options o = kt_options_default();
    return kt_compute_init_with(c, wl, device, &o, err);
}

int kt_compute_init_with(kt_compute *c, const wl_workload *wl, const char *device,
                         const kt_options *options, char *err)
{
    memset(c, 0, sizeof *c);
    if (!device || !*device)
        return hs_fail(err, HS_EINPUT, "--compute model: the platform does not say which GPU "
                       "it has (hybridsim:gpu_device; `hybridsim platform --gpu NAME` writes it)");
    if (!dv_find(device))
        return hs_fail(err, HS_EINPUT, "--compute model: the platform's GPU '%s' is not in the "
                       "device table (hybridsim platform --gpu lists it)", device);
    int status = kt_model_init(&c->device, device, options->precision, err);
    if (status != HS_OK) /* a precision the GPU cannot train in: its message names it */
        return status;
    c->device.runtime = options->runtime;
    c->kernels_only = !options->anchor;
    c->update_scale = 1.0;
    if (!options->anchor || wl->calibration != WL_CAL_MEASURED || wl->sample_time_s <= 0)
        return HS_OK;
    if (kt_model_init(&c->calib, wl->device, PR_FP32, err) != HS_OK)
        return hs_fail(err, HS_EINPUT, "--compute model: %s was measured on '%s', which is not "
                       "in the device table: its times cannot be carried to another shape or "
                       "GPU", wl->name, wl->device);
    c->calib.runtime = options->runtime;
    c->anchored = 1;
    c->update_scale = c->calib.device->memory_bw_Bps / c->device.device->memory_bw_Bps;
    if (wl->layer_times || wl->calibration_batch <= 0)
        return HS_OK;
    return network_scale(c, wl, wl->calibration_batch, &c->network_scale, err);
}

/* The model's seconds of the passes of layer `index` whole at `samples` on the calibration
 * device: the forward, and the input and weight gradients together (the measurement's bw_s). */
static int calib_model_s(const kt_compute *c, const wl_workload *wl, int index, int64_t samples,
                         double *fw_s, double *bw_s, char *err)
{
    lw_split whole = lw_whole(samples);
    double dx_s = 0, dw_s = 0;
    int rc = kt_pass_s(&c->calib, wl, index, &whole, LW_FORWARD, fw_s, err);
    if (rc == HS_OK)
        rc = kt_pass_s(&c->calib, wl, index, &whole, LW_INPUT_GRAD, &dx_s, err);
    if (rc == HS_OK)
        rc = kt_pass_s(&c->calib, wl, index, &whole, LW_WEIGHT_GRAD, &dw_s, err);
    *bw_s = dx_s + dw_s;
    return rc;
}

/* *seconds times the network's anchor: measured over modelled at the calibration batch (or,
 * not said, at this kernel's samples, remembered in c's memo: the memo is the one part of c
 * that changes after kt_compute_init, so c is written through a cast). */
static int scale_by_network(const kt_compute *c, const wl_workload *wl, int64_t samples,
                            double *seconds, char *err)
{
    double scale = c->network_scale;
    if (scale > 0 || wl->calibration_batch > 0) {
        int rc = scale > 0 ? HS_OK : network_scale(c, wl, wl->calibration_batch, &scale, err);
        *seconds *= scale;
        return rc;
    }
    kt_compute *memo = (kt_compute *)c;
    size_t slot = samples > 0 ? (size_t)samples % KT_SCALE_MEMO : 0;
    if (samples > 0 && memo->memo_samples[slot] == samples) {
        *seconds *= memo->memo_scale[slot];
        return HS_OK;
    }
    int rc = network_scale(c, wl, samples, &scale, err);
    if (rc == HS_OK && samples > 0)
        memo->memo_samples[slot] = samples, memo->memo_scale[slot] = scale;
    *seconds *= scale;
    return rc;
}

int kt_compute_copy_s(const kt_compute *c, const wl_workload *wl, double elems, int64_t samples,
                      double *seconds, char *err)
{
    lw_kernel copy = {.kind = LW_STREAM,
                      .bytes = 2.0 * elems * pr_activation_bytes(c->device.precision)};
    *seconds = elems > 0 ? kt_kernel_s(&c->device, &copy) : 0.0;
    if (*seconds == 0 || !c->anchored || wl->layer_times)
        return HS_OK;
    return scale_by_network(c, wl, samples, seconds, err);
}

static int64_t at_most(int64_t parts, int64_t extent)
{
    return parts > extent && extent > 0 ? extent : parts;
}

int kt_compute_pass_s(const kt_compute *c, const wl_workload *wl, int index,
                      const lw_split *asked, lw_pass pass, double *seconds, char *err)
{
    /* More parts than a dimension has leave some GPUs without a share: the busiest computes
     * one (a 3-channel input cut 32 ways), which is the kernel that sets the pace. */
    const wl_layer *ly = &wl->layers[index];
    lw_split cut = *asked, *split = &cut;
    cut.out_parts = at_most(cut.out_parts, ly->y.channels);
    cut.in_parts = at_most(cut.in_parts, ly->x.channels);
    for (int d = 0; d < WL_MAX_SPATIAL; d++)
        cut.spatial_parts[d] = at_most(cut.spatial_parts[d], ly->y.spatial[d]);
    int rc = kt_pass_s(&c->device, wl, index, split, pass, seconds, err);
    if (rc != HS_OK || !c->anchored || *seconds == 0)
        return rc;
    if (!wl->layer_times)
        return scale_by_network(c, wl, split->samples, seconds, err);
    /* measured at the calibration batch (or, not said, at this kernel's samples), unsplit */
    int64_t b0 = wl->calibration_batch > 0 ? wl->calibration_batch : split->samples;
    double model_fw_s, model_bw_s;
    rc = calib_model_s(c, wl, index, b0, &model_fw_s, &model_bw_s, err);
    if (rc != HS_OK)
        return rc;
    double measured_s = (pass == LW_FORWARD ? ly->fw_s : ly->bw_s) * (double)b0;
    double modelled_s = pass == LW_FORWARD ? model_fw_s : model_bw_s;
    if (modelled_s > 0)
        *seconds *= measured_s / modelled_s;
    return HS_OK;
}

/* The parameter tensors PyTorch's modules give a layer, each updated by its own kernels: a
 * weight, and a fully connected layer's bias (nn.Linear's bias=True), a batch normalisation's
 * scale and shift (nn.BatchNorm2d's affine=True). A convolution's bias is not in the workload
 * format: none is counted (the ResNets' convolutions have none; EfficientNet's
 * squeeze-and-excitation convolutions have one each). */
static double param_tensors(const wl_layer *l)
{
    if (l->type == WL_BNORM)
        return 2;
    if (l->w_elems <= 0)
        return 0;
    return l->type == WL_FC ? 2 : 1;
}

double kt_compute_update_s(const kt_compute *c, const wl_workload *wl, int index, double parts)
{
    const wl_layer *l = &wl->layers[index];
    const kt_model *m = &c->device;
    const kt_runtime *r = &m->runtime;
    double share = parts > 1 ? 1.0 / parts : 1.0;
    double s = l->wu_s * c->update_scale * share;
    double kernels = r->optimizer_kernels_per_tensor, tensors = param_tensors(l);
    if (tensors > 0 && kernels > 0) {
        /* every GPU launches the kernels for its share of the tensor. A runtime that names
         * where the host syncs (optimizer_sync_precisions) says the other precisions queue
         * their launches, hidden behind the GPU's work; one that names none keeps host_call_s
         * as every kernel's floor, as elsewhere in the model */
        double bw = m->device->stream_bw_frac * m->device->memory_bw_Bps;
        double launch = r->optimizer_sync_precisions ? m->device->launch_s
                                                     : fmax(m->device->launch_s, r->host_call_s);
        s += tensors * kernels * launch +
             r->optimizer_bytes_per_weight * (double)l->w_elems * share / bw;
    }
    if (kernels > 0 && (r->optimizer_sync_precisions & (1u << m->precision)))
        /* after the host's read of a GPU value the queue is empty: the GPU waits for each
         * launch (every tensor's kernels, host_call_s each) unless it is busier itself */
        s = fmax(s, tensors * kernels * r->host_call_s);
    int every = r->optimizer_every > 1 ? r->optimizer_every : 1;
    return s / every;
}

double kt_compute_grad_copy_s(const kt_compute *c, const wl_workload *wl, int index, double parts,
                              double grad_elem_bytes)
{
    const wl_layer *l = &wl->layers[index];
    const kt_model *m = &c->device;
    double kernels = m->runtime.grad_copy_kernels_per_tensor, tensors = param_tensors(l);
    if (kernels <= 0 || tensors <= 0)
        return 0.0;
    /* launched from the backward's hooks while the GPU is busy: the device's launch cost, not
     * the host's; each copy reads and writes the share of the gradient once (a batch
     * normalisation's scale and shift are not in w_elems: their 2 x channels elements are
     * left out, their launches not) */
    double share = parts > 1 ? 1.0 / parts : 1.0;
    double bw = m->device->stream_bw_frac * m->device->memory_bw_Bps;
    return kernels * (tensors * m->device->launch_s +
                      2.0 * grad_elem_bytes * (double)l->w_elems * share / bw);
}

double kt_compute_autocast_s(const kt_compute *c, const wl_workload *wl, int index, double parts)
{
    const wl_layer *l = &wl->layers[index];
    bool cast_op = l->type == WL_CONV || l->type == WL_DECONV || l->type == WL_FC;
    if (!cast_op || l->w_elems <= 0)
        return 0.0;
    const kt_model *m = &c->device;
    double master = pr_master_bytes(m->precision); /* 0: FP32 and TF32 compute as they are */
    if (master <= 0)
        return 0.0;
    /* autocast's cached_cast: weight.to(half) once an autocast region (its cache cleared at
     * the region's exit), and `to`'s backward casts the gradient back: elementwise kernels,
     * launched by the host op by op */
    double share = parts > 1 ? 1.0 / parts : 1.0;
    double bw = m->device->stream_bw_frac * m->device->memory_bw_Bps;
    double bytes = (master + pr_weight_bytes(m->precision)) * (double)l->w_elems * share;
    double host = m->runtime.host_call_s, launch = m->device->launch_s;
    double s = fmax(host, launch + bytes / bw);
    if (l->type == WL_FC) /* its bias: a launch */
        s += fmax(host, launch);
    return s;
}

double kt_compute_buffer_sync_s(const kt_compute *c, const wl_workload *wl, int index)
{
    if (wl->layers[index].type != WL_BNORM)
        return 0.0;
    return c->device.runtime.norm_buffer_kernels * c->device.device->launch_s;
}

double kt_compute_input_s(const kt_compute *c, int64_t batch, int data_groups)
{
    if (!c)
        return 0.0;
    const kt_runtime *r = &c->device.runtime;
    double samples = (double)batch / data_groups;
    double rate = r->loader_workers * r->loader_samples_per_s;
    return rate > 0 && samples > 0 ? samples / rate : 0.0;
}

double kt_compute_step_host_s(const kt_compute *c)
{
    return c ? c->device.runtime.step_host_s : 0.0;
}
