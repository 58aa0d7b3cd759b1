/* links_sg.h: what links.c asks of SimGrid through its C++ interface (links_sg.cpp); private to
 * the links module, not part of the public interface. */
#ifndef LINKS_SG_H
#define LINKS_SG_H

#include <simgrid/forward.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Told of every engine message when its sender's wait on it returns: the hosts it went between,
 * its payload, and when SimGrid's transfer started (sender and receiver both there) and ended. */
typedef void (*lk_sg_sink)(void *ctx, sg_host_t src, sg_host_t dst, double bytes,
                           double start_s, double end_s);

/* Send every message from now on to fn (NULL: stop); forgets messages still in flight.
 * -1 (and nothing changes) if fn is not NULL and another sink is set. */
int lk_sg_set_sink(lk_sg_sink fn, void *ctx);

/* Messages posted since lk_sg_set_sink that never reached the sink: still in flight, or
 * completed without timing (a blocking put). */
long lk_sg_lost(void);

/* Put `bytes` into the mailbox capped at rate_Bps (0: no cap), in the calling actor; returns
 * when a receiver has it, with the transfer's start and end. Not seen by the sink. */
void lk_sg_send_capped(sg_mailbox_t mailbox, double bytes, double rate_Bps, double *start_s,
                       double *end_s);

#ifdef __cplusplus
}
#endif

#endif
