/* engine_p2p.c: point-to-point messages, the layer every algorithm of the engine sends
 * through (engine_int.h, "engine_p2p.c"): a message posted and received (counted), a message
 * staged through host memory by a relay actor, sends and receives posted at once, synchronous
 * sends.
 *
 * Every message goes through the rendezvous mailbox of its ordered (source, destination) rank
 * pair, so the messages of one pair match in program order whatever else is in flight. The
 * mailboxes are created before the simulation starts and kept in a hash table (engine_mbox.c),
 * so a message costs a probe, not a formatted name. A staged message between GPUs of a node
 * goes through a relay actor, or, sent synchronously (a halo chain's), its sender is its own
 * relay, at the same times (below). */
#include "engine_int.h"

#include <math.h>
#include <stdlib.h>

#include <simgrid/actor.h>
#include <simgrid/host.h>

/* Chunk sizes are whole bytes: SimGrid sizes messages in bytes. */
long eng_chunk_bytes(double bytes)
{
    return bytes > 0 ? (long)llround(bytes) : 0;
}

sg_comm_t eng_post_send(eng_sim *s, int src, int dst, long bytes)
{
    s->messages++;
    s->bytes_sent += (double)bytes;
    /* SimGrid refuses a NULL payload; the receiver ignores it anyway. */
    return sg_mailbox_put_async(eng_mbox(s, src, dst), s, bytes);
}

/* Can a lone message from src to dst be put in one SimGrid call (eng_mbox_put), waited for as
 * it is posted: it goes straight (not through a relay) and link statistics, which time a
 * message by its sender's wait on it, do not watch? */
static bool put_at_once(const eng_sim *s, int src, int dst, bool staged)
{
    return !s->opt.computed && !(staged && eng_relayed(s, src, dst));
}

/* The message from src to dst, posted and waited for in one SimGrid call (put_at_once). */
static void put_straight(eng_sim *s, int src, int dst, long bytes)
{
    s->messages++;
    s->bytes_sent += (double)bytes;
    eng_mbox_put(eng_mbox(s, src, dst), s, bytes);
}

/* A message staged through host memory (TG_FLAG_STAGED: MPI without GPUDirect) is copied from
 * the GPU into host memory and from there into the other GPU. Its callers sleep the platform's
 * staging latency before posting it (the software cost of the copies); then, between two GPUs
 * of a node whose platform declares its host memory (eng_sim.host_mem), it takes the PCIe
 * path, not NVLink: a relay actor on the sender's host memory (its CPU's, when the node has
 * two) receives it from the sender over the sender's PCIe link while it sends it on to the
 * receiver over the receiver's (and the link between the CPUs if the receiver hangs off the
 * other), both copies at once as pipelined staging does, so each half meets whatever else uses
 * its links. Otherwise
 * (other nodes: the route already crosses both PCIe links; or no host memory declared) it
 * takes its route.
 *
 * A relay that has delivered waits, idle, for its sender's next staged message (eng_relay):
 * an actor costs its stack's mappings and guard page to make and to undo, several times what
 * its two copies cost the simulator, and a rank stages one message after another (a halo
 * chain: tens of thousands a run). Idle relays are daemons: SimGrid ends them with the run. */
typedef struct {
    eng_sim *s;
    int src, dst;   /* the ranks */
    long bytes;
    bool copied;    /* both copies are done */
    sg_sem_t copied_sem; /* the receiver waits on it for them, or NULL while it does not */
    sg_sem_t delivered_sem; /* likewise a synchronous sender */
    int refs;       /* the relay and the receiver (and a synchronous sender): the last one
                     * out frees this */
} relay_arg;

/* A relay actor, kept by its sender (eng_sim.relay_idle[src] while idle). */
struct eng_relay {
    sg_sem_t go;          /* released when it has a message to relay */
    relay_arg *arg;       /* that message, NULL while idle */
    struct eng_relay *next; /* the next idle relay of the same sender */
};

static void relay_unref(relay_arg *a)
{
    if (--a->refs == 0) {
        if (a->copied_sem)
            sg_sem_destroy(a->copied_sem);
        if (a->delivered_sem)
            sg_sem_destroy(a->delivered_sem);
        free(a);
    }
}

