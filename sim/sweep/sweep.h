/* sweep.h: `hybridsim sweep`, many runs of hybridsim gathered into one CSV.
 *
 * A sweep is the cross product of lists: workloads x platforms x strategies x GPU counts x batch
 * rules x micro-batches x placements x collectives fidelities, given in a sweep file
 * (experiments/sweeps/example.sweep documents the format) or as flags with comma lists. Every
 * configuration runs in its own process (SimGrid allows one engine per process), --jobs at a
 * time, and becomes one CSV row: analytic and simulated iteration and epoch times, memory,
 * agreement, the run's wall time, its status and error message. Rows are appended whole as runs
 * finish, so an interrupted sweep resumes where it stopped; a finished sweep's CSV is in
 * configuration order. --emit writes the runs as a GNU parallel job list or a Slurm job array
 * instead, and --merge gathers what those jobs wrote into the same CSV.
 *
 * Folder: sim/sweep/ (this is its main header): many runs, each in a process of its own, into one
 * CSV (sw_; sweep_int.h lists the files). May include workloads/, platforms/ (to read a platform
 * file's head, never to load it), json-c; it runs hybridsim itself rather than calling the
 * derivations. */
#ifndef SWEEP_H
#define SWEEP_H

#include "hs_error.h"

/* argv[0] is "sweep". Returns HS_OK, HS_EINPUT (a bad flag, sweep file line, or CSV, named in
 * err), HS_EINTERNAL (a system failure) or HS_SIGNALLED(sig) (hs_out.h: interrupted by SIGINT,
 * SIGTERM or SIGHUP; err says how far it got). Progress goes to stderr, nothing to stdout. */
int sw_main(int argc, char **argv, char *err);

#endif
