/* engine_sg.cpp: what engine_p2p.c needs of SimGrid that the C API of SimGrid 3.32 lacks, behind
 * extern "C" (engine_int.h): a mailbox's permanent receiver, and emptying a mailbox.
 *
 * A mailbox with a permanent receiver starts a message as soon as it is posted, from its
 * sender's host to its receiver's, without the receiver asking (SimGrid's eager mode: the
 * message waits, started or done, in the mailbox's list of received messages, whence a later
 * receive takes it). engine_p2p.c gives each rank that sends staged messages as its own relay a
 * mailbox whose receiver stands on the rank's host memory: the copy up of such a message is a
 * put into it from the GPU, the same flow a relay's receive made. */
#include <simgrid/actor.h>
#include <simgrid/mailbox.h>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Mailbox.hpp>

extern "C" void eng_mbox_set_receiver(sg_mailbox_t mailbox, sg_actor_t receiver)
{
    mailbox->set_receiver(simgrid::s4u::ActorPtr(receiver)); /* nullptr: none */
}

extern "C" void eng_mbox_clear(sg_mailbox_t mailbox)
{
    mailbox->clear();
}
