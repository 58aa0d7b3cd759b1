/* platgen_layout.c: what the generator derives from its parameters before any walk: the
 * machine's sizes (leaf groups, racks, uplink bandwidths, name widths; pg_layout), the nodes of
 * a partly filled leaf group or rack, and values as the XML carries them (pg_qty, pg_exact).
 * Shared by the walk (platgen_walk.c), the XML writer and the spec writer. */
#include "platgen_int.h"

static int digits(int n_items, int at_least)
{
    int d = 1;
    for (int v = n_items - 1; v >= 10; v /= 10)
        d++;
    return d < at_least ? at_least : d;
}

void pg_layout_of(const pg_params *p, pg_layout *L)
{
    L->nics_per_node = p->nics_per_node ? p->nics_per_node
                                        : p->gpus_per_node / p->gpus_per_pcie_switch;
    /* The last leaf group and the last rack may be partly filled (pg_leaf_nodes) */
    L->leaves = (p->nodes + p->nodes_per_leaf - 1) / p->nodes_per_leaf;
    L->racks = (L->leaves + p->leaves_per_rack - 1) / p->leaves_per_rack;
    L->node_w = digits(p->nodes, 4);
    L->gpu_w = digits(p->gpus_per_node, 1);
    L->nic_w = digits(L->nics_per_node, 1);
    L->leaf_w = digits(L->leaves, 3);
    L->rack_w = digits(L->racks, 2);
    /* An uplink carries what the level below can send, divided by the oversubscription:
     * one fat link standing for the bundle of parallel cables, i.e. ideal ECMP spreading.
     * A partly filled leaf group or rack has the switches and uplinks of a full one: its
     * cables are laid for the design, some of its down ports are empty. */
    double nics_per_leaf = (double)p->nodes_per_leaf * L->nics_per_node;
    L->leaf_uplink_bw_Bps = nics_per_leaf * p->nic_bw_Bps / p->leaf_oversub;
    L->rack_uplink_bw_Bps = p->leaves_per_rack * L->leaf_uplink_bw_Bps / p->rack_oversub;
    L->leaf_switch_bw_Bps = nics_per_leaf * p->nic_bw_Bps + L->leaf_uplink_bw_Bps;
    L->rack_switch_bw_Bps = p->leaves_per_rack * L->leaf_uplink_bw_Bps + L->rack_uplink_bw_Bps;
    L->spine_switch_bw_Bps = L->racks * L->rack_uplink_bw_Bps;
}

double pg_nvlink_bundle_Bps(const pg_params *p, int links)
{
    return p->nvlink_bw_Bps > 0 ? p->nvlink_bw_Bps : links * p->nvlink_link_bw_Bps;
}

pg_num pg_qty(double v, un_kind kind)
{
    pg_num n;
    un_format(v, kind, n.s, sizeof n.s);
    return n;
}

pg_num pg_exact(double v)
{
    pg_num n;
    un_format_exact(v, n.s, sizeof n.s);
    return n;
}

int pg_racks(const pg_params *p)
{
    int leaves = (p->nodes + p->nodes_per_leaf - 1) / p->nodes_per_leaf;
    return (leaves + p->leaves_per_rack - 1) / p->leaves_per_rack;
}

int pg__filled(int first, int n, int total)
{
    int left = total - first;
    return left < n ? (left > 0 ? left : 0) : n;
}

int pg_leaf_nodes(const pg_params *p, int leaf)
{
    return pg__filled(leaf * p->nodes_per_leaf, p->nodes_per_leaf, p->nodes);
}

int pg_rack_nodes(const pg_params *p, int rack)
{
    int per_rack = p->nodes_per_leaf * p->leaves_per_rack;
    return pg__filled(rack * per_rack, per_rack, p->nodes);
}

int pg_rack_of_gpu(const pg_params *p, int gpu)
{
    return gpu / p->gpus_per_node / p->nodes_per_leaf / p->leaves_per_rack;
}
