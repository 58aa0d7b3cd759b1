/* engine_sg.cpp: what engine_p2p.c needs of SimGrid that the C API of SimGrid 3.32 lacks, behind
 * extern "C" (engine_int.h): a mailbox's permanent receiver, emptying a mailbox, a blocking put
 * and get in one SimGrid call, whether a message has ended, and an actor moved to another
 * host (alone, or in one call with a post or an emptying).
 *
 * A mailbox with a permanent receiver starts a message as soon as it is posted, from its
 * sender's host to its receiver's, without the receiver asking (SimGrid's eager mode: the
 * message waits, started or done, in the mailbox's list of received messages, whence a later
 * receive takes it). engine_p2p.c gives each rank that sends staged messages as its own relay a
 * mailbox whose receiver stands on the rank's host memory: the copy up of such a message is a
 * put into it from the GPU, the same flow a relay's receive made.
 *
 * Every SimGrid call of an actor is a visit by SimGrid's scheduler: the actor yields to it and
 * is switched back in, its stack and SimGrid's state of it in the cache again, which is what a
 * large run pays per call (thousands of actors do not fit the caches). The C API's blocking
 * sg_mailbox_put and sg_mailbox_get post, then wait: two calls. A Comm waited for before it was
 * started does both in one (SimGrid 3.32's Comm::wait_for on an unstarted Comm: Comm::send or
 * Comm::recv, posting and waiting in the same kernel step), the same message at the same date.
 * A move (s4u's Actor::set_host) stays a call: doing its kernel half from the actor would save
 * 4% of the instructions of data+spatial on 1,024 GPUs, but only by binding a symbol SimGrid's
 * headers do not declare. It can share its call with the call before or after it, though:
 * simcall_answered (simgrid/simix.hpp) runs a function in SimGrid's kernel, and s4u calls made
 * from there run at once, not as calls of their own. A post and a move in one call happen in
 * the same order as in two (the post first: the message leaves from where the actor was), at
 * the same date, within one visit of the actor. */
#include <simgrid/actor.h>
#include <simgrid/mailbox.h>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Mailbox.hpp>
#include <simgrid/simix.hpp>

extern "C" void eng_mbox_set_receiver(sg_mailbox_t mailbox, sg_actor_t receiver)
{
    mailbox->set_receiver(simgrid::s4u::ActorPtr(receiver)); /* nullptr: none */
}

extern "C" void eng_mbox_clear(sg_mailbox_t mailbox)
{
    mailbox->clear();
}

/* What a blocking put and get made of an unstarted Comm run (Comm::wait_for calls Comm::send or
 * Comm::recv with the Comm's fields: no match or copy function, no data, no timeout, no rate
 * cap, a pointer as the payload), called directly: no Comm object is made and freed per
 * message, and the actor's stack is two frames shallower where it yields (a data+spatial
 * rank's deepest, about 2.4 KiB, is a lone receive's). The Comm's signals are left out: the
 * wait's on_send and on_completion matter to link statistics only, which time posted messages
 * (sim/observe/links_sg.cpp), never these (engine_int.h). */
namespace {
const std::function<bool(void *, void *, simgrid::kernel::activity::CommImpl *)> no_match;
const std::function<void(simgrid::kernel::activity::CommImpl *, void *, size_t)> no_copy;
} // namespace

extern "C" void eng_mbox_put(sg_mailbox_t mailbox, void *payload, long bytes)
{
    simgrid::s4u::Comm::send(simgrid::s4u::Actor::self()->get_impl(), mailbox,
                             (double)(uint64_t)bytes, -1.0, payload, sizeof(void *), no_match,
                             no_copy, nullptr, -1.0);
}

extern "C" void *eng_mbox_get(sg_mailbox_t mailbox)
{
    void *payload = nullptr;
    size_t size = sizeof payload;
    simgrid::s4u::Comm::recv(simgrid::s4u::Actor::self()->get_impl(), mailbox, &payload, &size,
                             no_match, no_copy, nullptr, -1.0, -1.0);
    return payload;
}

/* A started message has a flow until it ends; SimGrid drops the flow when it ends (its
 * remaining amount is then 0), before any actor runs at that date. */
extern "C" bool eng_comm_over(sg_comm_t comm)
{
    return comm->get_remaining() <= 0;
}

extern "C" void eng_actor_move(sg_host_t host)
{
    simgrid::s4u::Actor::self()->set_host(host);
}

/* put_init, unlike a post, is no call: it names the calling actor as the sender, which the
 * kernel then reads (not the kernel's current actor) when it starts the Comm. */
extern "C" sg_comm_t eng_put_async_move(sg_mailbox_t mailbox, void *payload, long bytes,
                                        sg_host_t host)
{
    simgrid::s4u::CommPtr comm = mailbox->put_init(payload, (uint64_t)bytes);
    simgrid::s4u::Actor *self = simgrid::s4u::Actor::self();
    simgrid::kernel::actor::simcall_answered([&comm, self, host] {
        comm->vetoable_start();
        self->set_host(host);
    });
    comm->add_ref();
    return comm.get();
}

extern "C" void eng_mbox_clear_move(sg_mailbox_t mailbox, sg_host_t host)
{
    simgrid::s4u::Actor *self = simgrid::s4u::Actor::self();
    simgrid::kernel::actor::simcall_answered([mailbox, self, host] {
        mailbox->clear();
        self->set_host(host);
    });
}
