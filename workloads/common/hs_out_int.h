/* hs_out_int.h: what the two files of hs_out share (hs_out.h is the module's public face).
 *   hs_out.c         output paths: what they are, opening, committing, reading back, stdout
 *   hs_out_signal.c  the list of outputs the signal handler reads, and the handler
 * Nothing here is for use outside workloads/common/hs_out*.c. */
#ifndef HS_OUT_INT_H
#define HS_OUT_INT_H

#include <signal.h>

/* What an output in the list is. */
typedef enum {
    HS_OUT_FREE,         /* the entry is unused */
    HS_OUT_CREATING,     /* a temp that will become a new file */
    HS_OUT_REPLACING,    /* a temp that will replace an existing file */
    HS_OUT_IN_PLACE,     /* written where it is (a device, a FIFO, a log) */
    HS_OUT_WRITTEN,      /* committed */
    HS_OUT_PLANNED       /* checked up front (hs_out_check), not opened yet */
} hs_out_state;

/* Block the interrupting signals while the list and the files it names change together
 * (a temp created and listed, renamed and marked written), then restore the mask. */
void hs_out__hold(sigset_t *saved);
void hs_out__release(const sigset_t *saved);

/* List an output (shown: its path as given; tmp: the temp the handler removes, NULL if none,
 * kept by pointer until the entry changes). Returns its entry, -1 when the list is full (the
 * output is then written all the same, only not named or cleaned up on a signal). Called with
 * the signals held. */
int hs_out__track(const char *shown, const char *tmp, hs_out_state state);

/* List an output checked up front as planned (not written yet), once: hs_out__track then
 * takes over its entry, so that a signal before it is opened still names it. */
void hs_out__plan(const char *shown);

/* Change an entry's state (HS_OUT_WRITTEN, or HS_OUT_FREE to forget it). Signals held. */
void hs_out__mark(int slot, hs_out_state state);

#endif
