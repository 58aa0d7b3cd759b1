/* hs_mem.h: may this process grow by so much? The memory a run will add, checked before it
 * starts against every limit in force, so that a run too large is refused with the limit that
 * binds instead of dying half-way: the address-space and data-segment limits (RLIMIT_AS,
 * `ulimit -v`; RLIMIT_DATA, `ulimit -d`), the address space a process has on this machine, the
 * memory cgroup the process is in (v2 memory.max and memory.high, v1 memory.limit_in_bytes,
 * each of its ancestors too) and the memory the machine has available (MemAvailable).
 *
 * Folder: workloads/common/ (prefix hs_mem_). */
#ifndef HS_MEM_H
#define HS_MEM_H

#include <stddef.h>

/* What a run will add to the process, at its peak. */
typedef struct {
    double address_bytes;  /* address space mapped (stacks whole, touched or not) */
    double data_bytes;     /* of which private writable memory (what RLIMIT_DATA counts) */
    double resident_bytes; /* memory actually touched */
} hs_mem_need;

/* HS_OK when `need` fits every limit; else HS_EINPUT with "WHAT needs about X GB of ...; the
 * LIMIT is Y GB" and `advice` appended (": simulate fewer GPUs, ..."). */
int hs_mem_check(const hs_mem_need *need, const char *what, const char *advice, char *err);

/* The limits in force, in words for a message ("the address-space limit (ulimit -v) is 4.1 GB,
 * ..."), or "" when none is set but the machine's memory. */
void hs_mem_describe(char *buf, size_t len);

/* The first number after `key` (at a line's start, then ' ' or ':') in a small text file such
 * as /proc/self/status (the file's first number when key is NULL); -1 if none or unreadable. */
double hs_mem_file_number(const char *path, const char *key);

/* The memory cgroup's room: the smallest limit (memory.max, memory.high, v1
 * memory.limit_in_bytes) of the process's cgroup and its ancestors, as read from `cgroup_file`
 * (/proc/self/cgroup) and `mountinfo` (/proc/self/mountinfo); in use: what the limited cgroup
 * uses less its reclaimable page cache. Returns 0 and fills them, -1 when no limit is set.
 * `which` names the file that sets it (for the message). Exposed for the unit test. */
int hs_mem_cgroup(const char *cgroup_file, const char *mountinfo, double *limit_bytes,
                  double *in_use_bytes, char *which, size_t which_len);

#endif
