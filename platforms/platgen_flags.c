/* platgen_flags.c: the flags of `hybridsim platform` (platgen.h): every flag bound to a field of
 * pg_params by a table, so that parsing (platgen_args.c), --help, the defaults shown there and
 * the parameters written as a spec ("gen:abci:nodes=4352,...", platgen_spec.c) come from one
 * list. */
#include "platgen_int.h"

#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "device.h"
#include "hs_parse.h"
#include "units.h"

/* ---------------------------------------------------------------- command line */

/* Per-link NVLink bandwidth, one direction: P100 (NVLink 1) 20 GB/s; V100 (2), A100 (3) and
 * H100 (4) 25 GB/s, their GPUs differing in links (6, 12, 18), not in a link's speed. */
static const pg_word nvlink_gens[] = {{"1", 20e9}, {"2", 25e9}, {"3", 25e9}, {"4", 25e9}, {0}};
/* PCIe x16, one direction, rounded as vendors quote them (Gen3 is 15.75 GB/s after coding). */
static const pg_word pcie_gens[] = {{"3", 16e9}, {"4", 32e9}, {"5", 64e9}, {0}};
/* InfiniBand 4x ports: 100, 200, 400 Gb/s. */
static const pg_word nic_types[] = {{"edr", 12.5e9}, {"hdr", 25e9}, {"ndr", 50e9}, {0}};
static const pg_word auto_word[] = {{"auto", 0}, {0}};
static const pg_word none_word[] = {{"none", 0}, {0}};

/* FL_ENUM fields are enums written through an int. */
_Static_assert(sizeof(pg_nvlink_topology) == sizeof(int), "enum fields are ints");
_Static_assert(sizeof(pg_uplink_routing) == sizeof(int), "enum fields are ints");
_Static_assert(sizeof(pg_nic_path) == sizeof(int), "enum fields are ints");
_Static_assert(sizeof(pg_gpu_path) == sizeof(int), "enum fields are ints");
static const pg_word topologies[] = {{"all-to-all", PG_NVLINK_ALL_TO_ALL},
                                     {"cube-mesh", PG_NVLINK_CUBE_MESH},
                                     {"nvswitch", PG_NVLINK_NVSWITCH},
                                     {"none", PG_NVLINK_NONE},
                                     {"pairs", PG_NVLINK_PAIRS},
                                     {0}};
static const pg_word uplink_routings[] = {
    {"fat", PG_UPLINKS_FAT}, {"dmodk", PG_UPLINKS_DMODK}, {"hash", PG_UPLINKS_HASH}, {0}};
static const pg_word nic_paths[] = {
    {"direct", PG_NIC_PATH_DIRECT}, {"host", PG_NIC_PATH_HOST}, {0}};
static const pg_word gpu_paths[] = {{"p2p", PG_GPU_PATH_P2P}, {"host", PG_GPU_PATH_HOST}, {0}};

