/* report.c: the human and machine forms of an estimate (report.h).
 *
 * Numbers are printed with enough digits to compare runs (%.6g for seconds in tables, %.17g in
 * JSON so that a JSON round trip is exact and byte-identical between identical runs). */
#include "report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hs_json.h"

/* The built-in strategies whose filter backward (--filter-backward) or halos (--halo) can
 * follow ParaDL's assumption instead of the default mechanism (strategy.h). A strategy file
 * names them only when one of its layers has them, as a built-in does by its kind. */

/* Whether a layer of the plan splits its filters (filters), or cuts its output spatially and
 * is charged as cut (halos: charge="whole" layers exchange none). */
static bool plan_splits(const st_plan *plan, bool filters)
{
    for (int l = 0; l < plan->n_layers; l++) {
        const st_layer_config *c = &plan->layers[l];
        if (filters ? c->filter > 1
                    : !c->whole && (c->width > 1 || c->height > 1 || c->depth > 1))
            return true;
    }
    return false;
}

/* A filter built-in's; a strategy file's when it splits filters and does not reduce-scatter,
 * the default (as has_halos). */
static bool has_filter_backward(const st_strategy *st)
{
    return st_split_bit(st->kind) == WL_SPLIT_FILTER ||
           (st->plan && !st->filter_rs && plan_splits(st->plan, true));
}

/* A spatial built-in's halos; a strategy file's when it cuts a layer spatially and its halos
 * are not the default chain. */
static bool has_halos(const st_strategy *st)
{
    return st_split_bit(st->kind) == WL_SPLIT_SPATIAL ||
           (st->plan && !st->halo_chain && plan_splits(st->plan, false));
}

static void print_shape(FILE *out, const rp_run *run)
{
    const st_strategy *st = &run->strategy;
    fprintf(out, "%s on %s, %s, %d GPUs", run->workload, run->platform, st_name(st),
            st->p);
    if (st->kind == ST_DATA_FILTER || st->kind == ST_DATA_SPATIAL)
        fprintf(out, " (%d groups x %d GPUs)", st->p1, st->p2);
    if (st_is_pipelined(st))
        fprintf(out, " (%d micro-batches)", st->segments);
    if (st->kind == ST_LAYERWISE && st->plan->path[0])
        fprintf(out, " (per-layer, %s)", st->plan->path);
    if (st->allreduce != CO_RING)
        fprintf(out, ", %s gradient allreduce", co_algo_name(st->allreduce));
    if (has_filter_backward(st) && !st->filter_rs)
        fprintf(out, ", output gradients allreduced (ParaDL)");
    if (has_halos(st) && !st->halo_chain)
        fprintf(out, ", halos sent and received at once (ParaDL)");
    fprintf(out, ", batch %lld", (long long)run->batch);
    if (run->precision)
        fprintf(out, ", %s precision", run->precision);
    if (run->runtime)
        fprintf(out, ", runtime %s", run->runtime);
    if (run->compute)
        fprintf(out, ", kernels %s on %s",
                strcmp(run->compute, "model") == 0     ? "from the model"
                : strcmp(run->compute, "kernels") == 0 ? "from the model alone"
                                                       : run->compute,
                run->device ? run->device : "?");
    fputc('\n', out);
}

static void print_times_row(FILE *out, const char *label, const hs_times *t)
{
    fprintf(out, "  %-22s %12.6g %12.6g %12.6g %12.6g\n", label, t->compute_s, t->comm_s,
            t->exposed_comm_s, t->total_s);
}

/* The runtime's input pipeline, when it has one: what a GPU's loader takes an iteration, and
 * whether it, not the GPUs, sets the iteration. */
static void print_input(FILE *out, const hs_estimate *est)
{
    if (est->host_step_s > 0) /* only under a runtime that says one: other outputs unchanged */
        fprintf(out, "  host step: %.6g s an iteration with the GPUs idle (the runtime's "
                "step_host_s), in its total\n", est->host_step_s);
    if (!(est->input_s > 0))
        return;
    if (est->input_wait_s > 0)
        fprintf(out, "  input pipeline: %.6g s a GPU's samples: it bounds the iteration (the "
                "GPUs wait %.6g s for data; more workers a GPU: --loader-workers N)\n",
                est->input_s, est->input_wait_s);
    else
        fprintf(out, "  input pipeline: %.6g s a GPU's samples, within the iteration (not the "
                "bound)\n", est->input_s);
}