/* Wait until both copies of a are done, on *sem (the receiver's or the synchronous sender's),
 * unless they are already: a semaphore that would not block still costs a SimGrid call, and
 * every call a visit of the actor by SimGrid's scheduler. The relay cannot finish between the
 * check and the wait: actors run one at a time and yield only inside a SimGrid call. */
static void relay_wait(relay_arg *a, sg_sem_t *sem)
{
    if (a->copied)
        return;
    *sem = sg_sem_init(0);
    sg_sem_acquire(*sem);
}

/* The relay ends (the run is over, or a deadlock ended it mid-copy): what it holds is freed. */
static void relay_exit(int failed, void *arg)
{
    (void)failed;
    eng_relay *r = arg;
    if (r->arg)
        relay_unref(r->arg);
    sg_sem_destroy(r->go);
    free(r);
}

/* The relay's message to the receiver carries the relay_arg as its payload (every other
 * message carries the eng_sim), so that the receiver can wait for the other copy too: the
 * data is not all there before both copies are done, whichever link was slower. */
static void relay_main(int argc, char **argv)
{
    (void)argc, (void)argv;
    eng_relay *r = sg_actor_self_get_data();
    sg_actor_on_exit(relay_exit, r);
    sg_actor_daemonize(sg_actor_self());
    for (;;) {
        sg_sem_acquire(r->go);
        relay_arg *a = r->arg;
        /* the copy down posted, then the copy up received in one blocking call (posted and
         * waited for in one SimGrid call: eng_mbox_get), then the copy down waited for */
        sg_comm_t down = sg_mailbox_put_async(eng_mbox(a->s, a->src, a->dst), a, a->bytes);
        (void)eng_mbox_get(eng_mbox_on(a->s, a->src, a->dst, 1));
        sg_comm_wait(down);
        a->copied = true;
        if (a->copied_sem)
            sg_sem_release(a->copied_sem);
        if (a->delivered_sem)
            sg_sem_release(a->delivered_sem);
        eng_sim *s = a->s;
        int src = a->src;
        r->arg = NULL;
        relay_unref(a);
        r->next = s->relay_idle[src];
        s->relay_idle[src] = r;
    }
}

/* Hand message a to an idle relay of its sender, or to a new one; false when out of memory. */
static bool relay_start(eng_sim *s, relay_arg *a)
{
    eng_relay *r = s->relay_idle[a->src];
    if (r) {
        s->relay_idle[a->src] = r->next;
    } else {
        if (!(r = calloc(1, sizeof *r)) || !(r->go = sg_sem_init(0))) {
            free(r);
            return false;
        }
        sg_actor_t relay = sg_actor_init("relay", s->host_mem[a->src]);
        sg_actor_set_data(relay, r);
        sg_actor_start(relay, relay_main, 0, NULL);
    }
    r->arg = a;
    sg_sem_release(r->go);
    return true;
}

/* A receive of `bytes` (as the receiver expects them) has completed with this payload: count
 * it, and if it came from a relay, wait for the relay's other copy as well. */
void eng_received(eng_sim *s, void *payload, long bytes)
{
    s->messages_received++;
    s->bytes_received += (double)bytes;
    if (!payload || payload == s)
        return;
    relay_arg *a = payload;
    relay_wait(a, &a->copied_sem);
    relay_unref(a);
}

bool eng_relayed(const eng_sim *s, int src, int dst)
{
    int gpn = s->plat->gpus_per_node > 0 ? s->plat->gpus_per_node : 1;
    return s->host_mem && s->host_mem[src] && s->host_mem[dst] &&
           s->gpu_of_rank[src] / gpn == s->gpu_of_rank[dst] / gpn;
}

/* A message from src to dst; with sync (a synchronous send), *sync gets its relay (to wait on
 * its copies, then unref) or NULL when it goes straight (the wait on the message is then
 * synchronous already). */