#define F(field) offsetof(pg_params, field)
const pg_flag pg_flags[] = {
    {"nodes", FL_INT, 0, F(nodes), NULL, "nodes in the machine"},
    {"gpus-per-node", FL_INT, 0, F(gpus_per_node), NULL, "GPUs per node"},
    {"gpus-per-pcie-switch", FL_INT, 0, F(gpus_per_pcie_switch), NULL,
     "GPUs sharing one PCIe switch and its NICs"},
    {"nics-per-node", FL_INT, 0, F(nics_per_node), auto_word,
     "NICs per node, spread over the PCIe switches (auto: 1 a switch)"},
    {"gpu", FL_DEVICE, 0, F(gpu_device), NULL,
     "GPU from the device table: sets --gpu-model and --gpu-memory"},
    {"gpu-speed", FL_QTY, UN_SPEED, F(gpu_speed_flops), NULL, "speed of a GPU host"},
    {"gpu-memory", FL_QTY, UN_SIZE, F(gpu_memory_bytes), NULL, "memory of one GPU"},
    {"gpu-model", FL_STR, 0, F(gpu_model), NULL, "GPU model, compared with a workload's device"},
    {"nvlink-topology", FL_ENUM, 0, F(nvlink_topology), topologies,
     "all-to-all, cube-mesh (DGX-1V, 8 GPUs), nvswitch, none (PCIe) or pairs (bridged)"},
    {"nvlink-gen", FL_CHOICE, 0, F(nvlink_link_bw_Bps), nvlink_gens,
     "1 (20GBps a link), 2, 3, 4 (25GBps): sets --nvlink-link-bw"},
    {"nvlink-link-bw", FL_QTY, UN_BANDWIDTH, F(nvlink_link_bw_Bps), NULL,
     "one NVLink link, one direction"},
    {"nvlink-links-per-pair", FL_INT, 0, F(nvlink_links_per_pair), NULL,
     "all-to-all, pairs: links joining each (bridged) GPU pair"},
    {"nvlink-links-per-gpu", FL_INT, 0, F(nvlink_links_per_gpu), NULL,
     "nvswitch: links from each GPU into the switch"},
    {"nvlink-bw", FL_QTY, UN_BANDWIDTH, F(nvlink_bw_Bps), auto_word,
     "all-to-all, pairs: a pair, nvswitch: a GPU (auto: links x link bw)"},
    {"nvlink-latency", FL_QTY, UN_TIME, F(nvlink_latency_s), NULL,
     "one NVLink transfer (cube-mesh: per hop)"},
    {"nvswitch-latency", FL_QTY, UN_TIME, F(nvswitch_latency_s), NULL,
     "nvswitch: crossing the switch"},
    {"pcie-gen", FL_CHOICE, 0, F(pcie_bw_Bps), pcie_gens,
     "3, 4, 5 (16, 32, 64GBps x16): sets --pcie-bw"},
    {"pcie-bw", FL_QTY, UN_BANDWIDTH, F(pcie_bw_Bps), NULL, "one direction of a GPU's PCIe link"},
    {"pcie-latency", FL_QTY, UN_TIME, F(pcie_latency_s), NULL,
     "latency of a PCIe link and switch"},
    {"pcie-uplink-bw", FL_QTY, UN_BANDWIDTH, F(pcie_uplink_bw_Bps), none_word,
     "a PCIe switch's link to its CPU, shared by its GPUs' copies to host memory (none)"},
    {"cpu-link-bw", FL_QTY, UN_BANDWIDTH, F(cpu_link_bw_Bps), none_word,
     "the link between a node's two CPUs (UPI), each then with its own host memory (none)"},
    {"cpu-link-latency", FL_QTY, UN_TIME, F(cpu_link_latency_s), NULL,
     "crossing the link between the CPUs"},
    {"cpu-cores", FL_INT, 0, F(cpu_cores), NULL,
     "a node's CPU cores, all sockets, which its GPUs' input loader workers share (0: not said)"},
    {"cpu-threads", FL_INT, 0, F(cpu_threads), NULL,
     "their hardware threads, two a core with SMT (0: one a core)"},
    {"root-p2p-bw", FL_QTY, UN_BANDWIDTH, F(root_p2p_bw_Bps), none_word,
     "GPUs without NVLink: the most a pair's P2P flow through a CPU's PCIe root moves, e.g. "
     "9GBps (none)"},
    {"nic-type", FL_CHOICE, 0, F(nic_bw_Bps), nic_types,
     "InfiniBand edr, hdr, ndr (12.5, 25, 50GBps): sets --nic-bw"},
    {"nic-bw", FL_QTY, UN_BANDWIDTH, F(nic_bw_Bps), NULL, "one direction of a NIC's cable"},
    {"nic-latency", FL_QTY, UN_TIME, F(nic_latency_s), NULL, "latency of a NIC and its cable"},
    {"nodes-per-leaf", FL_INT, 0, F(nodes_per_leaf), NULL, "nodes under one leaf switch group"},
    {"leaves-per-rack", FL_INT, 0, F(leaves_per_rack), NULL, "leaf groups under one rack switch"},
    {"leaf-oversub", FL_RATIO, 0, F(leaf_oversub), NULL,
     "leaf uplink oversubscription (3 or 1:3)"},
    {"rack-oversub", FL_RATIO, 0, F(rack_oversub), NULL,
     "rack uplink oversubscription (3 or 1:3)"},
    {"leaf-latency", FL_QTY, UN_TIME, F(leaf_latency_s), NULL,
     "cable latency, leaf to rack switch"},
    {"spine-latency", FL_QTY, UN_TIME, F(spine_latency_s), NULL,
     "cable latency, rack switch to spine"},
    {"leaf-switch-latency", FL_QTY, UN_TIME, F(leaf_switch_latency_s), NULL,
     "crossing a leaf switch"},
    {"rack-switch-latency", FL_QTY, UN_TIME, F(rack_switch_latency_s), NULL,
     "crossing a rack switch"},
    {"spine-switch-latency", FL_QTY, UN_TIME, F(spine_switch_latency_s), NULL,
     "crossing the spine"},
    {"staging-latency", FL_QTY, UN_TIME, F(staging_latency_s), NULL,
     "extra latency of a message staged through host memory"},
    {"uplink-routing", FL_ENUM, 0, F(uplink_routing), uplink_routings,
     "fat (one link a bundle), dmodk or hash (a cable a flow; gen: specs only)"},
    {"nic-path", FL_ENUM, 0, F(nic_path), nic_paths,
     "direct (GPUDirect RDMA) or host (through host memory; needs --pcie-uplink-bw)"},
    {"gpu-path", FL_ENUM, 0, F(gpu_path), gpu_paths,
     "GPUs without NVLink: p2p or host (through host memory; needs --pcie-uplink-bw)"},
};
#undef F
const size_t pg_n_flags = sizeof pg_flags / sizeof pg_flags[0];
#define PG_NFLAGS (sizeof pg_flags / sizeof pg_flags[0])
_Static_assert(PG_NFLAGS <= PG_MAX_FLAGS, "raise PG_MAX_FLAGS");

