/* platgen_int.h: what the generator's files share (platgen.h is its public face).
 *   platgen.c        the parameters: presets and checks
 *   platgen_walk.c   the machine as a walk (pg_describe)
 *   platgen_xml.c    the XML writer, a sink of the walk
 *   platgen_flags.c  the flags of `hybridsim platform`, and parameters as a spec
 * Nothing here is for use outside platforms/. */
#ifndef PLATGEN_INT_H
#define PLATGEN_INT_H

#include "platgen.h"
#include "units.h"

/* Sizes derived from the parameters, and the digit widths of the names: names are zero-padded
 * to one width per kind so that sorting by name (sg_host_list) gives rank order. */
typedef struct {
    int nics_per_node;
    int leaves;                 /* leaf groups in the machine */
    int racks;
    int node_w, gpu_w, nic_w, leaf_w, rack_w; /* digits in the names */
    double leaf_uplink_bw_Bps;  /* one direction of a leaf group's uplink */
    double rack_uplink_bw_Bps;  /* one direction of a rack's uplink */
    double leaf_switch_bw_Bps;  /* sum of a switch's port bandwidths: FATPIPE, never binding */
    double rack_switch_bw_Bps;
    double spine_switch_bw_Bps;
} pg_layout;

void pg_layout_of(const pg_params *p, pg_layout *L);

/* One direction of a bundle of `links` NVLinks, or the direct bandwidth given in its place. */
double pg_nvlink_bundle_Bps(const pg_params *p, int links);

/* A value as the XML carries it: with a readable unit that reads back exactly ("50GBps",
 * "110ns"; un_format), or its exact decimal text (un_format_exact). */
typedef struct {
    char s[40];
} pg_num;

pg_num pg_qty(double v, un_kind kind);
pg_num pg_exact(double v);

#endif