static sg_comm_t send_message(eng_sim *s, int src, int dst, long bytes, bool staged,
                              relay_arg **sync)
{
    if (sync)
        *sync = NULL;
    if (!staged || !eng_relayed(s, src, dst))
        return eng_post_send(s, src, dst, bytes);
    relay_arg *a = malloc(sizeof *a);
    if (!a) /* cannot relay: the message still arrives, over its route */
        return eng_post_send(s, src, dst, bytes);
    *a = (relay_arg){s, src, dst, bytes, false, NULL, NULL, sync ? 3 : 2};
    if (!relay_start(s, a)) {
        a->refs = 1, relay_unref(a);
        return eng_post_send(s, src, dst, bytes);
    }
    if (sync)
        *sync = a;
    s->messages++;
    s->bytes_sent += (double)bytes;
    return sg_mailbox_put_async(eng_mbox_on(s, src, dst, 1), s, bytes);
}

sg_comm_t eng_send(eng_sim *s, int src, int dst, long bytes, bool staged)
{
    return send_message(s, src, dst, bytes, staged, NULL);
}

/* The latency of the path a message from rank src to rank dst takes: a relayed one's two
 * halves run side by side, so the slower half's. */
double eng_edge_latency(const eng_sim *s, int src, int dst, bool staged)
{
    sg_host_t a = s->plat->gpus[s->gpu_of_rank[src]], b = s->plat->gpus[s->gpu_of_rank[dst]];
    if (!staged || !eng_relayed(s, src, dst))
        return sg_host_get_route_latency(a, b);
    double up_s = sg_host_get_route_latency(a, s->host_mem[src]);
    double down_s = sg_host_get_route_latency(s->host_mem[src], b); /* the relay's copy */
    return up_s > down_s ? up_s : down_s;
}

/* eng_sendrecv's messages posted and waited for together. Not inlined into it: its frame (the
 * messages, their payloads) would otherwise be on the stack of every lone receive too, where
 * the actor yields (run_collective in engine_comm.c says why that matters). */
static __attribute__((noinline)) void post_all(eng_sim *s, int rank, const int *to, int n_to,
                                               const int *from, int n_from, long b, bool staged)
{
    bool wide = n_to + n_from > 2;
    sg_comm_t pair[2], *c = wide ? s->rs[rank].scratch : pair;
    void *one[2], **payload = wide ? s->rs[rank].payloads : one;
    for (int i = 0; i < n_from; i++)
        c[i] = sg_mailbox_get_async(eng_mbox(s, from[i], rank), &payload[i]);
    if (staged && n_to > 0 && s->plat->staging_latency_s > 0)
        sg_actor_sleep_for(s->plat->staging_latency_s);
    for (int i = 0; i < n_to; i++)
        c[n_from + i] = send_message(s, rank, to[i], b, staged, NULL);
    sg_comm_wait_all(c, (size_t)(n_to + n_from));
    for (int i = 0; i < n_from; i++)
        eng_received(s, payload[i], b);
}

/* Receive from every rank of `from` and send to every rank of `to`, all posted at once and
 * waited for together; the receives first, so that peers' messages start as soon as they are
 * sent, then the staging (once: the messages are staged side by side), then the sends. A lone
 * receive (a halo chain's) is one blocking call: posted and waited for in one SimGrid call
 * (eng_mbox_get), not two; so is a lone send that goes straight, unless link statistics watch
 * (put_at_once). */
void eng_sendrecv(eng_sim *s, int rank, const int *to, int n_to, const int *from, int n_from,
                  double bytes, bool staged)
{
    long b = eng_chunk_bytes(bytes);
    if (n_to == 0 && n_from == 1) {
        eng_received(s, eng_mbox_get(eng_mbox(s, from[0], rank)), b);
        return;
    }
    if (n_to == 1 && n_from == 0 && put_at_once(s, rank, to[0], staged)) {
        if (staged && s->plat->staging_latency_s > 0)
            sg_actor_sleep_for(s->plat->staging_latency_s);
        put_straight(s, rank, to[0], b);
        return;
    }
    post_all(s, rank, to, n_to, from, n_from, b, staged);
}

