/* run.h: sim/run/, one simulated run of one job: the folder's public face.
 *
 * A job (job.h) is loaded and checked against a platform, then simulated (simulate.h):
 * expanded into task graphs (sim/expand), placed on GPUs (platforms' placement), run on
 * SimGrid (sim/engine) and read off (sim/observe). The shared fabric (sim/fabric), compare
 * (sim/compare) and the command line (sim/cli) run jobs through here. May include: workloads/,
 * platforms/, sim/expand, sim/engine, sim/observe; never analytic/. */
#ifndef RUN_H
#define RUN_H

#include "job.h"
#include "simulate.h"

#endif
