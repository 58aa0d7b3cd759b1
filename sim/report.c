/* report.c: the human and machine forms of an estimate (report.h).
 *
 * Numbers are printed with enough digits to compare runs (%.6g for seconds in tables, %.17g in
 * JSON so that a JSON round trip is exact and byte-identical between identical runs). */
#include "report.h"

#include <math.h>

static void print_shape(FILE *out, const rp_run *run)
{
    const st_strategy *st = &run->strategy;
    fprintf(out, "%s on %s, %s, %d GPUs", run->workload, run->platform, st_kind_name(st->kind),
            st->p);
    if (st->kind == ST_DATA_FILTER || st->kind == ST_DATA_SPATIAL)
        fprintf(out, " (%d groups x %d GPUs)", st->p1, st->p2);
    if (st->kind == ST_PIPELINE)
        fprintf(out, " (%d micro-batches)", st->segments);
    fprintf(out, ", batch %lld\n", (long long)run->batch);
}

static void print_times_row(FILE *out, const char *label, const hs_times *t)
{
    fprintf(out, "  %-22s %12.6g %12.6g %12.6g %12.6g\n", label, t->compute_s, t->comm_s,
            t->exposed_comm_s, t->total_s);
}

static void print_memory(FILE *out, const rp_run *run, const hs_estimate *est)
{
    fprintf(out, "  memory per GPU: %.3f GB of %.3f GB (%s)\n", est->memory_per_gpu_bytes / 1e9,
            run->gpu_memory_bytes / 1e9, est->fits_in_memory ? "fits" : "DOES NOT FIT");
}

void rp_print_table(FILE *out, const rp_run *run, const hs_estimate *est)
{
    fprintf(out, "hybridsim %s: ", run->mode);
    print_shape(out, run);
    fprintf(out, "  iterations per epoch: %lld\n", (long long)est->iterations_per_epoch);
    fprintf(out, "  %-22s %12s %12s %12s %12s\n", "seconds", "compute", "comm", "exposed comm",
            "total");
    print_times_row(out, "per iteration", &est->iteration);
    print_times_row(out, "per epoch", &est->epoch);
    print_memory(out, run, est);
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
            st_kind_name(st->kind), st->p, st->p1, st->p2, (long long)run->batch,
            est->epoch.compute_s, est->epoch.comm_s, est->epoch.total_s, est->iteration.total_s,
            est->memory_per_gpu_bytes / 1e9, est->fits_in_memory ? "yes" : "no");
}

static void print_json_times(FILE *out, const hs_times *t, int with_exposed)
{
    fprintf(out, "{\"compute_s\": %.17g, \"comm_s\": %.17g, ", t->compute_s, t->comm_s);
    if (with_exposed)
        fprintf(out, "\"exposed_comm_s\": %.17g, ", t->exposed_comm_s);
    fprintf(out, "\"total_s\": %.17g}", t->total_s);
}

/* Strings here come from file names and fixed tables; escape the two JSON metacharacters anyway. */
static void print_json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fputc('\\', out);
        if ((unsigned char)*s >= 0x20)
            fputc(*s, out);
    }
    fputc('"', out);
}

void rp_print_json(FILE *out, const rp_run *run, const hs_estimate *est)
{
    const st_strategy *st = &run->strategy;
    fprintf(out, "{\"mode\": ");
    print_json_string(out, run->mode);
    fprintf(out, ", \"workload\": ");
    print_json_string(out, run->workload);
    fprintf(out, ", \"platform\": ");
    print_json_string(out, run->platform);
    fprintf(out, ", \"strategy\": ");
    print_json_string(out, st_kind_name(st->kind));
    fprintf(out, ", \"gpus\": %d, \"p1\": %d, \"p2\": %d, \"batch\": %lld", st->p, st->p1, st->p2,
            (long long)run->batch);
    if (st->kind == ST_PIPELINE)
        fprintf(out, ", \"micro_batches\": %d", st->segments);
    fprintf(out, ", \"iterations_per_epoch\": %lld, \"iteration\": ",
            (long long)est->iterations_per_epoch);
    print_json_times(out, &est->iteration, 1);
    fprintf(out, ", \"epoch\": ");
    print_json_times(out, &est->epoch, 0);
    fprintf(out, ", \"memory_per_gpu_bytes\": %.17g, \"fits_in_memory\": %s}",
            est->memory_per_gpu_bytes, est->fits_in_memory ? "true" : "false");
}

double rp_agreement(const hs_estimate *analytic, const hs_estimate *simulated)
{
    double sim = simulated->iteration.total_s;
    if (sim <= 0)
        return analytic->iteration.total_s <= 0 ? 1.0 : 0.0;
    return 1.0 - fabs(sim - analytic->iteration.total_s) / sim;
}

void rp_print_compare_table(FILE *out, const rp_run *run, const hs_estimate *analytic,
                            const hs_estimate *simulated, const char *explanation)
{
    fprintf(out, "hybridsim compare: ");
    print_shape(out, run);
    fprintf(out, "  iterations per epoch: %lld\n", (long long)analytic->iterations_per_epoch);
    fprintf(out, "  %-22s %12s %12s %12s %12s\n", "seconds", "compute", "comm", "exposed comm",
            "total");
    print_times_row(out, "iteration, analytic", &analytic->iteration);
    print_times_row(out, "iteration, simulated", &simulated->iteration);
    print_times_row(out, "epoch, analytic", &analytic->epoch);
    print_times_row(out, "epoch, simulated", &simulated->epoch);
    print_memory(out, run, analytic);
    double agreement = rp_agreement(analytic, simulated);
    fprintf(out, "  agreement on the iteration total: %.4f (simulated / analytic = %.4f)\n",
            agreement,
            analytic->iteration.total_s > 0
                ? simulated->iteration.total_s / analytic->iteration.total_s
                : 0.0);
    if (explanation && *explanation)
        fprintf(out, "  difference: %s\n", explanation);
}

void rp_print_compare_json(FILE *out, const rp_run *run, const hs_estimate *analytic,
                           const hs_estimate *simulated, const char *explanation)
{
    rp_run an = *run, sim = *run;
    an.mode = "analytic";
    sim.mode = "simulate";
    fprintf(out, "{\"analytic\": ");
    rp_print_json(out, &an, analytic);
    fprintf(out, ", \"simulate\": ");
    rp_print_json(out, &sim, simulated);
    fprintf(out, ", \"agreement\": %.17g", rp_agreement(analytic, simulated));
    if (explanation && *explanation) {
        fprintf(out, ", \"difference\": ");
        print_json_string(out, explanation);
    }
    fprintf(out, "}");
}
