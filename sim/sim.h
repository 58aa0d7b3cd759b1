/* sim.h: sim/, the simulation and the program around both derivations: the folder's main
 * header (each subfolder has its own).
 *
 * The simulator, in the order data flows through it (none of these includes analytic/):
 *   expand/    strategy -> per-rank task graphs of kernels and collectives (ex_, tg_)
 *   engine/    task graphs run on SimGrid: two streams a rank, messages by algorithm (eng_)
 *   observe/   what the run did: the critical rank, per layer, links, a trace (cr_ bd_ lk_ tr_)
 *   run/       one job loaded and simulated (job_, sm_)
 *   fabric/    several jobs on one machine (fb_)
 * The front end, above both derivations:
 *   report/    estimates as tables, rows, JSON (rp_)
 *   compare/   the analytic model beside the simulation, and why they differ (cmp_): with cli,
 *              the only folders that include analytic/
 *   sweep/     many runs, one process each, one CSV (sw_)
 *   cli/       the command line (cli_) and main.c
 * CMakeLists.txt builds every folder as a library that sees only the folders it declares, so
 * these rules are checked by the compiler. */
#ifndef SIM_H
#define SIM_H

#include "compare.h"
#include "fabric.h"
#include "report.h"
#include "sweep.h"

#endif
