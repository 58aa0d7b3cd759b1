/* common.h: workloads/common/, the vocabulary every module of hybridsim speaks: the folder's
 * main header.
 *
 *   hs_error.h     the error convention: a status (0, 2 bad input, 1 internal) and a message
 *   hs_parse.h     numbers and lists of ranges the user typed, one parser per kind of value
 *   units.h        quantities with units, "12.5GBps", "9us" (un_)
 *   estimate.h     the answer either derivation gives (hs_estimate) and what communication is
 *                  for (hs_term)
 *   hs_json.h      the one JSON writer: commas, nesting, escaped strings, %.17g numbers
 *   hs_xml.h       XML text, escaped alike by every writer
 *   hs_names.h     the short names a folder offers, for messages
 *   hs_out.h       every file written (never a device replaced, never half a file) and the
 *                  signals that interrupt a run
 *   hs_mem.h       the memory limits in force (ulimit -v/-d, the cgroup, MemAvailable) and
 *                  whether a run fits them
 *   hs_grow.h      the growable array (capacity doubled as it fills)
 *   hs_child.h     the one way to run a child process: exec or a function after fork, its
 *                  stderr line by line, its answer, a deadline, signals forwarded, its end
 *                  (one simulation per process: SimGrid's rule)
 *   collective.h   the allreduce algorithms (ring, hier, tree, rings, NCCL's choice) and their
 *                  shapes, shared by the closed form and the simulator (co_)
 *   device.h       the GPUs' spec sheets: SMs, peak FLOP rates, memory, bandwidth (dv_)
 *
 * Folder: workloads/common/ sits below everything and includes nothing of hybridsim; every
 * other folder may include it. */
#ifndef COMMON_H
#define COMMON_H

#include "collective.h"
#include "device.h"
#include "estimate.h"
#include "hs_child.h"
#include "hs_error.h"
#include "hs_grow.h"
#include "hs_json.h"
#include "hs_mem.h"
#include "hs_xml.h"
#include "hs_names.h"
#include "hs_out.h"
#include "hs_parse.h"
#include "units.h"

#endif