/* Pairs of flags that set one quantity: given both, which wins would depend on their order. */
static const char *const pg_conflicts[][2] = {
    {"nvlink-gen", "nvlink-link-bw"},       {"pcie-gen", "pcie-bw"},
    {"nic-type", "nic-bw"},                 {"nvlink-bw", "nvlink-gen"},
    {"nvlink-bw", "nvlink-link-bw"},        {"nvlink-bw", "nvlink-links-per-pair"},
    {"nvlink-bw", "nvlink-links-per-gpu"},
};
#define PG_NCONFLICTS (sizeof pg_conflicts / sizeof pg_conflicts[0])

/* Flags that some NVLink topologies alone read (a bit per topology): with another they would
 * silently do nothing. */
#define TOPO(t) (1u << (t))
#define ANY_NVLINK (TOPO(PG_NVLINK_ALL_TO_ALL) | TOPO(PG_NVLINK_CUBE_MESH) | \
                    TOPO(PG_NVLINK_NVSWITCH) | TOPO(PG_NVLINK_PAIRS))
/* the topologies that route some GPU pairs over PCIe (the cube mesh routes its unlinked pairs
 * through a GPU between: platgen_walk.c, nvlink_hops) */
#define SOME_PCIE_PAIRS (TOPO(PG_NVLINK_NONE) | TOPO(PG_NVLINK_PAIRS))
static const struct {
    const char *flag;     /* the flag's name, without its dashes */
    unsigned topologies;  /* TOPO(t) set for each topology t that reads it */
} pg_topology_flags[] = {
    {"nvlink-links-per-pair", TOPO(PG_NVLINK_ALL_TO_ALL) | TOPO(PG_NVLINK_PAIRS)},
    {"nvlink-links-per-gpu", TOPO(PG_NVLINK_NVSWITCH)},
    {"nvswitch-latency", TOPO(PG_NVLINK_NVSWITCH)},
    /* every topology with NVLink links: none has no link these would describe */
    {"nvlink-gen", ANY_NVLINK},
    {"nvlink-link-bw", ANY_NVLINK},
    {"nvlink-bw", ANY_NVLINK},
    {"nvlink-latency", ANY_NVLINK},
    /* the way of the GPU pairs over PCIe, which all-to-all, cube-mesh and nvswitch have not */
    {"gpu-path", SOME_PCIE_PAIRS},
    {"root-p2p-bw", SOME_PCIE_PAIRS},
};
#define PG_NTOPOLOGY_FLAGS (sizeof pg_topology_flags / sizeof pg_topology_flags[0])