static void print_memory(FILE *out, const rp_run *run, const hs_estimate *est)
{
    fprintf(out, "  memory per GPU: %.3f GB of %.3f GB (%s)\n", est->memory_per_gpu_bytes / 1e9,
            run->gpu_memory_bytes / 1e9, est->fits_in_memory ? "fits" : "DOES NOT FIT");
    const hs_memory *m = &est->memory;
    fprintf(out, "    = weights %.3f + gradients %.3f + activations %.3f", m->weights_bytes / 1e9,
            m->gradients_bytes / 1e9, m->activations_bytes / 1e9);
    if (m->master_bytes > 0) /* mixed precision's FP32 copy of the weights */
        fprintf(out, " + master weights %.3f", m->master_bytes / 1e9);
    fprintf(out, " + optimizer state %.3f GB\n", m->optimizer_state_bytes / 1e9);
    if (!est->fits_in_memory)
        fprintf(out, "    does not fit: %.3f GB more than the GPU has; the times above assume "
                "it did\n", (est->memory_per_gpu_bytes - run->gpu_memory_bytes) / 1e9);
}

/* ---------------------------------------------------------------- per-layer breakdown */

/* JSON keys of the phases (tg_phase order). */
static const char *const phase_keys[TG_PHASE_COUNT] = {"forward", "backward_input",
                                                       "backward_weight", "update", "gradient"};

/* The layer column: as wide as the longest name shown (at least 18, at most RP_NAME_MAX); a
 * longer name keeps its start and end around "..", where names that share a prefix differ
 * (mobilenet_v2's features_2_conv_0_0 .. _2). */
#define RP_NAME_MAX 40

static void shown_name(const char *name, int width, char *buf)
{
    int n = (int)strlen(name);
    if (n <= width)
        snprintf(buf, RP_NAME_MAX + 1, "%s", name);
    else
        snprintf(buf, RP_NAME_MAX + 1, "%.*s..%s", (width - 2) / 2, name,
                 name + n - (width - 2 - (width - 2) / 2));
}

static int name_width(const bd_breakdown *bd, const int *order, int shown)
{
    int width = 18;
    for (int i = 0; i < shown; i++) {
        int n = (int)strlen(bd->layer_info[order[i]].name);
        width = n > width ? (n < RP_NAME_MAX ? n : RP_NAME_MAX) : width;
    }
    return width;
}

/* The type column: 7 characters ("dropout", "softmax"), wider where a shown layer's type name
 * is longer ("layernorm", "hardsigmoid"), so that no type is cut. */
static int type_width(const bd_breakdown *bd, const int *order, int shown)
{
    int width = 7;
    for (int i = 0; i < shown; i++) {
        int n = (int)strlen(wl_type_name(bd->layer_info[order[i]].type));
        width = n > width ? n : width;
    }
    return width;
}

/* The widths of a layer table's text columns, in characters. */
typedef struct {
    int name; /* the layer's name */
    int type; /* its type */
} rp_columns;

static void print_layer_row(FILE *out, const char *index, const char *name, rp_columns cols,
                            const char *type, const bd_cell *row)
{
    char shown[RP_NAME_MAX + 1];
    shown_name(name, cols.name, shown);
    bd_cell sum = {0, 0, 0};
    for (int p = 0; p < TG_PHASE_COUNT; p++) {
        sum.comm_s += row[p].comm_s;
        sum.exposed_comm_s += row[p].exposed_comm_s;
        sum.compute_s += row[p].compute_s;
    }
    fprintf(out, "  %5s %-*s %-*s %10.4g %10.4g %10.4g %10.4g %10.4g %10.4g %10.4g\n",
            index, cols.name, shown, cols.type, type, row[TG_FORWARD].compute_s, row[TG_BACKWARD_INPUT].compute_s,
            row[TG_BACKWARD_WEIGHT].compute_s, row[TG_UPDATE].compute_s, sum.comm_s,
            sum.exposed_comm_s, sum.compute_s + sum.exposed_comm_s);
}

