/* links_sg.cpp: the few SimGrid facts links.c needs that the C API of SimGrid 3.32 does not give
 * (links_sg.h), behind extern "C". Nothing else of hybridsim is C++.
 *
 * Every message of the engine is an s4u Comm put into a mailbox. SimGrid fires Comm::on_send
 * when the sender posts it (its payload size is still readable then, as the remaining amount)
 * and Activity::on_completion when an actor's wait on it returns; by then the Comm knows when
 * the network transfer really started (the rendezvous, which is also when SimGrid's flow is
 * created) and finished, and between which hosts. So the sink learns, per message, exactly what
 * SimGrid simulated, without any change to the engine. Messages are keyed by their Comm while
 * in flight; the receiver's Comm is another object and is ignored.
 *
 * The signals cannot be disconnected in 3.32, so they are connected once and forward to the
 * current sink, NULL when nobody collects: the one piece of global state, forced by SimGrid's
 * callbacks. */
#include "links_sg.h"

#include <simgrid/s4u/Activity.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Mailbox.hpp>

#include <unordered_map>

namespace {

struct sink_state {
    lk_sg_sink fn = nullptr;                                  /* NULL: not collecting */
    void *ctx = nullptr;
    std::unordered_map<const simgrid::s4u::Comm *, double> in_flight; /* Comm -> bytes */
    long untimed = 0;                                         /* completions without timing */
    bool connected = false;
    bool muted = false;                                       /* posting background traffic */
};

sink_state state;

void on_send(const simgrid::s4u::Comm &comm)
{
    if (state.fn && !state.muted)
        state.in_flight[&comm] = comm.get_remaining(); /* still the payload size: not started */
}

void on_completion(const simgrid::s4u::Activity &activity)
{
    if (!state.fn || state.in_flight.empty())
        return;
    const auto *comm = dynamic_cast<const simgrid::s4u::Comm *>(&activity);
    if (!comm)
        return;
    auto it = state.in_flight.find(comm);
    if (it == state.in_flight.end())
        return;
    double bytes = it->second;
    state.in_flight.erase(it);
    /* A blocking put keeps no implementation object in its Comm, so it cannot be timed; the
     * engine only posts asynchronous ones, and the caller checks that nothing was lost. */
    if (!comm->get_impl() || !comm->get_source() || !comm->get_destination()) {
        state.untimed++;
        return;
    }
    state.fn(state.ctx, comm->get_source(), comm->get_destination(), bytes,
             comm->get_start_time(), comm->get_finish_time());
}

} // namespace

extern "C" int lk_sg_set_sink(lk_sg_sink fn, void *ctx)
{
    if (fn && state.fn)
        return -1;
    if (!state.connected) {
        simgrid::s4u::Comm::on_send_cb(on_send);
        simgrid::s4u::Activity::on_completion_cb(on_completion);
        state.connected = true;
    }
    state.fn = fn;
    state.ctx = ctx;
    state.in_flight.clear();
    state.untimed = 0;
    return 0;
}

extern "C" long lk_sg_lost(void)
{
    return state.untimed + (long)state.in_flight.size();
}

extern "C" void lk_sg_send_capped(sg_mailbox_t mailbox, double bytes, double rate_Bps,
                                  double *start_s, double *end_s)
{
    static char payload; /* SimGrid wants one; nobody reads it */
    simgrid::s4u::CommPtr comm = mailbox->put_init(&payload, (uint64_t)bytes);
    /* A host-to-host Comm would need no receiver, but 3.32 ignores its rate. */
    if (rate_Bps > 0)
        comm->set_rate(rate_Bps);
    state.muted = true; /* on_send fires inside start(): not a job message */
    comm->start();
    state.muted = false;
    comm->wait();
    *start_s = comm->get_start_time();
    *end_s = comm->get_finish_time();
}