/* Whether topology t reads flag i of pg_topology_flags. */
static bool topology_reads(size_t i, pg_nvlink_topology t)
{
    return (pg_topology_flags[i].topologies & TOPO(t)) != 0;
}

/* "all-to-all or pairs": the topologies that read flag i. */
static const char *topology_words(size_t i, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int t = 0; topologies[t].word && used < len; t++)
        if (pg_topology_flags[i].topologies & TOPO(t))
            used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? " or " : "",
                                     topologies[t].word);
    return buf;
}

/* Quantities added after generated files were first written: a spec names one only when it is
 * set, by a flag or by the preset, so that the files written before it read back the same. */
static const char *const pg_later_flags[] = {"pcie-uplink-bw", "cpu-link-bw",
                                             "cpu-link-latency", "uplink-routing",
                                             "nic-path", "gpu-path", "root-p2p-bw",
                                             "cpu-cores", "cpu-threads"};
#define PG_NLATER_FLAGS (sizeof pg_later_flags / sizeof pg_later_flags[0])

/* "3" or "1:3" (one uplink unit per three downlink units) -> 3. */
static int parse_ratio(const char *s, double *v)
{
    char *end;
    double a = strtod(s, &end);
    if (end == s)
        return -1;
    if (*end == '\0') {
        *v = a;
        return isfinite(a) ? 0 : -1;
    }
    if (*end != ':')
        return -1;
    const char *rest = end + 1;
    double b = strtod(rest, &end);
    if (end == rest || *end != '\0' || !(a > 0) || !isfinite(a) || !isfinite(b))
        return -1;
    *v = b / a;
    return 0;
}

/* A whole number into *v: HS_NUM_OK, HS_NUM_SYNTAX, or HS_NUM_RANGE beyond an int (each flag's
 * own range is checked later, with the others: pg__check_given, platgen.c). */
static int parse_int(const char *s, int *v)
{
    int64_t x = 0;
    int rc = hs_parse_whole(s, (size_t)-1, INT_MIN, INT_MAX, &x);
    if (rc == HS_NUM_OK)
        *v = (int)x;
    return rc;
}

static const pg_word *find_word(const pg_word *words, const char *value)
{
    for (; words && words->word; words++)
        if (strcmp(words->word, value) == 0)
            return words;
    return NULL;
}

/* "1, 2, 3, 4" for messages. */
static void list_words(const pg_word *words, char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = '\0';
    for (; words->word && n < len; words++)
        n += snprintf(buf + n, len - n, "%s%s", n ? ", " : "", words->word);
}

/* --gpu NAME: the device and what it implies for the platform (its label and memory). */
int pg__set_device(const char *value, pg_params *p, char *err)
{
    char names[256];
    const dv_device *d = dv_find(value);
    if (!d) {
        dv_names(names, sizeof names);
        return hs_fail(err, HS_EINPUT, "--gpu: unknown device '%s' (known: %s)", value, names);
    }
    p->gpu_device = d->name;
    p->gpu_model = d->model;
    p->gpu_memory_bytes = d->memory_bytes;
    return HS_OK;
}