/* The layers that cost the critical rank most time (compute + exposed communication), then
 * the work of no single layer and the total. */
static void print_layers_table(FILE *out, const rp_run *run)
{
    const bd_breakdown *bd = run->layers;
    if (!bd || run->layers_top == 0 || bd->n_layers < 1)
        return;
    int *order = malloc((size_t)bd->n_layers * sizeof *order);
    if (!order)
        return;
    bd_rank_layers(bd, order);
    int shown = run->layers_top < 0 || run->layers_top > bd->n_layers ? bd->n_layers
                                                                       : run->layers_top;
    fprintf(out, "  per layer, simulated critical rank %d (", bd->rank);
    if (shown < bd->n_layers)
        fprintf(out, "top %d of %d layers by time; --per-layer shows all", shown, bd->n_layers);
    else
        fprintf(out, "all %d layers, most time first", bd->n_layers);
    rp_columns cols = {name_width(bd, order, shown), type_width(bd, order, shown)};
    fprintf(out, "), seconds:\n  %5s %-*s %-*s %10s %10s %10s %10s %10s %10s %10s\n", "#",
            cols.name, "layer", cols.type, "type", "forward", "bwd input", "bwd weight", "update", "comm", "exposed",
            "time");
    char index[16];
    for (int i = 0; i < shown; i++) {
        int l = order[i];
        snprintf(index, sizeof index, "%d", l);
        print_layer_row(out, index, bd->layer_info[l].name, cols,
                        wl_type_name(bd->layer_info[l].type), bd->layers[l]);
    }
    print_layer_row(out, "", "(no single layer)", cols, "", bd->shared);
    bd_cell total[TG_PHASE_COUNT];
    memcpy(total, bd->shared, sizeof total);
    for (int l = 0; l < bd->n_layers; l++)
        for (int p = 0; p < TG_PHASE_COUNT; p++) {
            total[p].compute_s += bd->layers[l][p].compute_s;
            total[p].comm_s += bd->layers[l][p].comm_s;
            total[p].exposed_comm_s += bd->layers[l][p].exposed_comm_s;
        }
    print_layer_row(out, "", "total", cols, "", total);
    free(order);
}

/* Members "forward", "backward_input", ...: a phase's compute, comm and exposed comm. */
static void json_cells(hs_json *j, const bd_cell *row)
{
    for (int p = 0; p < TG_PHASE_COUNT; p++) {
        hs_json_key(j, phase_keys[p]);
        hs_json_object(j);
        hs_json_kv_number(j, "compute_s", row[p].compute_s);
        hs_json_kv_number(j, "comm_s", row[p].comm_s);
        hs_json_kv_number(j, "exposed_comm_s", row[p].exposed_comm_s);
        hs_json_end(j);
    }
}

/* "layers_rank", "layers" (every layer, in order) and "whole_model" (no single layer's). */
static void json_layers(hs_json *j, const bd_breakdown *bd)
{
    hs_json_kv_int(j, "layers_rank", bd->rank);
    hs_json_key(j, "layers");
    hs_json_array(j);
    for (int l = 0; l < bd->n_layers; l++) {
        hs_json_object(j);
        hs_json_kv_int(j, "index", l);
        hs_json_kv_str(j, "name", bd->layer_info[l].name);
        hs_json_kv_str(j, "type", wl_type_name(bd->layer_info[l].type));
        hs_json_kv_number(j, "time_s", bd_layer_time_s(bd, l));
        json_cells(j, bd->layers[l]);
        hs_json_end(j);
    }
    hs_json_end(j);
    hs_json_key(j, "whole_model");
    hs_json_object(j);
    hs_json_kv_number(j, "time_s", bd_layer_time_s(bd, -1));
    json_cells(j, bd->shared);
    hs_json_end(j);
}

/* Flow mode's rings that ran step by step, or in blocks of steps, in a table line. */
static void print_flow_rings(FILE *out, const rp_run *run)
{
    if (run->rings_stepped == 0 && run->rings_over_budget == 0)
        return;
    fprintf(out, "  flow mode: the rings of %d group%s ran step by step (traffic may come and go "
            "on their links)", run->rings_stepped, run->rings_stepped == 1 ? "" : "s");
    if (run->rings_over_budget > 0)
        fprintf(out, ";\n    %d more ran in blocks of steps, over the step budget: their "
                "contention is approached (--collectives step is exact)", run->rings_over_budget);
    fputc('\n', out);
}

