/* platcheck.h: checks a platform file before SimGrid sees it (private to platforms/).
 *
 * SimGrid aborts the process on most errors in a platform file. plat_load therefore reads the
 * file once with libxml2 first and turns every problem it can foresee into "file:line: what"
 * with HS_EINPUT: malformed XML, unknown elements, missing or unparsable attributes, duplicate
 * names, routes naming links or nodes not declared before, split-duplex directions, the
 * hybridsim properties of the root zone, and GPU hosts numbered n<node>-gpu<g> without gaps. */
#ifndef PLATCHECK_H
#define PLATCHECK_H

#include "platform.h"

/* What the check learns about the machine: the root zone's hybridsim properties and the GPU
 * hosts' names in rank order. */
typedef struct plat_facts {
    int nodes;                 /* hybridsim:nodes */
    int gpus_per_node;         /* hybridsim:gpus_per_node */
    int nodes_per_leaf;        /* hybridsim:nodes_per_leaf */
    int leaves_per_rack;       /* hybridsim:leaves_per_rack */
    double gpu_memory_bytes;   /* hybridsim:gpu_memory_bytes */
    double staging_latency_s;  /* hybridsim:staging_latency_s */
    char gpu_model[PLAT_NAME_LEN]; /* hybridsim:gpu_model */
    char gpu_device[PLAT_NAME_LEN]; /* hybridsim:gpu_device, a device-table name; "" when
                                     * the file has none (it is optional) */
    int n_gpus;                /* nodes * gpus_per_node */
    char **gpu_names;          /* n_gpus host names, GPU g of node n at n*gpus_per_node+g */
} plat_facts;

/* Check the file at path; on success fill facts (free with plat_facts_free). */
int plat_check_file(const char *path, plat_facts *facts, char *err);

void plat_facts_free(plat_facts *facts);

#endif