int pg__set_flag(const pg_flag *f, const char *value, pg_params *p, char *err)
{
    char *field = (char *)p + f->offset;
    char known[128];
    int rc;
    const pg_word *w = find_word(f->words, value);
    if (!w && (f->type == FL_CHOICE || f->type == FL_ENUM)) { /* words only */
        list_words(f->words, known, sizeof known);
        return hs_fail(err, HS_EINPUT, "--%s: unknown value '%s' (known: %s)", f->name, value,
                       known);
    }
    switch (f->type) {
    case FL_INT:
        if (w)
            *(int *)field = (int)w->value;
        else if ((rc = parse_int(value, (int *)field)) != HS_NUM_OK)
            return hs_fail(err, HS_EINPUT, rc == HS_NUM_RANGE ? "--%s: '%s' is out of range"
                                               : "--%s: '%s' is not a whole number", f->name, value);
        return HS_OK;
    case FL_QTY:
        if (w)
            *(double *)field = w->value;
        else if (un_parse(value, f->unit, (double *)field) != 0)
            return hs_fail(err, HS_EINPUT, "--%s: cannot read '%s': expected %s", f->name, value,
                           un_hint(f->unit));
        return HS_OK;
    case FL_CHOICE:
        *(double *)field = w->value;
        return HS_OK;
    case FL_RATIO:
        if (parse_ratio(value, (double *)field) != 0)
            return hs_fail(err, HS_EINPUT, "--%s: cannot read '%s': expected a ratio such as 3 "
                           "or 1:3", f->name, value);
        return HS_OK;
    case FL_STR:
        *(const char **)field = value;
        return HS_OK;
    case FL_DEVICE:
        return pg__set_device(value, p, err);
    case FL_ENUM:
        *(int *)field = (int)w->value;
        return HS_OK;
    }
    return hs_fail(err, HS_EINTERNAL, "--%s: unhandled flag type", f->name);
}

/* The words of a choice flag that give the field's value, "2/3/4"; "-" when none does. */
static void show_words(const pg_word *words, double v, char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = '\0';
    for (; words->word && n < len; words++)
        if (words->value == v)
            n += snprintf(buf + n, len - n, "%s%s", n ? "/" : "", words->word);
    if (n == 0)
        snprintf(buf, len, "-");
}

/* The word a flag with words writes for 0 (auto, none). */
const char *pg__zero_word(const pg_flag *f)
{
    for (const pg_word *w = f->words; w && w->word; w++)
        if (w->value == 0)
            return w->word;
    return "auto";
}

/* A default value as the user would type it. */
void pg__show_default(const pg_flag *f, const pg_params *p, char *buf, size_t len)
{
    const char *field = (const char *)p + f->offset;
    switch (f->type) {
    case FL_INT:
        if (f->words && *(const int *)field == 0)
            snprintf(buf, len, "%s", pg__zero_word(f));
        else
            snprintf(buf, len, "%d", *(const int *)field);
        return;
    case FL_RATIO:
        un_format_exact(*(const double *)field, buf, len);
        return;
    case FL_STR:
    case FL_DEVICE: {
        const char *s = *(const char *const *)field;
        snprintf(buf, len, "%s", s && *s ? s : "none");
        return;
    }
    case FL_ENUM:
        show_words(f->words, *(const int *)field, buf, len);
        return;
    case FL_CHOICE:
        show_words(f->words, *(const double *)field, buf, len);
        return;
    case FL_QTY:
        if (f->words && *(const double *)field == 0)
            snprintf(buf, len, "%s", pg__zero_word(f));
        else
            un_format(*(const double *)field, f->unit, buf, len);
        return;
    }
    snprintf(buf, len, "?");
}

const pg_flag *pg__find_flag(const char *name)
{
    for (size_t i = 0; i < PG_NFLAGS; i++)
        if (strcmp(pg_flags[i].name, name) == 0)
            return &pg_flags[i];
    return NULL;
}

/* Whether the flag called `name` was given (given[] is indexed like pg_flags). */
static int was_given(const unsigned char *given, const char *name)
{
    const pg_flag *f = pg__find_flag(name);
    return f && given[f - pg_flags];
}

/* Refuse the flags of a fat-tree level the machine does not have: one rack (a 2-level tree)
 * has no rack uplink and no spine, one leaf group no leaf uplink and no rack switch, so no
 * route crosses what they set (platforms/README.md, "A 2-level fat tree"). */
