/* estimate.c: the epoch rule and the names of the communication terms, shared by the analytic
 * model and the simulator (estimate.h), and the check that an estimate holds only numbers. */
#include "estimate.h"

#include <math.h>

#include "hs_error.h"

void hs_estimate_scale_epoch(hs_estimate *est, int64_t samples, int64_t batch)
{
    double fraction = (double)samples / (double)batch;
    est->iterations_per_epoch = (samples + batch - 1) / batch;
    double iters = (double)est->iterations_per_epoch;
    est->epoch.compute_s = est->iteration.compute_s * fraction;
    est->epoch.comm_s = est->iteration.comm_s * iters;
    est->epoch.exposed_comm_s = est->iteration.exposed_comm_s * iters;
    /* Wall time: compute, the communication it does not hide, and idle time (pipeline
     * bubbles, waiting for a slower GPU), which scales with the samples like compute. */
    double idle_s = est->iteration.total_s - est->iteration.compute_s -
                    est->iteration.exposed_comm_s;
    if (idle_s < 0)
        idle_s = 0;
    est->epoch.total_s = est->epoch.compute_s + est->epoch.exposed_comm_s + idle_s * fraction;
}

double hs_times_input_floor(hs_times *it, double input_s)
{
    if (!(input_s > it->total_s))
        return 0;
    double wait_s = input_s - it->total_s;
    it->total_s = input_s;
    return wait_s;
}

void hs_times_host_step(hs_times *it, double host_s)
{
    if (host_s > 0)
        it->total_s += host_s;
}

void hs_estimate_host_step(hs_estimate *est, double host_s)
{
    est->host_step_s = host_s > 0 ? host_s : 0;
    hs_times_host_step(&est->iteration, est->host_step_s);
}

void hs_estimate_input_floor(hs_estimate *est, double input_s)
{
    est->input_s = input_s > 0 ? input_s : 0;
    est->input_wait_s = hs_times_input_floor(&est->iteration, est->input_s);
}

static const char *term_keys[HS_TERM_COUNT] = {
    "activation_allgather", "activation_allreduce", "halo_exchange", "split_point_gather",
    "pipeline_sendrecv", "gradient_allreduce_group", "gradient_allreduce_across"};

static const char *term_labels[HS_TERM_COUNT] = {
    "the activation allgather", "the activation allreduce", "the halo exchange",
    "the split-point gather", "the pipeline sends and receives",
    "the gradient allreduce inside the group",
    "the gradient allreduce across data-parallel groups"};

const char *hs_term_key(hs_term term)
{
    return term < HS_TERM_COUNT ? term_keys[term] : "?";
}

const char *hs_term_label(hs_term term)
{
    return term < HS_TERM_COUNT ? term_labels[term] : "?";
}

int hs_estimate_check(const hs_estimate *est, const char *what, char *err)
{
    const struct {
        const char *name;
        double v;
    } values[] = {
        {"the iteration's compute_s", est->iteration.compute_s},
        {"the iteration's comm_s", est->iteration.comm_s},
        {"the iteration's exposed_comm_s", est->iteration.exposed_comm_s},
        {"the iteration's total_s", est->iteration.total_s},
        {"the epoch's compute_s", est->epoch.compute_s},
        {"the epoch's comm_s", est->epoch.comm_s},
        {"the epoch's exposed_comm_s", est->epoch.exposed_comm_s},
        {"the epoch's total_s", est->epoch.total_s},
        {"memory_per_gpu_bytes", est->memory_per_gpu_bytes},
        {"activations_bytes", est->memory.activations_bytes},
        {"the input pipeline's input_s", est->input_s},
        {"the host step's host_step_s", est->host_step_s},
    };
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++)
        if (!isfinite(values[i].v))
            return hs_fail(err, HS_EINTERNAL, "%s: %s is %g, not a number to print", what,
                           values[i].name, values[i].v);
    return HS_OK;
}
