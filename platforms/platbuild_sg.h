/* platbuild_sg.h: what platform_sg.c needs from SimGrid's C++ API, behind extern "C" (private
 * to platforms/; platbuild_sg.cpp). SimGrid 3.32's C API can neither build a platform nor
 * report a bad setting without aborting. */
#ifndef PLATBUILD_SG_H
#define PLATBUILD_SG_H

#include <stdbool.h>
#include <stddef.h>

#include <simgrid/forward.h>

#ifdef __cplusplus
extern "C" {
#endif

#include "platgen.h" /* and hs_error.h: C headers */

/* Build the machine of checked parameters in the SimGrid engine (started, empty): the racks r
 * with racks[r] != 0 (all when NULL), every element the walk names (pg_describe), as
 * simgrid_load_platform would from its XML, the host memories only if host_memory (or the
 * uplinks are routed). Fills gpus[g] for the GPUs built (others stay NULL) and host_mem[gpu]
 * (pg_memory_host) for them when built. HS_EINTERNAL with a message if SimGrid refuses. */
int psg_build(const pg_params *params, const unsigned char *racks, bool host_memory,
              sg_host_t *gpus, sg_host_t *host_mem, char *err);

/* A switch built as a SHARED link (platrouted_sg.hpp, psg_fatpipe): its nominal bandwidth
 * (B/s); 0 for every other link. */
double psg_switch_Bps(const_sg_link_t link);

/* Set SimGrid setting `name` to `value` (its text): 0, or -1 with SimGrid's reason in why. */
int psg_cfg_set(const char *name, const char *value, char *why, size_t len);

/* Shorten every actor stack (contexts/stack-size, whole KiB) by 32 bytes, so that malloc's
 * header and the stack fit the pages of the size asked (platform_sg.c says why). Once, after
 * the settings. */
void psg_stack_fit_pages(void);

#ifdef __cplusplus
}
#endif

#endif