/* ---- a synchronous sender as its own relay -------------------------------------------------
 *
 * A relay is an actor, and every SimGrid call of an actor is a visit by SimGrid's scheduler
 * into its stack: the relays cost their stacks in the cache and about half the calls of the
 * messages they carry (a halo chain of 4,096 GPUs: 4,096 relays). A synchronous sender waits
 * for both copies anyway (the delivery), so it does the relay's work itself: it posts the copy
 * up from its GPU, moves to the host memory (a copy's source is its sender's host when the copy
 * starts, at the rendezvous), posts the copy down into the pair's mailbox from there, as the
 * relay did, waits for both, tells the receiver (eng_received) and moves back. The copies
 * start at the same date as the relay's and take the same routes: the receiver cannot tell
 * them apart. The post up and the move are one SimGrid call, as are the move back and the
 * emptying of the mailbox (below; engine_sg.cpp), and unless link statistics watch, the copy
 * down is posted and waited for in one (eng_mbox_put): a message costs its sender four calls
 * (post up and move, put down, wait up, empty and move back) and the staging latency's sleep,
 * where SimGrid's C API takes seven and the sleep.
 *
 * The copy up goes into the rank's own mailbox, whose permanent receiver is a sink: an actor
 * on the rank's host memory that never runs (one per host memory). SimGrid starts a message
 * into such a mailbox as soon as it is posted, from the sender's host to the receiver's, and
 * keeps it in the mailbox, done, until someone receives it (engine_sg.cpp): nobody does, so the
 * sender empties its mailbox after each message, as it moves back, and the run's end empties
 * what a failed run left. Emptied every time, a copy's objects are freed while they are still
 * in the cache and reused by the next message; kept for eight messages, each rank held eight
 * done copies, and at 4,096 GPUs the heap they spread over no longer fitted the cache
 * (data+spatial, cachegrind with a 32 MiB last-level cache: 24.9M misses, 21.3M emptied every
 * time).
 * (SimGrid's host-to-host transfer, Comm::sendto, needs no receiver, but SimGrid 3.32 keeps
 * those in one list that it walks whole whenever one ends: with a halo in flight per spatial
 * group, a walk that grew with the GPUs squared, 7% of the instructions at 4,096 GPUs.) */

/* Does rank `rank` send a staged message as its own relay (eng_sync_send)? */
static bool sends_self_relayed(const eng_sim *s, int rank)
{
    const tg_rank *list = &s->g->ranks[rank];
    unsigned both = TG_FLAG_SYNC | TG_FLAG_STAGED;
    if (!s->host_mem || s->opt.relay_all)
        return false;
    for (int i = 0; i < list->n_tasks; i++) {
        const tg_task *t = &list->tasks[i];
        if (t->op == TG_SEND && (t->flags & both) == both &&
            eng_relayed(s, rank, tg_peer(s->g, rank, t)))
            return true;
    }
    return false;
}

/* A sink: the permanent receiver of its host memory's mailboxes of copies up. It never runs
 * after it starts: a daemon, ended with the run. */
static void sink_main(int argc, char **argv)
{
    (void)argc, (void)argv;
    eng_sim *s = sg_actor_self_get_data();
    sg_actor_daemonize(sg_actor_self());
    sg_sem_acquire(s->sink_sem); /* never released */
}

/* Calls fn for every rank that sends as its own relay, with start true for the first of each
 * run of such ranks on one host memory (ranks of a node are numbered in a row); returns how
 * many runs: the sinks needed. */
static long each_self_relaying(eng_sim *s, void (*fn)(eng_sim *, int, bool, void *), void *arg)
{
    long sinks = 0;
    sg_host_t last = NULL;
    for (int r = 0; s->host_mem && !s->opt.relay_all && r < s->g->n_ranks; r++) {
        if (!sends_self_relayed(s, r))
            continue;
        bool start = s->host_mem[r] != last;
        sinks += start;
        last = s->host_mem[r];
        if (fn)
            fn(s, r, start, arg);
    }
    return sinks;
}

long eng_sinks_count(const eng_sim *s)
{
    return each_self_relaying((eng_sim *)s, NULL, NULL);
}

/* Give rank r its mailbox of copies up, received by the sink *arg, made first if start. */
static void sink_for(eng_sim *s, int r, bool start, void *arg)
{
    sg_actor_t *sink = arg;
    if (start) {
        *sink = sg_actor_init("sink", s->host_mem[r]);
        sg_actor_set_data(*sink, s);
        sg_actor_start(*sink, sink_main, 0, NULL);
    }
    s->up_box[r] = eng_mbox_on(s, r, r, 1); /* its pair with itself: it sends nothing to itself */
    eng_mbox_set_receiver(s->up_box[r], *sink);
}