static int check_levels(const unsigned char *given, const pg_params *p, char *err)
{
    static const char *const above_rack[] = {"rack-oversub", "spine-latency",
                                             "spine-switch-latency"};
    static const char *const above_leaf[] = {"leaf-oversub", "leaf-latency",
                                             "rack-switch-latency"};
    if (p->nodes <= 0 || p->nodes_per_leaf <= 0 || p->leaves_per_rack <= 0)
        return HS_OK; /* pg_check refuses them */
    int leaves = (p->nodes + p->nodes_per_leaf - 1) / p->nodes_per_leaf;
    int racks = (leaves + p->leaves_per_rack - 1) / p->leaves_per_rack;
    for (int level = 0; level < 2; level++) {
        const char *const *flags = level ? above_leaf : above_rack;
        if ((level ? leaves : racks) > 1)
            continue;
        for (int i = 0; i < 3; i++)
            if (was_given(given, flags[i]))
                return hs_fail(err, HS_EINPUT, "--%s: the machine has one %s (--nodes %d, "
                               "--nodes-per-leaf %d, --leaves-per-rack %d: %d leaf group%s, "
                               "%d rack), so no route crosses what it sets",
                               flags[i], level ? "leaf group" : "rack", p->nodes,
                               p->nodes_per_leaf, p->leaves_per_rack, leaves,
                               leaves == 1 ? "" : "s", racks);
    }
    return HS_OK;
}

/* Refuse flags that contradict each other, that the chosen NVLink topology would ignore, or
 * that set a level of the tree the machine does not have. */
int pg__check_given(const unsigned char *given, const pg_params *p, char *err)
{
    int rc = check_levels(given, p, err);
    if (rc != HS_OK)
        return rc;
    for (size_t i = 0; i < PG_NCONFLICTS; i++)
        if (was_given(given, pg_conflicts[i][0]) && was_given(given, pg_conflicts[i][1]))
            return hs_fail(err, HS_EINPUT, "--%s: cannot be combined with --%s, which sets the "
                           "same bandwidth: give one of them", pg_conflicts[i][0],
                           pg_conflicts[i][1]);
    char words[64];
    for (size_t i = 0; i < PG_NTOPOLOGY_FLAGS; i++)
        if (was_given(given, pg_topology_flags[i].flag) &&
            !topology_reads(i, p->nvlink_topology))
            return hs_fail(err, HS_EINPUT, "--%s: only --nvlink-topology %s uses it (the "
                           "topology is %s)", pg_topology_flags[i].flag,
                           topology_words(i, words, sizeof words),
                           topologies[p->nvlink_topology].word);
    return HS_OK;
}

/* ---------------------------------------------------------------- what a spec says */

/* Is the field of flag f (a quantity or an enum) other than 0 in p? */
static bool field_set(const pg_flag *f, const pg_params *p)
{
    const char *field = (const char *)p + f->offset;
    return f->type == FL_ENUM || f->type == FL_INT ? *(const int *)field != 0
                                                   : *(const double *)field != 0;
}

/* Is later flag f (pg_later_flags) set in p, or in the defaults of p's preset? */
static bool later_flag_set(const pg_flag *f, const pg_params *p)
{
    pg_params d;
    char err[HS_ERR_LEN];
    if (field_set(f, p))
        return true;
    return p->preset && pg_preset(p->preset, &d, err) == HS_OK && field_set(f, &d);
}

/* Is flag f written in a spec of p? Not a word for another flag's field (--nic-type), not a
 * later flag left unset, not a flag the NVLink topology ignores, not a flag that a set
 * bandwidth replaces (--nvlink-bw). */
bool pg__flag_in_spec(const pg_flag *f, const pg_params *p)
{
    if (f->type == FL_CHOICE)
        return false;
    if (f->type == FL_DEVICE) /* none is no value: the spec then says model and memory */
        return p->gpu_device && p->gpu_device[0];
    for (size_t i = 0; i < PG_NLATER_FLAGS; i++)
        if (strcmp(f->name, pg_later_flags[i]) == 0)
            return later_flag_set(f, p);
    for (size_t i = 0; i < PG_NTOPOLOGY_FLAGS; i++)
        if (strcmp(f->name, pg_topology_flags[i].flag) == 0 &&
            !topology_reads(i, p->nvlink_topology))
            return false;
    for (size_t i = 0; i < PG_NCONFLICTS; i++)
        for (int side = 0; side < 2; side++) {
            const pg_flag *other = pg__find_flag(pg_conflicts[i][1 - side]);
            if (strcmp(f->name, pg_conflicts[i][side]) == 0 && other && other->words &&
                other->type == FL_QTY && *(const double *)((const char *)p + other->offset) > 0)
                return false;
        }
    return true;
}

