/* compare.c: the analytic model beside the simulation, and what accounts for a difference
 * (compare.h). */
#include "compare.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* A term's label for this strategy: filter parallelism's output gradients are reduce-scattered
 * by default (st_strategy.filter_rs), channel's partial outputs allreduced, and a per-layer
 * plan may do both. */
static const char *term_label(const st_strategy *st, hs_term k)
{
    if (k != HS_TERM_ACT_ALLREDUCE)
        return hs_term_label(k);
    if (st->kind == ST_LAYERWISE)
        return "the activation allreduces and reduce-scatters";
    return st->filter_rs ? "the activation reduce-scatter" : hs_term_label(k);
}

/* Both iterations in the same parts, each side adding up to its total: compute (the model's
 * without its pipeline bubble), each communication term, and waiting. A simulated term is the
 * critical rank's exposed time in its tasks, waiting for the other ranks to reach them
 * included: the model prices a collective or a halo chain whole, from the first member's start
 * to the last one's end, so a halo chain's messages that went before the critical rank's are
 * the term's, not idle time (ResNet-50 data+spatial:64x4 waits 0.52 s in its halo tasks, which
 * the model's halo term holds). Waiting is then the idle time outside communication tasks and
 * outside the runtime's host step (step_host_s, a part of its own, the same on both sides). A
 * pipeline is the exception: its waiting at sends and receives is the bubble, which the model
 * prices as a part of its own, so there the waiting inside tasks stays with the bubble.
 * Returns how many parts. */
static int difference_terms(const hs_estimate *an, const an_terms *at, const hs_estimate *sim,
                            const cr_details *d, const st_strategy *st, rp_term *terms)
{
    bool pipeline = st_is_pipelined(st);
    int n = 0;
    terms[n++] = (rp_term){.key = "compute", .label = "compute",
                           .analytic_s = an->iteration.compute_s - at->bubble_s,
                           .simulated_s = sim->iteration.compute_s};
    double exposed_s = 0, waiting_s = 0;
    for (int k = 0; k < HS_TERM_COUNT; k++) {
        double w = pipeline ? d->term_waiting_s[k] : 0;
        terms[n++] = (rp_term){.key = hs_term_key((hs_term)k),
                               .label = term_label(st, (hs_term)k),
                               .analytic_s = at->comm_s[k],
                               .simulated_s = d->term_exposed_s[k] - w,
                               .is_comm = true,
                               .simulated_comm_s = d->term_comm_s[k],
                               .simulated_exposed_s = d->term_exposed_s[k],
                               .simulated_waiting_s = d->term_waiting_s[k]};
        exposed_s += d->term_exposed_s[k];
        waiting_s += w;
    }
    double idle_s = sim->iteration.total_s - sim->iteration.compute_s - exposed_s -
                    sim->input_wait_s - sim->host_step_s;
    terms[n++] = (rp_term){.key = "waiting",
                           .label = pipeline ? "idle stages (pipeline bubbles)"
                                             : "waiting for other ranks outside communication",
                           .analytic_s = at->bubble_s, .simulated_s = waiting_s + idle_s};
    if (an->host_step_s > 0 || sim->host_step_s > 0) /* a runtime's (hs_estimate_host_step) */
        terms[n++] = (rp_term){.key = "host_step", .label = "the host's step (GPUs idle)",
                               .analytic_s = an->host_step_s, .simulated_s = sim->host_step_s};
    if (an->input_s > 0 || sim->input_s > 0) /* a runtime's loader (hs_estimate_input_floor) */
        terms[n++] = (rp_term){.key = "input_wait", .label = "waiting for the input pipeline",
                               .analytic_s = an->input_wait_s, .simulated_s = sim->input_wait_s};
    return n;
}

