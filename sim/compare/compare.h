/* compare.h: sim/compare/, both derivations of one configuration side by side, and what
 * accounts for their difference: the folder's public face.
 *
 * The analytic model (analytic/) and the simulation (sim/run) answer independently; here their
 * iterations are cut into the same parts (compute, each communication term of hs_term,
 * waiting for other ranks), each side's parts adding up to its own total, and a difference of
 * more than 2% is put into words: the part that accounts for most of it and the kind of link
 * where messages waited. One of the two places (with sim/cli) that include both analytic/ and
 * the simulator; may include: analytic/, sim/run, sim/report. suggest.h (sg_) ranks every
 * strategy of a job, analytic then simulated. */
#ifndef COMPARE_H
#define COMPARE_H

#include "analytic.h"
#include "report.h"
#include "run.h"

#define CMP_TERMS (HS_TERM_COUNT + 4) /* compute, the communication terms, waiting, and under
                                         * a runtime with them its host step and the input
                                         * pipeline's wait */

/* Everything a compare prints. */
typedef struct {
    hs_estimate analytic;       /* the model's answer, on the placed ranks' routes */
    hs_estimate simulated;      /* the simulation's */
    an_terms analytic_parts;    /* the model's iteration told apart */
    cr_details details;         /* the simulated critical rank told apart */
    lk_stats links;             /* the simulation's link statistics (always recorded: the
                                 * explanation names where messages waited) */
    rp_term terms[CMP_TERMS];   /* the parts, in print order */
    int n_terms;
    char why[1024];             /* the explanation, "" when the two agree within 2% */
} cmp_result;

/* Run both on the loaded job and platform (opt: the simulation's options; its links field is
 * ignored, the statistics go to out->links). Free with cmp_free, also after a failure. */
int cmp_run(const job *j, const plat_platform *plat, const sm_options *opt, cmp_result *out,
            char *err);

/* The difference for the report (rp_print_compare_*); points into r. */
rp_difference cmp_difference(const cmp_result *r);

void cmp_free(cmp_result *r);

#endif
