/* engine_fit.c: do a run's actors fit this machine? Decided before the first actor starts,
 * so that SimGrid never aborts half-way (engine_int.h's eng_fit_actors).
 *
 * Each actor has a stack (contexts/stack-size, 256 KiB of address space, a few KiB touched).
 * With a guard page below it (contexts/guard-size:1, SimGrid's default) an overflow faults
 * instead of corrupting a neighbour, but every stack then costs two memory mappings, and
 * Linux caps a process's mappings (vm.max_map_count, 65,530 by default): SimGrid 3.32 aborts
 * with "Failed to protect stack" past about 32,000 actors. So guard pages are kept while they
 * fit, with room to spare, and dropped beyond: the stacks are then plain mmapped blocks that
 * merge into few mappings (platform_sg.c sets malloc up for that) and cost no more memory.
 * A user's --cfg contexts/guard-size is obeyed, or the run refused with what it needs.
 * Memory: a built GPU and an actor cost about ENG_PLATFORM_GPU_BYTES and ENG_ACTOR_BYTES
 * resident (measured below), and an actor maps its whole stack (and guard pages) besides: a job
 * is refused before its platform is built when they do not fit every limit in force (hs_mem.h:
 * ulimit -v and -d, the memory cgroup, the memory available; eng_fit_job), and again before its
 * actors start (its actors are known then). */
#include "engine_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <xbt/config.h>

#include "hs_mem.h"

/* Resident memory per actor, all in: its stack's touched pages, SimGrid's actor and context,
 * the rank's task graph and engine state. Measured with /usr/bin/time on ResNet-50 data
 * parallelism, 4,096 to 16,384 GPUs (about 20 KiB a rank, measured by experiments/bench/), with room to spare. */
#define ENG_ACTOR_BYTES (32.0 * 1024)
/* Resident memory per GPU of the platform built in SimGrid (its host, its node's share of
 * the CPU host, links, zones and routes): 8 to 8.5 KiB measured on 17,408 and 65,536 GPUs. */
#define ENG_PLATFORM_GPU_BYTES (10.0 * 1024)
/* Mappings kept free for everything else the process maps while it runs. */
#define ENG_MAP_SPARE 4096

static long mappings_now(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    long n = 0;
    int c;
    if (!f)
        return 0;
    while ((c = fgetc(f)) != EOF)
        n += c == '\n';
    fclose(f);
    return n;
}

/* With the user's guard pages (--cfg contexts/guard-size:N, N > 0), do n_actors stacks fit the
 * mappings the system allows? Returns 1 when the mappings fit, 0 when they do not and guard
 * pages are hybridsim's to choose, or HS_EINPUT with what is needed. */
static int guard_pages_fit(long n_actors, char *err)
{
    long max_maps = (long)hs_mem_file_number("/proc/sys/vm/max_map_count", NULL);
    long need_maps = mappings_now() + 2 * n_actors + ENG_MAP_SPARE;
    const char *given = plat_engine_cfg("contexts/guard-size");
    if (max_maps < 0 || need_maps <= max_maps)
        return 1;
    if (!given || atol(given) == 0)
        return 0;
    return -hs_fail(err, HS_EINPUT,
                    "%ld actors with guard pages (--cfg contexts/guard-size:%s) need %ld memory "
                    "mappings, and this system allows %ld (vm.max_map_count): drop that setting "
                    "(hybridsim then leaves guard pages out), or raise the limit (sysctl -w "
                    "vm.max_map_count=%ld)",
                    n_actors, given, need_maps, max_maps, 2 * need_maps);
}

/* The address space an actor maps beyond ENG_ACTOR_BYTES: its stack and guard pages. */
static double stack_bytes(int guard_pages)
{
    return plat_engine_stack_bytes() + guard_pages * (double)sysconf(_SC_PAGESIZE);
}

/* Fits every memory limit in force (hs_mem.h)? `built_gpus` of platform still to build. */
static int fit_memory(long built_gpus, long n_actors, int guard_pages, const char *what,
                      char *err)
{
    double platform = built_gpus * ENG_PLATFORM_GPU_BYTES;
    double resident = platform + n_actors * ENG_ACTOR_BYTES;
    double mapped = resident + n_actors * stack_bytes(guard_pages);
    hs_mem_need need = {.address_bytes = mapped, .data_bytes = mapped,
                        .resident_bytes = resident};
    char advice[256];
    snprintf(advice, sizeof advice,
             "simulate fewer GPUs, or raise the limit (an actor maps a %.0f KiB stack and about "
             "%.0f KiB more; --cfg contexts/stack-size:32 gives it 32 KiB, enough for every "
             "strategy)", plat_engine_stack_bytes() / 1024, ENG_ACTOR_BYTES / 1024);
    return hs_mem_check(&need, what, advice, err);
}

int eng_fit_job(long built_gpus, long ranks, char *err)
{
    const char *given = plat_engine_cfg("contexts/guard-size");
    char what[64];
    snprintf(what, sizeof what, "simulating %ld GPUs", ranks);
    int status = fit_memory(built_gpus, ranks, given ? atoi(given) : 1, what, err);
    if (status != HS_OK) /* a rank has one actor at least */
        return status;
    int fit = guard_pages_fit(ranks, err);
    return fit < 0 ? -fit : HS_OK;
}

int eng_fit_actors(long n_actors, char *err)
{
    int fit = guard_pages_fit(n_actors, err);
    if (fit < 0)
        return -fit;
    const char *given = plat_engine_cfg("contexts/guard-size");
    if (!given)
        sg_cfg_set_int("contexts/guard-size", fit);
    char what[64];
    snprintf(what, sizeof what, "running %ld actors", n_actors);
    return fit_memory(0, n_actors, given ? atoi(given) : fit, what, err);
}