/* A table's first lines: what ran, the iterations, the column names. */
static void print_head(FILE *out, const char *mode, const rp_run *run, int64_t iterations)
{
    fprintf(out, "hybridsim %s: ", mode);
    print_shape(out, run);
    fprintf(out, "  iterations per epoch: %lld", (long long)iterations);
    if (run->samples > 0 && run->samples < run->batch) /* an epoch is part of an iteration */
        fprintf(out, " (the batch %lld is larger than the dataset's %lld samples: an epoch's "
                "compute is %.3g of an iteration's)", (long long)run->batch,
                (long long)run->samples, (double)run->samples / (double)run->batch);
    fputc('\n', out);
    fprintf(out, "  %-22s %12s %12s %12s %12s\n", "seconds", "compute", "comm", "exposed comm",
            "total");
}

void rp_print_table(FILE *out, const rp_run *run, const hs_estimate *est)
{
    print_head(out, run->mode, run, est->iterations_per_epoch);
    print_times_row(out, "per iteration", &est->iteration);
    print_times_row(out, "per epoch", &est->epoch);
    print_input(out, est);
    print_memory(out, run, est);
    print_layers_table(out, run);
    if (run->links)
        lk_print_summary_table(out, run->links, run->links_job);
    print_flow_rings(out, run);
}

void rp_print_row_header(FILE *out)
{
    fprintf(out, "%-8s %-16s %5s %4s %4s %7s %12s %12s %12s %12s %9s %s\n", "mode", "strategy",
            "gpus", "p1", "p2", "batch", "epoch_comp_s", "epoch_comm_s", "epoch_total_s",
            "iter_total_s", "mem_GB", "fits");
}

void rp_print_row(FILE *out, const rp_run *run, const hs_estimate *est)
{
    const st_strategy *st = &run->strategy;
    fprintf(out, "%-8s %-16s %5d %4d %4d %7lld %12.4f %12.4f %12.4f %12.6f %9.3f %s\n", run->mode,
            st_name(st), st->p, st->p1, st->p2, (long long)run->batch,
            est->epoch.compute_s, est->epoch.comm_s, est->epoch.total_s, est->iteration.total_s,
            est->memory_per_gpu_bytes / 1e9, est->fits_in_memory ? "yes" : "no");
}

/* {"compute_s", "comm_s"[, "exposed_comm_s"], "total_s"} */
void rp_json_times(hs_json *j, const hs_times *t, bool with_exposed)
{
    hs_json_object(j);
    hs_json_kv_number(j, "compute_s", t->compute_s);
    hs_json_kv_number(j, "comm_s", t->comm_s);
    if (with_exposed)
        hs_json_kv_number(j, "exposed_comm_s", t->exposed_comm_s);
    hs_json_kv_number(j, "total_s", t->total_s);
    hs_json_end(j);
}

/* What ran: the job's shape and the settings that are not the defaults. */
static void json_job(hs_json *j, const rp_run *run)
{
    const st_strategy *st = &run->strategy;
    hs_json_kv_str(j, "mode", run->mode);
    hs_json_kv_str(j, "workload", run->workload);
    hs_json_kv_str(j, "platform", run->platform);
    hs_json_kv_str(j, "strategy", st_name(st));
    hs_json_kv_int(j, "gpus", st->p);
    hs_json_kv_int(j, "p1", st->p1);
    hs_json_kv_int(j, "p2", st->p2);
    hs_json_kv_int(j, "batch", (long long)run->batch);
    if (st_is_pipelined(st))
        hs_json_kv_int(j, "micro_batches", st->segments);
    if (st->allreduce != CO_RING)
        hs_json_kv_str(j, "allreduce", co_algo_name(st->allreduce));
    if (has_filter_backward(st))
        hs_json_kv_str(j, "filter_backward", st->filter_rs ? "reduce-scatter" : "allreduce");
    if (has_halos(st))
        hs_json_kv_str(j, "halo", st->halo_chain ? "chain" : "sendrecv");
    if (run->precision)
        hs_json_kv_str(j, "precision", run->precision);
    if (run->runtime)
        hs_json_kv_str(j, "runtime", run->runtime);
    if (run->compute) {
        hs_json_kv_str(j, "compute", run->compute);
        hs_json_kv_str(j, "device", run->device ? run->device : "");
    }
}