/* The link kind where messages waited most (ties: the first kind), -1 if none waited. */
static int top_waiting_kind(const lk_stats *links)
{
    int top = -1;
    for (int k = 0; k < LK_KIND_COUNT; k++)
        if (links->waiting_by_kind_s[k] > 0 &&
            (top < 0 || links->waiting_by_kind_s[k] > links->waiting_by_kind_s[top]))
            top = k;
    return top;
}

/* Name what accounts for a difference of more than 2% between the two totals: the part with
 * the largest simulated - analytic (ties: the first; the parts add up to the difference, and
 * no part cancels another, as waiting inside a term's tasks is the term's), and where messages waited on shared
 * links when that is more than 1% of their time. */
static void explain(const hs_estimate *an, const hs_estimate *sim, const rp_term *terms,
                    int n_terms, const lk_stats *links, char *text, size_t len)
{
    text[0] = '\0';
    if (rp_agreement(an, sim) >= 0.98 || n_terms < 1)
        return;
    double diff_s = sim->iteration.total_s - an->iteration.total_s;
    int top = 0;
    for (int i = 1; i < n_terms; i++)
        if (fabs(terms[i].simulated_s - terms[i].analytic_s) >
            fabs(terms[top].simulated_s - terms[top].analytic_s))
            top = i;
    const rp_term *t = &terms[top];
    double part_s = t->simulated_s - t->analytic_s;
    /* a term that holds the waiting in its tasks (difference_terms) says how much, when it
     * is more than a hundredth of it */
    char waited[96] = "";
    if (t->is_comm && t->simulated_s >= t->simulated_exposed_s &&
        t->simulated_waiting_s > 0.01 * t->simulated_s)
        snprintf(waited, sizeof waited, " (%.4g s of it waiting for other ranks in its tasks)",
                 t->simulated_waiting_s);
    int used = snprintf(text, len, "the simulation is %.1f%% %s (%+.4g s per iteration); the "
                        "largest part is %s: simulated %.4g s%s, analytic %.4g s (%+.4g s, "
                        "%.0f%% of the difference)",
                        100 * fabs(diff_s) / an->iteration.total_s,
                        diff_s > 0 ? "slower" : "faster", diff_s, t->label, t->simulated_s,
                        waited, t->analytic_s, part_s,
                        diff_s != 0 ? 100 * part_s / diff_s : 0.0);
    int kind = links ? top_waiting_kind(links) : -1;
    if (kind >= 0 && links->all.congestion_share > 0.01 && used > 0 && (size_t)used < len)
        snprintf(text + used, len - (size_t)used, "; messages waited %.0f%% of their time on "
                 "shared links, %.0f%% of it on %s links", 100 * links->all.congestion_share,
                 100 * links->waiting_by_kind_s[kind] / links->all.waiting_s,
                 lk_kind_name((lk_kind)kind));
}

int cmp_run(const job *j, const plat_platform *plat, const sm_options *opt, cmp_result *out,
            char *err)
{
    memset(out, 0, sizeof *out);
    int status = an_estimate_on(&j->wl, j->kc, plat, &j->st, j->batch, opt->placement,
                                &out->analytic, &out->analytic_parts, err);
    sm_options sim = *opt;
    sim.links = &out->links;
    if (status == HS_OK)
        status = sm_run(&j->wl, j->kc, plat, &j->st, j->batch, &sim, &out->simulated, &out->details,
                        err);
    if (status != HS_OK)
        return status;
    out->n_terms = difference_terms(&out->analytic, &out->analytic_parts, &out->simulated,
                                    &out->details, &j->st, out->terms);
    explain(&out->analytic, &out->simulated, out->terms, out->n_terms, &out->links, out->why,
            sizeof out->why);
    return HS_OK;
}

rp_difference cmp_difference(const cmp_result *r)
{
    return (rp_difference){.text = r->why, .terms = r->terms, .n_terms = r->n_terms,
                           .links = &r->links};
}

void cmp_free(cmp_result *r)
{
    cr_details_free(&r->details);
    lk_stats_free(&r->links);
}
