/* platgen_pcie.c: the generated machine's routes inside a node over PCIe, for the walk
 * (platgen_walk.c): between GPUs without an NVLink between them (--nvlink-topology none, the
 * unbridged pairs of pairs), P2P (capped through a CPU's root: --root-p2p-bw) or through host
 * memory (--gpu-path host), and between PCIe switches through the CPUs (also a GPU's way to a
 * NIC on another switch, or to any NIC through host memory: --nic-path host). */
#include "platgen_int.h"

/* The CPU a node's PCIe switch s hangs off: its first GPU's (pg_socket_of). */
static int switch_socket(const pg_params *p, int s)
{
    return pg_socket_of(p, s * p->gpus_per_pcie_switch);
}

/* Up sa's link to its CPU, across the link between the CPUs when sb hangs off the other, down
 * sb's link; the switch links only when the machine has them (--pcie-uplink-bw). It is the way
 * NCCL's paths take between a GPU and a GPU or NIC under another switch (PATH_PHB through one
 * CPU, PATH_SYS across both: src/graph/paths.cc:91-92, v2.11.4), whether as P2P or, where NCCL
 * refuses P2P beyond PATH_PXB (Intel CPUs, :284-285), through host memory (:375-379): the same
 * links. */
void pg__switch_hops(const pg_params *p, const char *nz, int sa, int sb,
                     char names[][PG_NAME_LEN], pg_hop *hops, int *n)
{
    int ca = switch_socket(p, sa), cb = switch_socket(p, sb);
    if (p->pcie_uplink_bw_Bps > 0) {
        pg__compose(names[*n], nz, "-pcieup", sa, 1, "");
        hops[*n] = (pg_hop){names[*n], PG_UP};
        ++*n;
    }
    if (ca != cb) { /* UP: from CPU 0 to CPU 1 */
        pg__compose(names[*n], nz, "-cpulink", -1, 0, "");
        hops[*n] = (pg_hop){names[*n], ca == 0 ? PG_UP : PG_DOWN};
        ++*n;
    }
    if (p->pcie_uplink_bw_Bps > 0) {
        pg__compose(names[*n], nz, "-pcieup", sb, 1, "");
        hops[*n] = (pg_hop){names[*n], PG_DOWN};
        ++*n;
    }
}

bool pg__pcie_pair(const pg_params *p, int a, int b)
{
    int lo = a < b ? a : b, hi = a < b ? b : a;
    if (p->nvlink_topology == PG_NVLINK_PAIRS)
        return !(lo % 2 == 0 && hi == lo + 1);
    return p->nvlink_topology == PG_NVLINK_NONE;
}

/* a's PCIe link up, b's down, and between their switches the way through the CPUs (NCCL's
 * PATH_PIX under one switch, else pg__switch_hops), P2P there capped by a's CPU's root
 * (--root-p2p-bw); through host memory (--gpu-path host) that way even under one switch. */
int pg__pcie_pair_hops(const pg_params *p, const pg_layout *L, const char *node, int a, int b,
                       char names[][PG_NAME_LEN], pg_hop *hops)
{
    int n = 0, per = p->gpus_per_pcie_switch;
    pg__compose(names[n], node, "-pcie", a, L->gpu_w, "");
    hops[n] = (pg_hop){names[n], PG_UP};
    n++;
    if (a / per != b / per || p->gpu_path == PG_GPU_PATH_HOST)
        pg__switch_hops(p, node, a / per, b / per, names, hops, &n);
    if (a / per != b / per && p->gpu_path == PG_GPU_PATH_P2P && p->root_p2p_bw_Bps > 0) {
        pg__compose(names[n], node, "-rootp2p", switch_socket(p, a / per), 1, "");
        hops[n] = (pg_hop){names[n], PG_NONE};
        n++;
    }
    pg__compose(names[n], node, "-pcie", b, L->gpu_w, "");
    hops[n] = (pg_hop){names[n], PG_DOWN};
    return n + 1;
}