/* The memory per GPU, whether it fits, and its parts. */
static void json_memory(hs_json *j, const rp_run *run, const hs_estimate *est)
{
    const hs_memory *m = &est->memory;
    hs_json_kv_number(j, "memory_per_gpu_bytes", est->memory_per_gpu_bytes);
    hs_json_kv_bool(j, "fits_in_memory", est->fits_in_memory);
    hs_json_kv_number(j, "gpu_memory_bytes", run->gpu_memory_bytes);
    hs_json_key(j, "memory_breakdown");
    hs_json_object(j);
    hs_json_kv_number(j, "weights_bytes", m->weights_bytes);
    hs_json_kv_number(j, "gradients_bytes", m->gradients_bytes);
    hs_json_kv_number(j, "activations_bytes", m->activations_bytes);
    if (m->master_bytes > 0)
        hs_json_kv_number(j, "master_bytes", m->master_bytes);
    hs_json_kv_number(j, "optimizer_state_bytes", m->optimizer_state_bytes);
    hs_json_end(j);
}

void rp_json_run(hs_json *j, const rp_run *run, const hs_estimate *est)
{
    hs_json_object(j);
    json_job(j, run);
    hs_json_kv_int(j, "iterations_per_epoch", (long long)est->iterations_per_epoch);
    hs_json_key(j, "iteration");
    rp_json_times(j, &est->iteration, true);
    hs_json_key(j, "epoch");
    rp_json_times(j, &est->epoch, false);
    if (est->host_step_s > 0) /* only under a runtime that says one: other outputs unchanged */
        hs_json_kv_number(j, "host_step_s", est->host_step_s);
    if (est->input_s > 0) { /* only under a runtime with a loader: other outputs unchanged */
        hs_json_key(j, "input_pipeline");
        hs_json_object(j);
        hs_json_kv_number(j, "time_s", est->input_s);
        hs_json_kv_number(j, "wait_s", est->input_wait_s);
        hs_json_kv_bool(j, "bound", est->input_wait_s > 0);
        hs_json_end(j);
    }
    json_memory(j, run, est);
    if (run->layers)
        json_layers(j, run->layers);
    if (run->links) {
        hs_json_key(j, "links");
        lk_json_summary(j, run->links, run->links_job);
    }
    if (run->rings_stepped > 0 || run->rings_over_budget > 0) {
        hs_json_key(j, "flow_rings");
        hs_json_object(j);
        hs_json_kv_int(j, "stepped_groups", run->rings_stepped);
        hs_json_kv_int(j, "over_budget_groups", run->rings_over_budget);
        hs_json_end(j);
    }
    hs_json_end(j);
}

void rp_print_json(FILE *out, const rp_run *run, const hs_estimate *est)
{
    hs_json j;
    hs_json_init(&j, out);
    rp_json_run(&j, run, est);
}

double rp_agreement(const hs_estimate *analytic, const hs_estimate *simulated)
{
    double sim = simulated->iteration.total_s;
    if (sim <= 0)
        return analytic->iteration.total_s <= 0 ? 1.0 : 0.0;
    return 1.0 - fabs(sim - analytic->iteration.total_s) / sim;
}

/* ---------------------------------------------------------------- compare */

/* Below SimGrid's timing precision a time is rounding, not a finding: the table shows 0. */
#define RP_PRECISION_S 1e-9

static double shown_s(double t_s)
{
    return fabs(t_s) < RP_PRECISION_S ? 0.0 : t_s;
}