int eng_sinks_start(eng_sim *s, char *err)
{
    if (!s->host_mem || s->opt.relay_all) /* no rank can be its own relay */
        return HS_OK;
    s->up_box = calloc((size_t)s->g->n_ranks, sizeof *s->up_box); /* NULL: not its own relay */
    if (!s->up_box || !(s->sink_sem = sg_sem_init(0)))
        return hs_fail(err, HS_EINTERNAL, "out of memory for %d ranks", s->g->n_ranks);
    sg_actor_t sink = NULL;
    each_self_relaying(s, sink_for, &sink);
    return HS_OK;
}

void eng_sinks_release(eng_sim *s)
{
    for (int r = 0; s->up_box && r < s->g->n_ranks; r++)
        if (s->up_box[r]) { /* the copies up it still holds (a run that failed: some running) */
            eng_mbox_clear(s->up_box[r]);
            eng_mbox_set_receiver(s->up_box[r], NULL);
        }
    free(s->up_box);
    s->up_box = NULL;
    if (s->sink_sem)
        sg_sem_destroy(s->sink_sem);
    s->sink_sem = NULL;
}

/* The message from src to dst as its sender's own relay. Without memory for its relay_arg it
 * still takes both copies; its receiver then only waits for the copy down. */
static void sync_send_self_relayed(eng_sim *s, int src, int dst, long bytes)
{
    relay_arg *a = malloc(sizeof *a);
    if (a)
        *a = (relay_arg){s, src, dst, bytes, false, NULL, NULL, 2};
    s->messages++;
    s->self_relayed++;
    s->bytes_sent += (double)bytes;
    sg_comm_t up = eng_put_async_move(s->up_box[src], s, bytes, s->host_mem[src]);
    void *payload = a ? (void *)a : s;
    if (s->opt.computed) { /* link statistics time a message by its sender's wait */
        sg_comm_t down = sg_mailbox_put_async(eng_mbox(s, src, dst), payload, bytes);
        sg_comm_wait(up);
        sg_comm_wait(down);
    } else {
        eng_mbox_put(eng_mbox(s, src, dst), payload, bytes);
        /* The copy up usually ended first: tell the receiver now, not after one more call
         * (woken with this sender, it would otherwise wait for it on a semaphore). */
        if (a && bytes > 0 && eng_comm_over(up))
            a->copied = true;
        sg_comm_wait(up);
    }
    if (a) {
        a->copied = true;
        if (a->copied_sem)
            sg_sem_release(a->copied_sem);
        relay_unref(a);
    }
    /* the copy up is done (waited for): emptied from the mailbox at once, in the call that
     * moves back, so that its objects are freed while they are still in the cache */
    eng_mbox_clear_move(s->up_box[src], s->plat->gpus[s->gpu_of_rank[src]]);
}

/* A synchronous send (TG_FLAG_SYNC, MPI_Ssend): the sender goes on when the receiver has the
 * message, through a relay too (whose copy into host memory alone would free the sender). The
 * staging latency (the software of an MPI message without GPUDirect, per message: ParaDL
 * measured it end to end) is paid after the delivery: the send completes when the receiver's
 * side of the protocol has answered, so that a chain of synchronous sends pays it at every
 * hop, one after the other, as the closed form charges a chain. */
void eng_sync_send(eng_sim *s, int rank, int dst, double bytes, bool staged)
{
    if (staged && s->up_box && s->up_box[rank] && eng_relayed(s, rank, dst)) {
        sync_send_self_relayed(s, rank, dst, eng_chunk_bytes(bytes));
        if (s->plat->staging_latency_s > 0)
            sg_actor_sleep_for(s->plat->staging_latency_s);
        return;
    }
    relay_arg *relay = NULL;
    if (put_at_once(s, rank, dst, staged))
        put_straight(s, rank, dst, eng_chunk_bytes(bytes));
    else
        sg_comm_wait(send_message(s, rank, dst, eng_chunk_bytes(bytes), staged, &relay));
    if (relay) {
        relay_wait(relay, &relay->delivered_sem);
        relay_unref(relay);
    }
    if (staged && s->plat->staging_latency_s > 0)
        sg_actor_sleep_for(s->plat->staging_latency_s);
}
