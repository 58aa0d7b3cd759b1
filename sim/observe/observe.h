/* observe.h: sim/observe/, what a simulated run did, read off the engine's result: the folder's
 * main header.
 *
 *   critical.h     the rank that finished last: the iteration's times, its communication per
 *                  analytic term (cr_)
 *   breakdown.h    one rank's time per layer and phase (bd_)
 *   links.h        every link's bytes, busy time and utilisation, the congestion share (lk_;
 *                  links_int.h lists its files)
 *   trace.h        a Chrome trace-event file of the run (tr_)
 *
 * Folder: may include sim/engine, sim/expand, platforms/, workloads/ and SimGrid (links_sg.cpp
 * is the small C++ shim on SimGrid's signals); never analytic/. */
#ifndef OBSERVE_H
#define OBSERVE_H

#include "breakdown.h"
#include "critical.h"
#include "links.h"
#include "trace.h"

#endif
