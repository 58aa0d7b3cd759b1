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
 * resident (measured below): a job is refused before its platform is built when the memory
 * available cannot hold them (eng_fit_job), and again before its actors start (its actors are
 * known then). */
#include "engine_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xbt/config.h>

/* Resident memory per actor, all in: its stack's touched pages, SimGrid's actor and context,
 * the rank's task graph and engine state. Measured with /usr/bin/time on ResNet-50 data
 * parallelism, 4,096 to 16,384 GPUs (about 20 KiB a rank; README "Speed"), with room to spare. */
#define ENG_ACTOR_BYTES (32.0 * 1024)
/* Resident memory per GPU of the platform built in SimGrid (its host, its node's share of
 * the CPU host, links, zones and routes): 8 to 8.5 KiB measured on 17,408 and 65,536 GPUs. */
#define ENG_PLATFORM_GPU_BYTES (10.0 * 1024)
/* Mappings kept free for everything else the process maps while it runs. */
#define ENG_MAP_SPARE 4096

/* The first number in a /proc file after `key` (whole file when key is NULL); -1 if none. */
static long proc_number(const char *path, const char *key)
{
    FILE *f = fopen(path, "r");
    char line[256];
    long v = -1;
    if (!f)
        return -1;
    while (v < 0 && fgets(line, sizeof line, f)) {
        const char *at = key ? strstr(line, key) : line;
        if (at)
            v = strtol(at + (key ? strlen(key) : 0), NULL, 10);
    }
    fclose(f);
    return v;
}

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

/* The memory available to this process (MemAvailable), in bytes; -1 if unknown. */
static double available_bytes(void)
{
    long kib = proc_number("/proc/meminfo", "MemAvailable:");
    return kib > 0 ? kib * 1024.0 : -1;
}

/* With the user's guard pages (--cfg contexts/guard-size:N, N > 0), do n_actors stacks fit the
 * mappings the system allows? Returns 1 when the mappings fit, 0 when they do not and guard
 * pages are hybridsim's to choose, or HS_EINPUT with what is needed. */
static int guard_pages_fit(long n_actors, char *err)
{
    long max_maps = proc_number("/proc/sys/vm/max_map_count", NULL);
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

int eng_fit_job(long built_gpus, long ranks, char *err)
{
    double need = built_gpus * ENG_PLATFORM_GPU_BYTES + ranks * ENG_ACTOR_BYTES;
    double avail = available_bytes();
    if (avail > 0 && need > avail)
        return hs_fail(err, HS_EINPUT,
                       "simulating %ld GPUs on a machine of which %ld GPUs are built needs about "
                       "%.1f GB of memory (%.0f KiB a GPU built, %.0f KiB a rank), and %.1f GB are "
                       "available: simulate fewer GPUs, or on a machine with more memory",
                       ranks, built_gpus, need / 1e9, ENG_PLATFORM_GPU_BYTES / 1024,
                       ENG_ACTOR_BYTES / 1024, avail / 1e9);
    int fit = guard_pages_fit(ranks, err); /* a rank has one actor at least */
    return fit < 0 ? -fit : HS_OK;
}

int eng_fit_actors(long n_actors, char *err)
{
    int fit = guard_pages_fit(n_actors, err);
    if (fit < 0)
        return -fit;
    if (!plat_engine_cfg("contexts/guard-size"))
        sg_cfg_set_int("contexts/guard-size", fit);
    double need_gb = n_actors * ENG_ACTOR_BYTES / 1e9, avail_gb = available_bytes() / 1e9;
    if (avail_gb > 0 && need_gb > avail_gb)
        return hs_fail(err, HS_EINPUT,
                       "%ld actors need about %.1f GB of memory (%.0f KiB each), and %.1f GB are "
                       "available: simulate fewer GPUs, or on a machine with more memory",
                       n_actors, need_gb, ENG_ACTOR_BYTES / 1024, avail_gb);
    return HS_OK;
}