/* The parts that either side has, one line each. */
static void print_terms_table(FILE *out, const rp_difference *diff)
{
    fprintf(out, "    %-52s %11s %11s %11s\n", "part of the iteration (s)", "analytic",
            "simulated", "sim - an");
    for (int i = 0; i < diff->n_terms; i++) {
        const rp_term *t = &diff->terms[i];
        if (shown_s(t->analytic_s) == 0 && shown_s(t->simulated_s) == 0)
            continue;
        fprintf(out, "    %-52.52s %11.6g %11.6g %+11.4g\n", t->label, shown_s(t->analytic_s),
                shown_s(t->simulated_s), shown_s(t->simulated_s - t->analytic_s));
    }
}

/* "difference_terms": each part's analytic and simulated seconds. */
static void json_terms(hs_json *j, const rp_difference *diff)
{
    hs_json_key(j, "difference_terms");
    hs_json_object(j);
    for (int i = 0; i < diff->n_terms; i++) {
        const rp_term *t = &diff->terms[i];
        hs_json_key(j, t->key);
        hs_json_object(j);
        hs_json_kv_number(j, "analytic_s", t->analytic_s);
        hs_json_kv_number(j, "simulated_s", t->simulated_s);
        if (t->is_comm) {
            hs_json_kv_number(j, "simulated_comm_s", t->simulated_comm_s);
            hs_json_kv_number(j, "simulated_exposed_s", t->simulated_exposed_s);
            hs_json_kv_number(j, "simulated_waiting_s", t->simulated_waiting_s);
        }
        hs_json_end(j);
    }
    hs_json_end(j);
}

/* "link_waiting_by_kind" and "link_waiting_share". */
static void json_link_waiting(hs_json *j, const lk_stats *links)
{
    hs_json_key(j, "link_waiting_by_kind");
    hs_json_object(j);
    for (int k = 0; k < LK_KIND_COUNT; k++)
        hs_json_kv_number(j, lk_kind_name((lk_kind)k), links->waiting_by_kind_s[k]);
    hs_json_end(j);
    hs_json_kv_number(j, "link_waiting_share", links->all.congestion_share);
}

void rp_print_compare_table(FILE *out, const rp_run *run, const hs_estimate *analytic,
                            const hs_estimate *simulated, const rp_difference *diff)
{
    print_head(out, "compare", run, analytic->iterations_per_epoch);
    print_times_row(out, "iteration, analytic", &analytic->iteration);
    print_times_row(out, "iteration, simulated", &simulated->iteration);
    print_times_row(out, "epoch, analytic", &analytic->epoch);
    print_times_row(out, "epoch, simulated", &simulated->epoch);
    print_input(out, simulated); /* the same floor as the analytic model's */
    print_memory(out, run, analytic);
    double agreement = rp_agreement(analytic, simulated);
    fprintf(out, "  agreement on the iteration total: %.4f (simulated / analytic = %.4f)\n",
            agreement,
            analytic->iteration.total_s > 0
                ? simulated->iteration.total_s / analytic->iteration.total_s
                : 0.0);
    if (diff && diff->text && *diff->text) {
        fprintf(out, "  difference: %s\n", diff->text);
        print_terms_table(out, diff);
    }
    print_layers_table(out, run);
    if (run->links)
        lk_print_summary_table(out, run->links, run->links_job);
    print_flow_rings(out, run);
}

void rp_print_compare_json(FILE *out, const rp_run *run, const hs_estimate *analytic,
                           const hs_estimate *simulated, const rp_difference *diff)
{
    rp_run an = *run, sim = *run;
    an.mode = "analytic";
    sim.mode = "simulate";
    an.layers = NULL; /* the breakdown is the simulation's */
    an.links = NULL;  /* and so are the link statistics */
    an.rings_stepped = an.rings_over_budget = 0; /* and how flow mode ran its rings */
    hs_json j;
    hs_json_init(&j, out);
    hs_json_object(&j);
    hs_json_key(&j, "analytic");
    rp_json_run(&j, &an, analytic);
    hs_json_key(&j, "simulate");
    rp_json_run(&j, &sim, simulated);
    hs_json_kv_number(&j, "agreement", rp_agreement(analytic, simulated));
    if (diff && diff->text && *diff->text)
        hs_json_kv_str(&j, "difference", diff->text);
    if (diff)
        json_terms(&j, diff);
    if (diff && diff->links)
        json_link_waiting(&j, diff->links);
    hs_json_end(&j);
}
