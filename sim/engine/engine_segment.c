/* engine_segment.c: computed segments, runs of kernels and private-ring collectives that the
 * members of a ring go through together, computed at once instead of simulated step by step
 * (engine_int.h, eng_private_segment).
 *
 * In flow mode a collective on a ring whose every edge is private is already computed
 * (engine_private.c): the members meet at the ring's barrier, one computes when the slowest
 * edge's message would arrive, all sleep until then. Data+filter in node-sized groups does
 * little else: a kernel, a gather on the node's ring, a kernel, ... about a hundred times an
 * iteration, each a barrier and two sleeps of every rank, which at thousands of ranks is most
 * of the run's cost (README, "Speed"). Nothing else can take part in such a stretch: the
 * ring's links carry no other message, a GPU runs its own rank's kernels only, and a rank
 * whose list is one chain runs it in order on one actor. So once the members have met at the
 * first collective, the one that computes it also computes what follows, for every member:
 * its kernels (as eng_run_kernels would run them), the next collective on the same ring (from the
 * members' arrivals, as eng_private_flow would), and so on while every member's next task
 * after its kernels is a collective on the same ring. It records and accounts every task of
 * the stretch as running them would, then each member sleeps once, to the stretch's end.
 * The dates are those the sleeps would give (each collective ends when its slowest edge's
 * message arrives, or at the last arrival if that is within SimGrid's precision; a run of
 * kernels ends at its start plus its length), computed with the same operations. */
#include "engine_int.h"

#include <simgrid/engine.h>

/* The tasks eng_comm_run hands to eng_private_segment: a ring allgather, reduce-scatter or
 * (ring-only) allreduce, not staged, on a group with a private ring, in flow mode. */
bool eng_private_ring_task(const eng_sim *s, const tg_task *t, int group, int *steps,
                           long *chunk)
{
    if (s->opt.fidelity != ENG_FLOW || (t->flags & (TG_FLAG_STAGED | TG_FLAG_CYCLE)) ||
        !s->ring_priv ||
        (t->op != TG_ALLGATHER && t->op != TG_REDUCE_SCATTER && t->op != TG_ALLREDUCE) ||
        !s->ring_priv[group] || (t->op == TG_ALLREDUCE && s->hier[group]))
        return false;
    int n = s->g->groups[group].n;
    *steps = t->op == TG_ALLREDUCE ? 2 * (n - 1) : n - 1;
    *chunk = eng_chunk_bytes(t->op == TG_ALLGATHER ? t->amount : t->amount / n);
    return n >= 2 && *steps >= 1;
}

/* Can every member of v go on from r->seg_at[] to a collective on ring r after its kernels?
 * Sets each member's collective (r->seg_task[]) and its steps and chunk, which must agree. */
static bool next_collective(eng_sim *s, eng_ring v, eng_pring *r, int *steps, long *chunk)
{
    for (int i = 0; i < v.n; i++) {
        int rank = eng_ring_member(v, i), st;
        long ch;
        double t = 0;
        int c = eng_kernels_ahead(s, rank, r->seg_at[i], &t, false);
        const tg_rank *list = &s->g->ranks[rank];
        if (c >= list->n_tasks)
            return false;
        const tg_task *task = &list->tasks[c];
        int group = tg_peer(s->g, rank, task);
        if (!eng_private_ring_task(s, task, group, &st, &ch) || s->ring_priv[group] != r ||
            (i > 0 && (st != *steps || ch != *chunk)))
            return false;
        r->seg_task[i] = c;
        *steps = st, *chunk = ch;
    }
    return true;
}

/* Collective task c of rank, from arrive_s to end_s: recorded and accounted for, and its
 * message counted unless it was already (count). */
static void account_collective(eng_sim *s, int rank, int c, double arrive_s, double end_s,
                               double bytes, bool count)
{
    eng_rank_state *st = &s->rs[rank];
    if (s->start_s) {
        s->start_s[rank][c] = arrive_s;
        s->end_s[rank][c] = end_s;
    }
    st->busy_s[1] += end_s - arrive_s;
    st->last_end_s[1] = end_s;
    if (count) {
        s->in_segments++;
        s->messages++, s->computed++, s->messages_received++;
        s->bytes_sent += bytes, s->bytes_received += bytes;
    }
}

/* When a collective whose last member arrived at release_s and whose slowest message arrives
 * at end_s lets its members go: eng_sleep_until's date. */
static double wake_s(double release_s, double end_s)
{
    return end_s - release_s >= ENG_SURF_PRECISION ? end_s : release_s;
}

/* The members of v have met at a collective of `bytes` (r->end_s computed, each member's
 * arrival in r->arrive_s): every one of them one actor running its list in order? Then each
 * one's list index after it (r->seg_at[]) and date (r->seg_end_s[]) when it lets them go. */
static bool members_ready(const eng_sim *s, eng_ring v, eng_pring *r)
{
    double release_s = simgrid_get_clock(), end = wake_s(release_s, r->end_s);
    for (int i = 0; i < v.n; i++) {
        int rank = eng_ring_member(v, i);
        if (!s->one_actor[rank])
            return false;
        r->seg_at[i] = s->rs[rank].current[1] + 1;
        r->seg_end_s[i] = end;
    }
    return true;
}

/* Extend the collective the members of v have just met at over what follows, for every
 * member: r->seg_at[] where it goes on and r->seg_end_s[] when, or seg_at -1 when nothing
 * that follows can be computed. Called by the first member to go on, before any sleeps. */
static void plan_segment(eng_sim *s, eng_ring v, eng_pring *r, double first_bytes)
{
    int n = v.n, k = 0, steps = 0;
    long chunk = 0;
    if (members_ready(s, v, r))
        for (; next_collective(s, v, r, &steps, &chunk); k++) {
            double last_s = 0, bytes = (double)steps * (double)chunk;
            for (int i = 0; i < n; i++) {
                int rank = eng_ring_member(v, i);
                if (k == 0) /* the collective they met at, first in each member's order */
                    account_collective(s, rank, r->seg_at[i] - 1, r->arrive_s[i],
                                       r->seg_end_s[i], first_bytes, false);
                double t = r->seg_end_s[i];
                eng_kernels_ahead(s, rank, r->seg_at[i], &t, true);
                r->arrive_s[i] = t;
                last_s = t > last_s ? t : last_s;
            }
            double end = wake_s(last_s, eng_flow_end(s, v, steps, bytes));
            for (int i = 0; i < n; i++) {
                int rank = eng_ring_member(v, i);
                account_collective(s, rank, r->seg_task[i], r->arrive_s[i], end, bytes, true);
                r->seg_at[i] = r->seg_task[i] + 1;
                r->seg_end_s[i] = end;
            }
        }
    for (int i = 0; k == 0 && i < n; i++)
        r->seg_at[i] = -1;
}

void eng_private_segment(eng_sim *s, int rank, eng_ring v, int steps, long chunk)
{
    eng_pring *r = v.priv;
    if (eng_private_meet(s, v, steps, chunk)) /* the first member to go on plans for all */
        plan_segment(s, v, r, (double)steps * (double)chunk);
    if (r->seg_at[v.pos] < 0) {
        eng_sleep_until(r->end_s);
        return;
    }
    s->rs[rank].seg_next = r->seg_at[v.pos];
    eng_sleep_until(r->seg_end_s[v.pos]);
}
