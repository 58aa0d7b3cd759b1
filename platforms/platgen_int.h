/* platgen_int.h: what the generator's files share (platgen.h is its public face).
 *   platgen.c        the parameters: presets and checks
 *   platgen_layout.c the sizes derived from the parameters (pg_layout), values as text
 *   platgen_walk.c   the machine as a walk (pg_describe)
 *   platgen_pcie.c   the walk's routes over PCIe: GPU pairs without NVLink, ways through the CPUs
 *   platgen_xml.c    the XML writer, a sink of the walk
 *   platgen_flags.c  the flags of `hybridsim platform`, bound to pg_params by a table
 *   platgen_args.c   its command line: the preset and GPU first, then the flags; --help
 *   platgen_spec.c   parameters as a spec ("gen:abci:nodes=4352,...")
 * Nothing here is for use outside platforms/. */
#ifndef PLATGEN_INT_H
#define PLATGEN_INT_H

#include <stdbool.h>
#include <stddef.h>

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

/* How many of n items from `first` on exist when there are `total`: n, fewer at the end (the
 * nodes of a partly filled leaf group, the leaf groups of a partly filled rack). */
int pg__filled(int first, int n, int total);

/* One direction of a bundle of `links` NVLinks, or the direct bandwidth given in its place. */
double pg_nvlink_bundle_Bps(const pg_params *p, int links);

/* A value as the XML carries it: with a readable unit that reads back exactly ("50GBps",
 * "110ns"; un_format), or its exact decimal text (un_format_exact). */
typedef struct {
    char s[40];
} pg_num;

pg_num pg_qty(double v, un_kind kind);
pg_num pg_exact(double v);

/* ---------------------------------------------------------------- names (platgen_walk.c) */

/* A name built as a + b + v (zero-padded to w digits; none when v < 0) + c: "n0042" + "-pcie"
 * + "1". Returns the end of the name, so that another part can follow. */
char *pg__compose(char *buf, const char *a, const char *b, int v, int w, const char *c);

/* ---------------------------------------------------------------- PCIe routes (platgen_pcie.c) */

/* Appends to hops[*n] the way from PCIe switch sa of node `node` to switch sb through the CPUs
 * (sa == sb: up its link and down again, the way through host memory); names: room for 3 from
 * names[*n]. */
void pg__switch_hops(const pg_params *p, const char *node, int sa, int sb,
                     char names[][PG_NAME_LEN], pg_hop *hops, int *n);

/* Whether GPUs a and b (a != b) of a node have no NVLink between them, so go over PCIe: every
 * pair with --nvlink-topology none, every pair but a bridged one (2k, 2k+1) with pairs; none
 * with the other topologies (the cube mesh routes an unlinked pair through a GPU between). */
bool pg__pcie_pair(const pg_params *p, int a, int b);

/* The hops of the route from GPU a to GPU b of node `node` over PCIe alone (no NVLink between
 * them), names in `names` (room for 6); returns the hop count. */
int pg__pcie_pair_hops(const pg_params *p, const pg_layout *L, const char *node, int a, int b,
                       char names[][PG_NAME_LEN], pg_hop *hops);

/* ---------------------------------------------------------------- the flags (platgen_flags.c)
 * shared with the spec reader and writer (platgen_spec.c) */

typedef enum { FL_INT, FL_QTY, FL_RATIO, FL_STR, FL_ENUM, FL_CHOICE, FL_DEVICE } pg_flag_type;

/* A word a flag takes in place of a number (--nic-type ndr, --nics-per-node auto), or one of
 * an enum's values (--nvlink-topology cube-mesh). */
typedef struct {
    const char *word;
    double value;       /* what the word sets the field to (SI; 0: auto, or none) */
} pg_word;

/* One flag of `hybridsim platform`, bound to a field of pg_params. */
typedef struct {
    const char *name;     /* without the leading "--" */
    pg_flag_type type;
    un_kind unit;         /* FL_QTY only */
    size_t offset;        /* of the field in pg_params */
    const pg_word *words; /* FL_CHOICE, FL_ENUM: the words it takes; FL_INT, FL_QTY: words
                           * taken too */
    const char *help;
} pg_flag;

#define PG_MAX_FLAGS 64          /* at least the table's length */
extern const pg_flag pg_flags[]; /* every flag, in --help order */
extern const size_t pg_n_flags;

/* The flag called `name` (without "--"), or NULL. */
const pg_flag *pg__find_flag(const char *name);

/* --gpu NAME: the device and what it implies (label, memory); HS_EINPUT naming an unknown one. */
int pg__set_device(const char *value, pg_params *p, char *err);

/* Set f's field of p from its text; HS_EINPUT naming --NAME when the value is bad. */
int pg__set_flag(const pg_flag *f, const char *value, pg_params *p, char *err);

/* The flags given together (given[i]: pg_flags[i] was): conflicting pairs, and flags the
 * NVLink topology would ignore, are HS_EINPUT. */
int pg__check_given(const unsigned char *given, const pg_params *p, char *err);

/* The word f's field takes for 0 ("auto", "none"). */
const char *pg__zero_word(const pg_flag *f);

/* f's value in p as --help shows it (whole numbers exactly, words, enums by name). */
void pg__show_default(const pg_flag *f, const pg_params *p, char *buf, size_t len);

/* Whether a spec of p names flag f (platgen_flags.c says which do not). */
bool pg__flag_in_spec(const pg_flag *f, const pg_params *p);

#endif
