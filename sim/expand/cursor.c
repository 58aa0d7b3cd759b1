/* cursor.c: appending tasks to a rank's list in the blocking or the overlap order
 * (expand_int.h). */
#include "expand_int.h"

/* Append a task that needs the result of task `producer` (-1: nothing). In the overlap order
 * that is the dependency; in the blocking order the task written last is, which chains the
 * whole list into one sequence. Only a dependency on the other stream becomes `after`: the own
 * stream already runs in list order. Returns the task's index (-1 once out of memory). */
int ex_put(ex_cursor *c, tg_task t, int producer)
{
    if (c->oom)
        return -1;
    int dep = c->overlap ? producer : c->last;
    t.after = -1;
    if (dep >= 0 && tg_stream(&c->g->ranks[c->rank].tasks[dep]) != tg_stream(&t))
        t.after = dep;
    int i = tg_add(c->g, c->rank, t);
    if (i < 0) {
        c->oom = true;
        return -1;
    }
    c->last = i;
    return i;
}

int ex_exec(ex_cursor *c, tg_phase phase, int layer, double seconds, int producer)
{
    tg_task t = {.op = TG_EXEC, .phase = (uint8_t)phase, .algo = TG_ALGO_RING, .layer = layer,
                 .peer = -1, .amount = seconds};
    return ex_put(c, t, producer);
}

/* A collective, exchange or shift (peer = group index) or a send/receive (peer = rank);
 * flags: tg_task.flags. */
int ex_comm(ex_cursor *c, tg_op op, tg_phase phase, int layer, int peer, double bytes,
                   uint8_t flags, int producer)
{
    tg_task t = {.op = (uint8_t)op, .phase = (uint8_t)phase, .algo = TG_ALGO_RING,
                 .flags = flags, .layer = layer, .peer = peer, .amount = bytes};
    return ex_put(c, t, producer);
}

/* Send `send_bytes` to rank `to` while receiving `recv_bytes` from rank `from` (-1: no such
 * side): a TG_SHIFT over `group` ({to, from}) when there are both, else the one send or
 * receive. (A shift's amount is what it sends; it receives what its peer sends.) */
int ex_shift(ex_cursor *c, tg_phase phase, int layer, int to, int from, int group,
                    double send_bytes, double recv_bytes, uint8_t flags, int producer)
{
    if (to >= 0 && from >= 0)
        return ex_comm(c, TG_SHIFT, phase, layer, group, send_bytes, flags, producer);
    if (to >= 0)
        return ex_comm(c, TG_SEND, phase, layer, to, send_bytes, flags, producer);
    return ex_comm(c, TG_RECV, phase, layer, from, recv_bytes, flags, producer);
}

/* A halo exchange in a chain with neighbours lo and hi (-1: none): a synchronous send of the
 * upper face to hi, then the receive from lo; then the lower face down, the same way. The
 * rank at the end, with nobody to send to, receives first and frees its neighbour's send,
 * and so on back along the line. Staged through host memory. */
int ex_halo_chain(ex_cursor *c, tg_phase phase, int layer, int lo, int hi, double bytes,
                  int producer)
{
    int last = producer;
    for (int up = 1; up >= 0; up--) {
        int to = up ? hi : lo, from = up ? lo : hi;
        if (to >= 0)
            last = ex_comm(c, TG_SEND, phase, layer, to, bytes, TG_FLAG_STAGED | TG_FLAG_SYNC,
                           last);
        if (from >= 0)
            last = ex_comm(c, TG_RECV, phase, layer, from, bytes, TG_FLAG_STAGED, last);
    }
    return last;
}
