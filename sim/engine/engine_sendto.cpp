/* engine_sendto.cpp: a transfer between two hosts that no actor receives (SimGrid's
 * Comm::sendto_async), which the C API of SimGrid 3.32 lacks, behind extern "C" (engine_int.h,
 * eng_sendto_async). engine_p2p.c copies a synchronous message staged through host memory
 * into the host memory this way when its sender is its own relay: no actor stands on the host
 * memory to receive it.
 *
 * The transfer is the flow a mailbox message between actors on the same two hosts would be:
 * SimGrid's CommImpl::start creates the same network action from `from` to `to`. It is
 * announced with Comm::on_send, as a mailbox put is, so that link statistics (links_sg.cpp)
 * record it when its waiter's wait returns, as they record a put. */
#include <simgrid/comm.h>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Host.hpp>

extern "C" sg_comm_t eng_sendto_async(sg_host_t from, sg_host_t to, long bytes)
{
    simgrid::s4u::CommPtr comm = simgrid::s4u::Comm::sendto_init();
    comm->set_payload_size(bytes > 0 ? (uint64_t)bytes : 0);
    simgrid::s4u::Comm::on_send(*comm); /* the payload size is still its remaining amount */
    comm->set_source(from);
    comm->set_destination(to); /* starts it, unless it carries no byte: */
    if (comm->get_state() != simgrid::s4u::Activity::State::STARTED)
        comm->start();
    comm->add_ref(); /* the C handle's reference, dropped by sg_comm_wait */
    return comm.get();
}
