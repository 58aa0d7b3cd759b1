/* invariants.c: what every simulated run must satisfy before it is read off (simulate.h).
 *
 * A run that breaks one of these is a bug in hybridsim (or in SimGrid), never a finding: no
 * time may be negative or not a number; every message sent must have been received, with the
 * payload its receiver expected (the engine counts both sides: a sender and a receiver that
 * disagree on a size would otherwise go unnoticed, since SimGrid times the sender's); when
 * SimGrid's deliveries were watched (link statistics), they must be the engine's messages
 * too; and each rank's iteration lasts at least its compute, and is its compute plus its
 * exposed communication (engine.h). The run is then refused with HS_EINTERNAL naming the
 * broken invariant, so that nothing is printed from it. */
#include "simulate.h"

#include <math.h>

/* Times a sound run computes as sums of SimGrid's clock readings agree to this (SimGrid's
 * own timing precision is 1e-9 s). */
#define SM_TIME_TOLERANCE_S 1e-9

static bool bad_time(double t_s)
{
    return !isfinite(t_s) || t_s < 0;
}

static int rank_invariants(const eng_rank_stats *r, int rank, char *err)
{
    const struct { const char *name; double value_s; } times[] = {
        {"end", r->end_s}, {"compute", r->compute_busy_s},
        {"communication", r->comm_busy_s}, {"exposed communication", r->exposed_comm_s}};
    for (size_t i = 0; i < sizeof times / sizeof times[0]; i++)
        if (bad_time(times[i].value_s))
            return hs_fail(err, HS_EINTERNAL, "the simulated run breaks an invariant: rank %d's "
                           "%s time is %g s (negative or not a number)", rank, times[i].name,
                           times[i].value_s);
    double tol_s = SM_TIME_TOLERANCE_S * (1 + r->end_s);
    if (r->end_s < r->compute_busy_s - tol_s)
        return hs_fail(err, HS_EINTERNAL, "the simulated run breaks an invariant: rank %d's "
                       "iteration (%.9g s) is shorter than its compute (%.9g s)", rank,
                       r->end_s, r->compute_busy_s);
    if (fabs(r->end_s - (r->compute_busy_s + r->exposed_comm_s)) > tol_s)
        return hs_fail(err, HS_EINTERNAL, "the simulated run breaks an invariant: rank %d's "
                       "iteration (%.9g s) is not its compute (%.9g s) plus its exposed "
                       "communication (%.9g s)", rank, r->end_s, r->compute_busy_s,
                       r->exposed_comm_s);
    return HS_OK;
}

static int message_invariants(const eng_result *res, const lk_stats *links, char *err)
{
    if (res->messages_received != res->messages || res->bytes_received != res->bytes_sent)
        return hs_fail(err, HS_EINTERNAL, "the simulated run breaks an invariant: bytes sent "
                       "(%.17g in %ld messages) != bytes received (%.17g in %ld messages)",
                       res->bytes_sent, res->messages, res->bytes_received,
                       res->messages_received);
    if (links && (links->all.messages != res->messages || links->all.bytes != res->bytes_sent))
        return hs_fail(err, HS_EINTERNAL, "the simulated run breaks an invariant: bytes sent "
                       "(%.17g in %ld messages) != bytes SimGrid delivered (%.17g in %ld "
                       "messages)", res->bytes_sent, res->messages, links->all.bytes,
                       links->all.messages);
    return HS_OK;
}

int sm_check_run(const eng_result *res, const lk_stats *links, char *err)
{
    if (bad_time(res->makespan_s))
        return hs_fail(err, HS_EINTERNAL, "the simulated run breaks an invariant: its "
                       "makespan is %g s (negative or not a number)", res->makespan_s);
    for (int r = 0; r < res->n_ranks; r++) {
        int status = rank_invariants(&res->ranks[r], r, err);
        if (status != HS_OK)
            return status;
    }
    return message_invariants(res, links, err);
}
