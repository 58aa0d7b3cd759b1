/* platgen_uplinks.c: routed uplinks (platgen.h, pg_uplink_routing): an uplink of the fat tree
 * as the parallel cables it stands for, and the cable each flow takes.
 *
 * A fat link is ideal spreading: every flow crossing a level shares the bundle's whole
 * bandwidth. Real switches put each flow on one cable: InfiniBand's subnet manager routes by
 * destination (D-mod-K: the up port is the destination's address modulo the ports, so flows to
 * one NIC always meet, and flows to NICs k apart collide), Ethernet ECMP by a hash of the flow's
 * headers (collisions at random). Either way two large flows can share a cable while another
 * idles, which the fat link cannot show. A flow is a pair of GPUs: its messages keep one cable,
 * as a connection (a queue pair, a 5-tuple) does. */
#include "platgen_int.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "l003-uplink" -> level 0, "r01-uplink" -> 1; -1 for any other name. */
static int uplink_level(const char *name)
{
    if (name[0] != 'l' && name[0] != 'r')
        return -1;
    const char *s = name + 1;
    while (*s >= '0' && *s <= '9')
        s++;
    if (s == name + 1 || strcmp(s, "-uplink") != 0)
        return -1;
    return name[0] == 'l' ? 0 : 1;
}

int pg_uplink_cables(const pg_params *p, const char *name, int *level)
{
    *level = uplink_level(name);
    if (p->uplink_routing == PG_UPLINKS_FAT || *level < 0)
        return 0;
    pg_layout L;
    pg_layout_of(p, &L);
    double bw = *level == 0 ? L.leaf_uplink_bw_Bps : L.rack_uplink_bw_Bps;
    /* Whole NIC cables only, rounded down: each cable then carries at least a NIC's rate. */
    double cables = bw / p->nic_bw_Bps;
    return cables < 1 ? 1 : (int)(cables + 1e-9);
}

/* splitmix64's finaliser: every input bit moves every output bit. */
static uint64_t mix(uint64_t x)
{
    x ^= x >> 30;
    x *= UINT64_C(0xbf58476d1ce4e5b9);
    x ^= x >> 27;
    x *= UINT64_C(0x94d049bb133111eb);
    return x ^ (x >> 31);
}

/* The NIC GPU gpu sends and receives through, numbered over the whole machine. */
static int nic_of(const pg_params *p, int gpu)
{
    pg_layout L;
    pg_layout_of(p, &L);
    int node = gpu / p->gpus_per_node, local = gpu % p->gpus_per_node;
    return node * L.nics_per_node + local / (p->gpus_per_node / L.nics_per_node);
}

int pg_uplink_cable(const pg_params *p, int level, int cables, int src_gpu, int dst_gpu)
{
    if (cables <= 1)
        return 0;
    if (p->uplink_routing == PG_UPLINKS_DMODK)
        return nic_of(p, dst_gpu) % cables;
    /* A different hash per level, as each switch hashes with its own seed. */
    uint64_t key = (uint64_t)(uint32_t)src_gpu << 32 | (uint32_t)dst_gpu;
    uint64_t seed = (uint64_t)(level + 1) * UINT64_C(0x9e3779b97f4a7c15);
    return (int)(mix(key ^ seed) % (uint64_t)cables);
}

void pg_uplink_cable_name(const char *uplink, int cable, int cables, char *name)
{
    int width = 1;
    for (int n = cables - 1; n >= 10; n /= 10)
        width++; /* zero-padded, so that cables sort in order */
    snprintf(name, PG_NAME_LEN, "%s-c%0*d", uplink, width, cable);
}
