/* sweep.c: `hybridsim sweep` (sweep.h): the cross product of lists, run one process per
 * configuration, gathered into one CSV.
 *
 * Why a process per run: SimGrid has one engine per process and it cannot be reset, so the
 * driver forks and execs the hybridsim executable itself (`compare --json`, or analytic or
 * simulate per --mode), up to --jobs at a time, and turns each child's JSON, or its error
 * message, into one CSV row.
 *
 * The CSV is the sweep's memory. Rows are appended whole, one write() then fsync() each, as
 * runs finish, so an interruption (Ctrl-C, SIGKILL, a crash of the machine) loses at most the
 * runs in flight and can truncate only the last line. A restart reads the file, drops a
 * truncated last line, and skips every configuration whose key column is already there. When
 * every run is done, the file is rewritten in configuration order (temp file, fsync, rename),
 * so the same sweep gives the same file whatever order its runs finished in.
 *
 * --emit writes the runs as a GNU parallel job list or a Slurm array script instead; each job is
 * a one-configuration sweep writing DIR/<index>.csv, and --merge gathers those files in index
 * order, which is the direct sweep's order, into the same CSV.
 *
 * Sections: memory; lists and the sweep file; flags; the plan (configurations); CSV; JSON;
 * running children; progress; emit and merge; sw_main. */
#define _GNU_SOURCE
#include "sweep.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include <libxml/xmlreader.h>

#include "placement.h"
#include "platform.h"
#include "strategy.h"
#include "workload.h"
#include "sweep_int.h"

#define SW_MAX_CONFIGS 1000000 /* a sweep larger than this is surely a typo in a range */
#define SW_MESSAGE_LEN 400     /* an error message kept in the CSV */
#define SW_PLAIN_PROGRESS_S 10.0 /* a progress line this often when stderr is not a terminal */

/* ------------------------------------------------------------------------------------------ */
/* Lists: every key of a sweep file, and every list flag, is a list of values. */

enum {
    K_WORKLOADS, K_PLATFORMS, K_STRATEGIES, K_GPUS, K_BATCH, K_MICRO, K_PLACEMENT,
    K_COLLECTIVES, K_LAYERS, K_MODE, K_OUTPUT, K_JOBS, K_TIMEOUT, K_LOG, K_COUNT
};

/* One value and where the user gave it, for messages. */
typedef struct {
    const char *text;  /* trimmed, with a batch-per-* suffix appended ("64/gpu") */
    const char *where; /* "FILE:LINE: KEY" or "-g" */
} sw_item;

typedef struct {
    sw_item *items;
    int n, cap;
} sw_list;

/* What the user asked for, before any checking: a list per key. */
typedef struct {
    sw_list key[K_COUNT];
} sw_spec;

/* A key of the sweep file, which is also a long flag. */
typedef struct {
    const char *name;   /* "batch-per-gpu" */
    int key;            /* K_* it fills */
    const char *suffix; /* appended to each value ("/gpu"), or NULL */
    char flag;          /* the short flag, or 0 */
    bool single;        /* takes one value (an option, not a dimension) */
} sw_keydef;

static const sw_keydef keydefs[] = {
    {"workloads", K_WORKLOADS, NULL, 'w', false},
    {"workload", K_WORKLOADS, NULL, 0, false},
    {"platforms", K_PLATFORMS, NULL, 'p', false},
    {"platform", K_PLATFORMS, NULL, 0, false},
    {"strategies", K_STRATEGIES, NULL, 's', false},
    {"strategy", K_STRATEGIES, NULL, 0, false},
    {"gpus", K_GPUS, NULL, 'g', false},
    {"batch", K_BATCH, NULL, 'b', false},
    {"batch-per-gpu", K_BATCH, "/gpu", 0, false},
    {"batch-per-node", K_BATCH, "/node", 0, false},
    {"batch-per-group", K_BATCH, "/group", 0, false},
    {"micro-batches", K_MICRO, NULL, 'S', false},
    {"placement", K_PLACEMENT, NULL, 'P', false},
    {"collectives", K_COLLECTIVES, NULL, 'c', false},
    {"layers", K_LAYERS, NULL, 'l', true},
    {"mode", K_MODE, NULL, 'm', true},
    {"output", K_OUTPUT, NULL, 'o', true},
    {"jobs", K_JOBS, NULL, 'j', true},
    {"timeout", K_TIMEOUT, NULL, 0, true},
    {"log", K_LOG, NULL, 0, true},
};
#define N_KEYDEFS ((int)(sizeof keydefs / sizeof keydefs[0]))

static const char *known_keys =
    "workloads, platforms, strategies, gpus, batch, batch-per-gpu, batch-per-node, "
    "batch-per-group, micro-batches, placement, collectives, layers, mode, output, jobs, "
    "timeout, log";

static int find_keydef(const char *name)
{
    for (int i = 0; i < N_KEYDEFS; i++)
        if (strcmp(keydefs[i].name, name) == 0)
            return i;
    return -1;
}

/* Split "a, b,c" and append the values to the key's list. */
static int add_values(sw_spec *spec, const sw_keydef *def, const char *text, const char *where,
                      sw_arena *a, char *err)
{
    char *copy = sw_arena_strdup(a, text);
    if (!copy)
        return hs_fail(err, HS_EINTERNAL, "out of memory");
    sw_list *list = &spec->key[def->key];
    /* strtok_r would skip empty values silently; walk the commas by hand to report them. */
    for (char *value = copy;;) {
        char *comma = strchr(value, ',');
        if (comma)
            *comma = '\0';
        char *v = sw_trim(value);
        if (*v == '\0')
            return hs_fail(err, HS_EINPUT, "%s: empty value in '%s'", where, text);
        if (!sw_grow((void **)&list->items, &list->cap, list->n, sizeof *list->items))
            return hs_fail(err, HS_EINTERNAL, "out of memory");
        const char *stored = def->suffix ? sw_arena_printf(a, "%s%s", v, def->suffix) : v;
        if (!stored)
            return hs_fail(err, HS_EINTERNAL, "out of memory");
        list->items[list->n++] = (sw_item){stored, where};
        if (!comma)
            break;
        value = comma + 1;
    }
    return HS_OK;
}

static void spec_free(sw_spec *spec)
{
    for (int k = 0; k < K_COUNT; k++)
        free(spec->key[k].items);
}

/* One logical line of a sweep file: a line ending in ',' continues on the next. Comments (from
 * '#') and surrounding blanks are removed. Returns false at the end of the file. */
static bool read_logical_line(FILE *f, char **line, size_t *cap, sw_buf *out, int *line_no,
                              int *first_line)
{
    out->len = 0;
    if (out->data)
        out->data[0] = '\0';
    *first_line = 0;
    while (getline(line, cap, f) >= 0) {
        (*line_no)++;
        char *hash = strchr(*line, '#');
        if (hash)
            *hash = '\0';
        char *t = sw_trim(*line);
        if (*t == '\0' && out->len == 0)
            continue;
        if (*first_line == 0)
            *first_line = *line_no;
        sw_buf_puts(out, t);
        if (out->len == 0 || out->data[out->len - 1] != ',')
            return true;
    }
    return out->len > 0;
}

/* The sweep file: `key = value, value, ...` lines; see experiments/sweeps/example.sweep. */
static int read_sweep_file(const char *path, sw_spec *spec, sw_arena *a, char *err)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return hs_fail(err, HS_EINPUT, "%s: cannot read the sweep file: %s", path, strerror(errno));
    int first_line_of[N_KEYDEFS + K_COUNT];
    memset(first_line_of, 0, sizeof first_line_of);
    char *line = NULL;
    size_t cap = 0;
    sw_buf logical = {0};
    int line_no = 0, at = 0, status = HS_OK;
    while (status == HS_OK && read_logical_line(f, &line, &cap, &logical, &line_no, &at)) {
        if (logical.oom) {
            status = hs_fail(err, HS_EINTERNAL, "out of memory");
            break;
        }
        char *eq = strchr(logical.data, '=');
        if (!eq) {
            status = hs_fail(err, HS_EINPUT, "%s:%d: expected 'key = value, ...', got '%.60s'",
                             path, at, logical.data);
            break;
        }
        *eq = '\0';
        char *name = sw_trim(logical.data), *value = sw_trim(eq + 1);
        int d = find_keydef(name);
        if (d < 0) {
            status = hs_fail(err, HS_EINPUT, "%s:%d: unknown key '%s' (known: %s)", path, at, name,
                             known_keys);
            break;
        }
        /* Aliases (workload, workloads) count as one key; the batch keys add to one list. */
        int slot = keydefs[d].key == K_BATCH ? K_COUNT + d : keydefs[d].key;
        if (first_line_of[slot]) {
            status = hs_fail(err, HS_EINPUT, "%s:%d: '%s' is given twice (first on line %d)",
                             path, at, name, first_line_of[slot]);
            break;
        }
        first_line_of[slot] = at;
        if (*value == '\0') {
            status = hs_fail(err, HS_EINPUT, "%s:%d: '%s' has no value", path, at, name);
            break;
        }
        const char *where = sw_arena_printf(a, "%s:%d: %s", path, at, name);
        status = where ? add_values(spec, &keydefs[d], value, where, a, err)
                       : hs_fail(err, HS_EINTERNAL, "out of memory");
    }
    if (status == HS_OK && ferror(f))
        status = hs_fail(err, HS_EINPUT, "%s: read error: %s", path, strerror(errno));
    free(line);
    free(logical.data);
    fclose(f);
    return status;
}

/* ------------------------------------------------------------------------------------------ */
/* Flags: the same keys as the file, plus what only makes sense on a command line. */

/* What the command line says beyond the lists. */
typedef struct {
    const char *file;       /* the sweep file, or NULL */
    const char *emit_kind;  /* --emit parallel|slurm, or NULL */
    const char *emit_file;  /* the job list or script */
    const char *emit_dir;   /* --emit-dir: where the jobs write their rows */
    const char *merge_dir;  /* --merge DIR, or NULL */
    const char *exe;        /* --exe: the hybridsim to run, NULL: this one */
    int stop_after;         /* --stop-after N (testing), -1: no limit */
    bool quiet;             /* --quiet: no progress */
    bool help;
} sw_cmdline;

static void print_usage(FILE *out)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    fprintf(out,
            "usage: hybridsim sweep [FILE.sweep] [flags] -o OUT.csv\n"
            "       hybridsim sweep [FILE.sweep] [flags] --emit parallel|slurm JOBFILE\n"
            "       hybridsim sweep --merge DIR -o OUT.csv\n"
            "\n"
            "Runs every configuration of workloads x platforms x strategies x GPU counts x batch\n"
            "rules x micro-batches x placements x collectives, each in its own process, and\n"
            "writes one CSV row per configuration. Lists are comma-separated; the file's keys\n"
            "are the long flag names (see experiments/sweeps/example.sweep); a flag replaces\n"
            "its key.\n"
            "\n"
            "  -w, --workloads LIST     workloads (short names or paths)\n"
            "  -p, --platforms LIST     platforms (short names or paths)\n"
            "  -s, --strategies LIST    strategies: data, filter, data+filter:8x4, ...\n"
            "  -g, --gpus LIST          GPU counts; A..B doubles from A to B (4..32 = 4,8,16,32)\n"
            "  -b, --batch LIST         batch rules: B (fixed), N/gpu (B = N p), N/node (B = N x\n"
            "                           nodes used), N/group (B = N p1, data-parallel groups)\n"
            "      --batch-per-gpu LIST   the same as -b N/gpu,...; also --batch-per-node,\n"
            "                           --batch-per-group\n"
            "  -S, --micro-batches LIST pipeline micro-batches (other strategies run once)\n"
            "  -P, --placement LIST     packed (default), spread\n"
            "  -c, --collectives LIST   flow (default), step\n"
            "  -m, --mode M             compare (default), analytic, simulate\n"
            "  -l, --layers FILE        the layer file every run uses\n"
            "  -o, --output FILE.csv    the CSV; if it exists, configurations in it are skipped\n"
            "  -j, --jobs N             runs at a time (default: the cores, here %ld)\n"
            "      --timeout S          kill a run after S seconds (its row: status failed)\n"
            "      --log FILE           append a line per run started: its key and command\n"
            "      --quiet              no progress on stderr\n"
            "      --emit parallel|slurm FILE  write a GNU parallel job list or a Slurm array\n"
            "                           script instead of running\n"
            "      --emit-dir DIR       where those jobs write their rows (default FILE.d)\n"
            "      --merge DIR          gather the jobs' rows into -o, in configuration order\n"
            "      --exe PATH           the hybridsim executable to run (default: this one)\n"
            "      --stop-after N       testing: start only N runs, then stop as if interrupted\n"
            "\n"
            "Status column: ok; error (the run refused its input, exit 2: kept on resume);\n"
            "failed (crash, timeout, internal error: run again on resume).\n",
            cores > 0 ? cores : 1);
}

enum { OPT_EMIT = 2000, OPT_EMIT_DIR, OPT_MERGE, OPT_EXE, OPT_STOP_AFTER, OPT_QUIET };

static int parse_flags(int argc, char **argv, sw_spec *spec, sw_cmdline *cl, sw_arena *a,
                       char *err)
{
    struct option longopts[N_KEYDEFS + 8];
    char shortopts[64] = "+:h";
    size_t ns = strlen(shortopts);
    for (int i = 0; i < N_KEYDEFS; i++) {
        longopts[i] = (struct option){keydefs[i].name, required_argument, NULL, 1000 + i};
        if (keydefs[i].flag) {
            shortopts[ns++] = keydefs[i].flag;
            shortopts[ns++] = ':';
        }
    }
    shortopts[ns] = '\0';
    const struct option extra[] = {
        {"emit", required_argument, NULL, OPT_EMIT},
        {"emit-dir", required_argument, NULL, OPT_EMIT_DIR},
        {"merge", required_argument, NULL, OPT_MERGE},
        {"exe", required_argument, NULL, OPT_EXE},
        {"stop-after", required_argument, NULL, OPT_STOP_AFTER},
        {"quiet", no_argument, NULL, OPT_QUIET},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    memcpy(longopts + N_KEYDEFS, extra, sizeof extra);

    optind = 1;
    opterr = 0;
    while (optind < argc) {
        int c = getopt_long(argc, argv, shortopts, longopts, NULL);
        if (c == -1) {
            /* "+" stops at the first non-flag: the sweep file, wherever it stands. */
            if (optind >= argc)
                break;
            if (cl->file)
                return hs_fail(err, HS_EINPUT, "unexpected argument '%s' (one sweep file only)",
                               argv[optind]);
            cl->file = argv[optind++];
            continue;
        }
        int d = -1;
        for (int i = 0; i < N_KEYDEFS && d < 0; i++)
            if (c == 1000 + i || (keydefs[i].flag && c == keydefs[i].flag))
                d = i;
        if (d >= 0) {
            const char *where =
                keydefs[d].flag ? sw_arena_printf(a, "-%c", keydefs[d].flag)
                                : sw_arena_printf(a, "--%s", keydefs[d].name);
            if (!where)
                return hs_fail(err, HS_EINTERNAL, "out of memory");
            int status = add_values(spec, &keydefs[d], optarg, where, a, err);
            if (status != HS_OK)
                return status;
            continue;
        }
        switch (c) {
        case OPT_EMIT:
            if (strcmp(optarg, "parallel") != 0 && strcmp(optarg, "slurm") != 0)
                return hs_fail(err, HS_EINPUT, "--emit: unknown kind '%s' (known: parallel, slurm)",
                               optarg);
            if (optind >= argc || argv[optind][0] == '-')
                return hs_fail(err, HS_EINPUT, "--emit %s needs a FILE to write", optarg);
            cl->emit_kind = optarg;
            cl->emit_file = argv[optind++];
            break;
        case OPT_EMIT_DIR: cl->emit_dir = optarg; break;
        case OPT_MERGE: cl->merge_dir = optarg; break;
        case OPT_EXE: cl->exe = optarg; break;
        case OPT_STOP_AFTER: {
            char *end = NULL;
            errno = 0;
            long v = strtol(optarg, &end, 10);
            if (errno || end == optarg || *end || v < 0 || v > INT_MAX)
                return hs_fail(err, HS_EINPUT, "--stop-after: '%s' is not a whole number >= 0",
                               optarg);
            cl->stop_after = (int)v;
            break;
        }
        case OPT_QUIET: cl->quiet = true; break;
        case 'h': cl->help = true; return HS_OK;
        case ':': return hs_fail(err, HS_EINPUT, "%s needs a value", argv[optind - 1]);
        default:
            return hs_fail(err, HS_EINPUT, "unknown option '%s' (see hybridsim sweep --help)",
                           argv[optind - 1]);
        }
    }
    return HS_OK;
}

/* ------------------------------------------------------------------------------------------ */
/* The plan: the lists checked, and the configurations in order. */

typedef enum { SW_FIXED, SW_PER_GPU, SW_PER_NODE, SW_PER_GROUP } sw_batch_kind;

/* How a configuration's global batch B follows from its GPU count. */
typedef struct {
    sw_batch_kind kind;
    int64_t n;        /* B itself (fixed) or samples per GPU / node / group */
    const char *text; /* its key form: "256", "64/gpu", "64/node", "64/group" */
} sw_batch_rule;

/* One run of the sweep. */
typedef struct {
    const char *workload, *platform, *strategy; /* as the user wrote them */
    int gpus;
    const sw_batch_rule *rule;
    int micro_batches;       /* pipeline's S; 0: hybridsim's default (S = p) */
    const char *placement;   /* NULL in analytic mode (it uses neither) */
    const char *collectives;
    int64_t batch;           /* B from the rule; 0 when it has none (see error) */
    const char *error;       /* why this configuration cannot run, recorded without a run */
    const char *key;         /* the CSV key: every field above, '|'-separated */
} sw_config;

typedef struct {
    const char *mode;     /* compare, analytic, simulate */
    const char *layers;   /* --layers for every run, or NULL */
    const char *output;   /* the CSV, or NULL */
    const char *log;      /* --log, or NULL */
    int jobs;
    double timeout_s;     /* 0: none */
    sw_config *configs;   /* in configuration order */
    int n_configs;
} sw_plan;

static int parse_whole(const sw_item *it, const char *text, int64_t min, int64_t max,
                       int64_t *value, char *err)
{
    char *end = NULL;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (errno || end == text || *end)
        return hs_fail(err, HS_EINPUT, "%s: '%s' is not a whole number", it->where, text);
    if (v < min || v > max)
        return hs_fail(err, HS_EINPUT, "%s: %lld is out of range [%lld, %lld]", it->where, v,
                       (long long)min, (long long)max);
    *value = v;
    return HS_OK;
}

static const sw_item *single(const sw_list *l) { return l->n ? &l->items[0] : NULL; }

static int check_single(const sw_list *l, char *err)
{
    if (l->n > 1)
        return hs_fail(err, HS_EINPUT, "%s: takes one value, got %d", l->items[1].where, l->n);
    return HS_OK;
}

/* "4", or "4..64": 4, 8, 16, 32, 64 (a GPU count range doubles). */
static int parse_gpus(const sw_item *it, int **gpus, int *n, int *cap, char *err)
{
    int64_t lo, hi;
    int status;
    const char *dots = strstr(it->text, "..");
    if (dots) {
        char first[32];
        size_t len = (size_t)(dots - it->text);
        if (len >= sizeof first)
            return hs_fail(err, HS_EINPUT, "%s: '%s' is not a range A..B", it->where, it->text);
        memcpy(first, it->text, len);
        first[len] = '\0';
        if ((status = parse_whole(it, first, 1, INT_MAX, &lo, err)) ||
            (status = parse_whole(it, dots + 2, lo, INT_MAX, &hi, err)))
            return status;
    } else {
        if ((status = parse_whole(it, it->text, 1, INT_MAX, &lo, err)))
            return status;
        hi = lo;
    }
    for (int64_t g = lo; g <= hi; g *= 2) {
        if (!sw_grow((void **)gpus, cap, *n, sizeof **gpus))
            return hs_fail(err, HS_EINTERNAL, "out of memory");
        (*gpus)[(*n)++] = (int)g;
    }
    return HS_OK;
}

/* "256", "64/gpu", "64/node", "64/group". */
static int parse_rule(const sw_item *it, sw_batch_rule *rule, sw_arena *a, char *err)
{
    static const struct {
        const char *suffix;
        sw_batch_kind kind;
    } kinds[] = {{"/gpu", SW_PER_GPU}, {"/node", SW_PER_NODE}, {"/group", SW_PER_GROUP}};
    const char *slash = strchr(it->text, '/');
    size_t len = slash ? (size_t)(slash - it->text) : strlen(it->text);
    rule->kind = SW_FIXED;
    if (slash) {
        size_t k = 0;
        while (k < 3 && strcmp(slash, kinds[k].suffix) != 0)
            k++;
        if (k == 3)
            return hs_fail(err, HS_EINPUT,
                           "%s: '%s': a batch rule is B, N/gpu, N/node or N/group", it->where,
                           it->text);
        rule->kind = kinds[k].kind;
    }
    char *number = sw_arena_strndup(a, it->text, len);
    if (!number)
        return hs_fail(err, HS_EINTERNAL, "out of memory");
    int status = parse_whole(it, number, 1, INT64_MAX / 4 / INT_MAX, &rule->n, err);
    if (status != HS_OK)
        return status;
    rule->text = sw_arena_printf(a, "%lld%s", (long long)rule->n, slash ? slash : "");
    return rule->text ? HS_OK : hs_fail(err, HS_EINTERNAL, "out of memory");
}

/* The strategy's kind from "data+filter:8x4" (the shape is checked by each run). */
static int strategy_kind(const sw_item *it, st_kind *kind, char *err)
{
    size_t len = strcspn(it->text, ":");
    for (int k = 0; k < ST_KIND_COUNT; k++) {
        const char *name = st_kind_name((st_kind)k);
        if (strlen(name) == len && strncmp(name, it->text, len) == 0) {
            *kind = (st_kind)k;
            return HS_OK;
        }
    }
    return hs_fail(err, HS_EINPUT,
                   "%s: unknown strategy '%s' (known: serial, data, spatial, filter, channel, "
                   "pipeline, data+filter[:P1xP2], data+spatial[:P1xP2])",
                   it->where, it->text);
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* The file a platform name stands for, as plat_load finds it. */
static char *platform_path(const char *spec, sw_arena *a)
{
    const char *home = getenv("HYBRIDSIM_HOME");
    if (strchr(spec, '/') || ends_with(spec, ".xml"))
        return sw_arena_strdup(a, spec);
    if (home && home[0])
        return sw_arena_printf(a, "%s/platforms/%s.xml", home, spec);
    return sw_arena_printf(a, "%s/%s.xml", plat_default_dir(), spec);
}

/* The root zone's hybridsim:gpus_per_node, which per-node and per-group batch rules need.
 * Reads only the head of the file: loading a platform starts SimGrid, which a sweep's driver
 * must not do (one engine per process, and a sweep may name several platforms). */
static int platform_gpus_per_node(const sw_item *it, int *gpus_per_node, sw_arena *a, char *err)
{
    char *path = platform_path(it->text, a);
    if (!path)
        return hs_fail(err, HS_EINTERNAL, "out of memory");
    if (access(path, R_OK) != 0)
        return hs_fail(err, HS_EINPUT, "%s: platform '%s': cannot read %s: %s", it->where,
                       it->text, path, strerror(errno));
    xmlTextReaderPtr r = xmlReaderForFile(path, NULL, XML_PARSE_NONET | XML_PARSE_NOERROR |
                                                          XML_PARSE_NOWARNING);
    if (!r)
        return hs_fail(err, HS_EINPUT, "%s: platform '%s': cannot read %s", it->where, it->text,
                       path);
    long value = -1;
    while (value < 0 && xmlTextReaderRead(r) == 1) {
        if (xmlTextReaderNodeType(r) != XML_READER_TYPE_ELEMENT)
            continue;
        const char *name = (const char *)xmlTextReaderConstName(r);
        if (strcmp(name, "prop") == 0) {
            xmlChar *id = xmlTextReaderGetAttribute(r, (const xmlChar *)"id");
            xmlChar *v = xmlTextReaderGetAttribute(r, (const xmlChar *)"value");
            if (id && v && strcmp((const char *)id, "hybridsim:gpus_per_node") == 0) {
                value = strtol((const char *)v, NULL, 10);
                if (value < 0)
                    value = 0; /* found, but not a count: reported below */
            }
            xmlFree(id);
            xmlFree(v);
        } else if (strcmp(name, "platform") != 0 && strcmp(name, "zone") != 0 &&
                   strcmp(name, "config") != 0) {
            break; /* past the root zone's properties */
        }
    }
    xmlFreeTextReader(r);
    if (value <= 0 || value > INT_MAX)
        return hs_fail(err, HS_EINPUT,
                       "%s: platform %s has no hybridsim:gpus_per_node property in its root zone "
                       "(is it a hybridsim platform?)",
                       it->where, path);
    *gpus_per_node = (int)value;
    return HS_OK;
}

static int check_workload(const sw_item *it, char *err)
{
    wl_workload wl;
    char why[HS_ERR_LEN];
    int status = wl_load(it->text, &wl, why);
    if (status != HS_OK)
        return hs_fail(err, status, "%s: %s", it->where, why);
    wl_free(&wl);
    return HS_OK;
}

static int check_word(const sw_item *it, const char *const *known, int n_known, char *err)
{
    for (int i = 0; i < n_known; i++)
        if (strcmp(it->text, known[i]) == 0)
            return HS_OK;
    char list[128] = "";
    for (int i = 0; i < n_known; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", known[i]);
    return hs_fail(err, HS_EINPUT, "%s: unknown value '%s' (known: %s)", it->where, it->text, list);
}

/* B for one configuration. A per-group rule needs the strategy's p1, so it parses the strategy;
 * if that fails the configuration is recorded with the parser's message. */
static void resolve_batch(sw_config *c, int gpus_per_node, sw_arena *a)
{
    int64_t units = 1;
    switch (c->rule->kind) {
    case SW_FIXED: units = 1; break;
    case SW_PER_GPU: units = c->gpus; break;
    case SW_PER_NODE: units = (c->gpus + gpus_per_node - 1) / gpus_per_node; break;
    case SW_PER_GROUP: {
        st_strategy st;
        char why[HS_ERR_LEN];
        if (st_parse(c->strategy, c->gpus, gpus_per_node, c->micro_batches, &st, why) != HS_OK) {
            c->error = sw_arena_strdup(a, why);
            return;
        }
        units = st.p1;
        break;
    }
    }
    c->batch = c->rule->n * units; /* n < 2^61 / 2^31 and units <= 2^31: no overflow */
}

/* The checked dimensions, in the order their values were given. */
typedef struct {
    const sw_item *workloads, *platforms, *strategies, *placements, *collectives;
    int n_workloads, n_platforms, n_strategies, n_placements, n_collectives;
    int *gpus, n_gpus, cap_gpus;
    sw_batch_rule *rules;
    int n_rules;
    int *micro, n_micro;
    int *gpus_per_node; /* per platform */
    st_kind *kinds;     /* per strategy */
} sw_dims;

static void dims_free(sw_dims *d)
{
    free(d->gpus);
    free(d->rules);
    free(d->micro);
    free(d->gpus_per_node);
    free(d->kinds);
}

static int require_list(const sw_list *l, const char *what, char *err)
{
    return l->n ? HS_OK
                : hs_fail(err, HS_EINPUT, "%s is required (a sweep-file key or a flag; see "
                                          "hybridsim sweep --help)", what);
}

static int check_dims(const sw_spec *s, bool analytic, sw_dims *d, sw_arena *a, char *err)
{
    static const char *placements[] = {"packed", "spread"};
    static const char *fidelities[] = {"flow", "step"};
    static const sw_item packed = {"packed", "default"}, flow = {"flow", "default"};
    int status;
    if ((status = require_list(&s->key[K_WORKLOADS], "workloads (-w)", err)) ||
        (status = require_list(&s->key[K_PLATFORMS], "platforms (-p)", err)) ||
        (status = require_list(&s->key[K_STRATEGIES], "strategies (-s)", err)) ||
        (status = require_list(&s->key[K_GPUS], "gpus (-g)", err)) ||
        (status = require_list(&s->key[K_BATCH], "a batch rule (-b, --batch-per-gpu, ...)", err)))
        return status;
    d->workloads = s->key[K_WORKLOADS].items;
    d->n_workloads = s->key[K_WORKLOADS].n;
    d->platforms = s->key[K_PLATFORMS].items;
    d->n_platforms = s->key[K_PLATFORMS].n;
    d->strategies = s->key[K_STRATEGIES].items;
    d->n_strategies = s->key[K_STRATEGIES].n;
    d->placements = s->key[K_PLACEMENT].n ? s->key[K_PLACEMENT].items : &packed;
    d->n_placements = s->key[K_PLACEMENT].n ? s->key[K_PLACEMENT].n : 1;
    d->collectives = s->key[K_COLLECTIVES].n ? s->key[K_COLLECTIVES].items : &flow;
    d->n_collectives = s->key[K_COLLECTIVES].n ? s->key[K_COLLECTIVES].n : 1;
    if (analytic) /* the closed form uses neither: one configuration, not duplicates */
        d->n_placements = d->n_collectives = 1;

    d->rules = calloc((size_t)s->key[K_BATCH].n, sizeof *d->rules);
    d->micro = calloc((size_t)s->key[K_MICRO].n + 1, sizeof *d->micro);
    d->gpus_per_node = calloc((size_t)d->n_platforms, sizeof *d->gpus_per_node);
    d->kinds = calloc((size_t)d->n_strategies, sizeof *d->kinds);
    if (!d->rules || !d->micro || !d->gpus_per_node || !d->kinds)
        return hs_fail(err, HS_EINTERNAL, "out of memory");
    for (int i = 0; i < d->n_workloads; i++)
        if ((status = check_workload(&d->workloads[i], err)))
            return status;
    for (int i = 0; i < d->n_platforms; i++)
        if ((status = platform_gpus_per_node(&d->platforms[i], &d->gpus_per_node[i], a, err)))
            return status;
    for (int i = 0; i < d->n_strategies; i++)
        if ((status = strategy_kind(&d->strategies[i], &d->kinds[i], err)))
            return status;
    for (int i = 0; i < s->key[K_GPUS].n; i++)
        if ((status = parse_gpus(&s->key[K_GPUS].items[i], &d->gpus, &d->n_gpus, &d->cap_gpus,
                                 err)))
            return status;
    for (int i = 0; i < s->key[K_BATCH].n; i++, d->n_rules++)
        if ((status = parse_rule(&s->key[K_BATCH].items[i], &d->rules[i], a, err)))
            return status;
    for (int i = 0; i < s->key[K_MICRO].n; i++, d->n_micro++) {
        int64_t v;
        if ((status = parse_whole(&s->key[K_MICRO].items[i], s->key[K_MICRO].items[i].text, 1,
                                  INT_MAX, &v, err)))
            return status;
        d->micro[i] = (int)v;
    }
    if (d->n_micro == 0)
        d->n_micro = 1; /* micro[0] = 0: the default */
    for (int i = 0; i < s->key[K_PLACEMENT].n; i++)
        if ((status = check_word(&s->key[K_PLACEMENT].items[i], placements, 2, err)))
            return status;
    for (int i = 0; i < s->key[K_COLLECTIVES].n; i++)
        if ((status = check_word(&s->key[K_COLLECTIVES].items[i], fidelities, 2, err)))
            return status;
    return HS_OK;
}

static int check_options(const sw_spec *s, bool need_output, sw_plan *plan, char *err)
{
    static const char *modes[] = {"compare", "analytic", "simulate"};
    int status;
    for (int d = 0; d < N_KEYDEFS; d++)
        if (keydefs[d].single && (status = check_single(&s->key[keydefs[d].key], err)))
            return status;
    const sw_item *it;
    plan->mode = "compare";
    if ((it = single(&s->key[K_MODE]))) {
        if ((status = check_word(it, modes, 3, err)))
            return status;
        plan->mode = it->text;
    }
    if ((it = single(&s->key[K_LAYERS]))) {
        if (access(it->text, R_OK) != 0)
            return hs_fail(err, HS_EINPUT, "%s: cannot read '%s': %s", it->where, it->text,
                           strerror(errno));
        plan->layers = it->text;
    }
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    plan->jobs = cores > 0 ? (int)cores : 1;
    if ((it = single(&s->key[K_JOBS]))) {
        int64_t v;
        if ((status = parse_whole(it, it->text, 1, 4096, &v, err)))
            return status;
        plan->jobs = (int)v;
    }
    if ((it = single(&s->key[K_TIMEOUT]))) {
        char *end = NULL;
        errno = 0;
        plan->timeout_s = strtod(it->text, &end);
        if (errno || end == it->text || *end || !(plan->timeout_s >= 0))
            return hs_fail(err, HS_EINPUT, "%s: '%s' is not a number of seconds >= 0", it->where,
                           it->text);
    }
    plan->output = (it = single(&s->key[K_OUTPUT])) ? it->text : NULL;
    plan->log = (it = single(&s->key[K_LOG])) ? it->text : NULL;
    if (need_output && !plan->output)
        return hs_fail(err, HS_EINPUT,
                       "-o OUT.csv is required (or 'output =' in the sweep file, or --emit)");
    return HS_OK;
}

static int add_config(sw_plan *plan, int *cap, const sw_config *c, sw_arena *a, char *err)
{
    if (plan->n_configs >= SW_MAX_CONFIGS)
        return hs_fail(err, HS_EINPUT, "the sweep has more than %d configurations",
                       SW_MAX_CONFIGS);
    if (!sw_grow((void **)&plan->configs, cap, plan->n_configs, sizeof *plan->configs))
        return hs_fail(err, HS_EINTERNAL, "out of memory");
    sw_config *k = &plan->configs[plan->n_configs++];
    *k = *c;
    char micro[16] = "";
    if (c->micro_batches)
        snprintf(micro, sizeof micro, "%d", c->micro_batches);
    k->key = sw_arena_printf(a, "%s|%s|%s|%s|%d|%s|%s|%s|%s|%s", plan->mode, c->workload,
                          c->platform, c->strategy, c->gpus, c->rule->text, micro,
                          c->placement ? c->placement : "", c->collectives ? c->collectives : "",
                          plan->layers ? plan->layers : "");
    return k->key ? HS_OK : hs_fail(err, HS_EINTERNAL, "out of memory");
}

static int by_key(const void *x, const void *y)
{
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* A value repeated in a list (or GPU ranges that overlap) would run one configuration twice and
 * give the CSV two rows with one key. */
static int check_unique(const sw_plan *plan, char *err)
{
    const char **keys = malloc(((size_t)plan->n_configs + 1) * sizeof *keys);
    if (!keys)
        return hs_fail(err, HS_EINTERNAL, "out of memory");
    for (int i = 0; i < plan->n_configs; i++)
        keys[i] = plan->configs[i].key;
    qsort(keys, (size_t)plan->n_configs, sizeof *keys, by_key);
    int status = HS_OK;
    for (int i = 1; i < plan->n_configs && status == HS_OK; i++)
        if (strcmp(keys[i - 1], keys[i]) == 0)
            status = hs_fail(err, HS_EINPUT,
                             "configuration %s comes twice: a value is repeated in a list",
                             keys[i]);
    free(keys);
    return status;
}

/* The configurations, nested in the order workloads, platforms, strategies, GPU counts, batch
 * rules, micro-batches (pipeline only), placements, collectives: the CSV's order. */
static int enumerate(const sw_dims *d, sw_plan *plan, sw_arena *a, char *err)
{
    bool analytic = strcmp(plan->mode, "analytic") == 0;
    int cap = 0, status = HS_OK;
    for (int w = 0; w < d->n_workloads; w++)
        for (int p = 0; p < d->n_platforms; p++)
            for (int s = 0; s < d->n_strategies; s++)
                for (int g = 0; g < d->n_gpus; g++)
                    for (int b = 0; b < d->n_rules; b++)
                        for (int m = 0; m < (d->kinds[s] == ST_PIPELINE ? d->n_micro : 1); m++)
                            for (int pl = 0; pl < d->n_placements; pl++)
                                for (int co = 0; co < d->n_collectives; co++) {
                                    sw_config c = {
                                        .workload = d->workloads[w].text,
                                        .platform = d->platforms[p].text,
                                        .strategy = d->strategies[s].text,
                                        .gpus = d->gpus[g],
                                        .rule = &d->rules[b],
                                        .micro_batches =
                                            d->kinds[s] == ST_PIPELINE ? d->micro[m] : 0,
                                        .placement = analytic ? NULL : d->placements[pl].text,
                                        .collectives = analytic ? NULL : d->collectives[co].text,
                                    };
                                    resolve_batch(&c, d->gpus_per_node[p], a);
                                    if ((status = add_config(plan, &cap, &c, a, err)))
                                        return status;
                                }
    return check_unique(plan, err);
}

/* ------------------------------------------------------------------------------------------ */
/* The CSV: one header, one row per configuration, RFC 4180 quoting. */

enum {
    C_KEY, C_MODE, C_WORKLOAD, C_PLATFORM, C_STRATEGY, C_GPUS, C_BATCH_RULE, C_MICRO,
    C_PLACEMENT, C_COLLECTIVES, C_LAYERS, C_BATCH, C_P1, C_P2, C_ITERATIONS,
    C_AN, /* 8 columns: iteration compute, comm, exposed comm, total; epoch the same */
    C_SIM = C_AN + 8,
    C_MEMORY = C_SIM + 8, C_FITS, C_AGREEMENT, C_WALL, C_STATUS, C_MESSAGE, C_COUNT
};

static const char *const column_names[C_COUNT] = {
    "key", "mode", "workload", "platform", "strategy", "gpus", "batch_rule", "micro_batches",
    "placement", "collectives", "layers", "batch", "p1", "p2", "iterations_per_epoch",
    "an_iter_compute_s", "an_iter_comm_s", "an_iter_exposed_comm_s", "an_iter_total_s",
    "an_epoch_compute_s", "an_epoch_comm_s", "an_epoch_exposed_comm_s", "an_epoch_total_s",
    "sim_iter_compute_s", "sim_iter_comm_s", "sim_iter_exposed_comm_s", "sim_iter_total_s",
    "sim_epoch_compute_s", "sim_epoch_comm_s", "sim_epoch_exposed_comm_s", "sim_epoch_total_s",
    "memory_per_gpu_bytes", "fits_in_memory", "agreement", "wall_s", "status", "message",
};

static void csv_field(sw_buf *b, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        sw_buf_puts(b, s);
        return;
    }
    sw_buf_puts(b, "\"");
    for (; *s; s++) {
        if (*s == '"')
            sw_buf_puts(b, "\""); /* a quote inside a quoted field is doubled */
        sw_buf_add(b, s, 1);
    }
    sw_buf_puts(b, "\"");
}

static char *csv_header(sw_arena *a)
{
    sw_buf b = {0};
    for (int i = 0; i < C_COUNT; i++) {
        if (i)
            sw_buf_puts(&b, ",");
        sw_buf_puts(&b, column_names[i]);
    }
    sw_buf_puts(&b, "\n");
    char *s = b.oom ? NULL : sw_arena_strdup(a, b.data);
    free(b.data);
    return s;
}

/* Split one record in place (quotes removed); the number of fields, or -1 if a quote is open. */
static int csv_split(char *line, char **fields, int max)
{
    int n = 0;
    char *p = line;
    for (;;) {
        char *out = p, *start = p;
        if (*p == '"') {
            p++;
            for (;;) {
                if (*p == '\0')
                    return -1;
                if (*p == '"' && p[1] == '"') {
                    *out++ = '"';
                    p += 2;
                } else if (*p == '"') {
                    p++;
                    break;
                } else {
                    *out++ = *p++;
                }
            }
        } else {
            while (*p && *p != ',')
                *out++ = *p++;
        }
        if (*p != ',' && *p != '\0')
            return -1; /* text after a closing quote */
        char sep = *p;
        *out = '\0';
        if (n < max)
            fields[n] = start;
        n++;
        if (sep == '\0')
            return n;
        p++;
    }
}

/* A row read back from a CSV. */
typedef struct {
    const char *key;    /* its key column */
    const char *status; /* ok, error, failed */
    const char *line;   /* the record as it was, newline included */
    bool superseded;    /* a later row has the same key */
    bool matched;       /* a configuration of this sweep has its key */
} sw_row;

typedef struct {
    sw_row *rows; /* in file order */
    int n, cap;
    int truncated; /* 1 if the last line had no newline (an interrupted write) and was dropped */
} sw_table;

static int add_row(sw_table *t, const char *path, int line_no, const char *line, size_t len,
                   sw_arena *a, char *err)
{
    char *record = sw_arena_strndup(a, line, len);
    char *fields_text = sw_arena_strndup(a, line, len - 1); /* without the newline */
    if (!record || !fields_text)
        return hs_fail(err, HS_EINTERNAL, "out of memory");
    char *fields[C_COUNT];
    int n = csv_split(fields_text, fields, C_COUNT);
    if (n != C_COUNT)
        return hs_fail(err, HS_EINPUT, "%s:%d: %s (expected %d fields); fix or remove the line",
                       path, line_no, n < 0 ? "an unclosed quote" : "wrong number of fields",
                       C_COUNT);
    if (!sw_grow((void **)&t->rows, &t->cap, t->n, sizeof *t->rows))
        return hs_fail(err, HS_EINTERNAL, "out of memory");
    t->rows[t->n++] = (sw_row){fields[C_KEY], fields[C_STATUS], record, false, false};
    return HS_OK;
}

/* Read a sweep CSV. A missing file is an empty table; a header that differs from this
 * version's is an error (the columns would not line up). */
static int table_read(const char *path, const char *header, sw_table *t, sw_arena *a, char *err)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        if (errno == ENOENT)
            return HS_OK;
        return hs_fail(err, HS_EINPUT, "%s: cannot read: %s", path, strerror(errno));
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    int line_no = 0, status = HS_OK;
    while (status == HS_OK && (len = getline(&line, &cap, f)) > 0) {
        line_no++;
        if (line[len - 1] != '\n') {
            t->truncated = 1; /* the last line of an interrupted write: that run runs again */
            break;
        }
        if (line_no == 1) {
            if (strcmp(line, header) != 0)
                status = hs_fail(err, HS_EINPUT,
                                 "%s:1: not a hybridsim sweep CSV of this version (the header "
                                 "differs); write to another file",
                                 path);
            continue;
        }
        status = add_row(t, path, line_no, line, (size_t)len, a, err);
    }
    free(line);
    fclose(f);
    return status;
}

typedef struct {
    const char *key; /* a row's key */
    int row;         /* its index in the table */
} sw_keyref;

static int keyref_cmp(const void *x, const void *y)
{
    const sw_keyref *a = x, *b = y;
    int c = strcmp(a->key, b->key);
    return c ? c : (a->row > b->row) - (a->row < b->row);
}

/* Index the rows by key; of rows sharing a key the last one counts (a run that failed, then ran
 * again on resume, appears twice until the file is rewritten). */
static sw_keyref *table_index(sw_table *t, int *n_refs)
{
    sw_keyref *refs = malloc(((size_t)t->n + 1) * sizeof *refs);
    if (!refs)
        return NULL;
    for (int i = 0; i < t->n; i++)
        refs[i] = (sw_keyref){t->rows[i].key, i};
    qsort(refs, (size_t)t->n, sizeof *refs, keyref_cmp);
    int n = 0;
    for (int i = 0; i < t->n; i++) {
        if (i + 1 < t->n && strcmp(refs[i].key, refs[i + 1].key) == 0) {
            t->rows[refs[i].row].superseded = true;
            continue;
        }
        refs[n++] = refs[i];
    }
    *n_refs = n;
    return refs;
}

static int keyref_find(const void *key, const void *ref)
{
    return strcmp((const char *)key, ((const sw_keyref *)ref)->key);
}

/* Write header + lines to path through a temp file, fsync and rename, so a reader (or an
 * interruption) sees the old file or the new one, never half of one. */
static int write_atomic(const char *flag, const char *path, const char *header,
                        const char *const *lines, int n, sw_arena *a, char *err)
{
    char *tmp = sw_arena_printf(a, "%s.tmp.%ld", path, (long)getpid());
    if (!tmp)
        return hs_fail(err, HS_EINTERNAL, "out of memory");
    FILE *f = fopen(tmp, "w");
    if (!f)
        return hs_fail(err, HS_EINPUT, "%s %s: cannot write: %s", flag, path, strerror(errno));
    if (header)
        fputs(header, f);
    for (int i = 0; i < n; i++)
        fputs(lines[i], f);
    bool bad = fflush(f) != 0 || ferror(f) || fsync(fileno(f)) != 0;
    int saved = errno;
    if (fclose(f) != 0)
        bad = true;
    if (bad || rename(tmp, path) != 0) {
        saved = bad ? saved : errno;
        unlink(tmp);
        return hs_fail(err, HS_EINPUT, "%s %s: cannot write: %s", flag, path, strerror(saved));
    }
    return HS_OK;
}

/* Append one whole row with a single write, then fsync: an interruption leaves whole rows and
 * at worst one truncated last line, which the next reading drops. */
static int append_row(int fd, const char *path, const char *line, char *err)
{
    size_t len = strlen(line);
    while (len > 0) {
        ssize_t w = write(fd, line, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return hs_fail(err, HS_EINTERNAL, "%s: cannot append a row: %s", path,
                           strerror(errno));
        line += w;
        len -= (size_t)w;
    }
    if (fsync(fd) != 0)
        return hs_fail(err, HS_EINTERNAL, "%s: fsync: %s", path, strerror(errno));
    return HS_OK;
}

/* ------------------------------------------------------------------------------------------ */
/* JSON: hybridsim's own output, flattened to "analytic.iteration.total_s" -> "0.25". Numbers are
 * kept as the text the child printed (%.17g), so the CSV holds exactly what it computed. */

typedef struct {
    const char *path;  /* dotted member names */
    const char *value; /* number or true/false/null as printed; a string unescaped */
} sw_jfield;

typedef struct {
    sw_jfield *f;
    int n, cap;
} sw_json;

static const char *json_ws(const char *p)
{
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
        p++;
    return p;
}

/* p at '"'. The unescaped string in *out; returns the text after it, NULL if malformed. */
static const char *json_string(const char *p, char **out, sw_arena *a)
{
    sw_buf b = {0};
    sw_buf_puts(&b, "");
    for (p++; *p && *p != '"'; p++) {
        char c = *p;
        if (c == '\\') {
            p++;
            switch (*p) {
            case 'n': c = ' '; break;
            case 't': c = ' '; break;
            case 'r': c = ' '; break;
            case 'u': c = '?'; for (int k = 0; k < 4 && p[1]; k++) p++; break;
            case '\0': free(b.data); return NULL;
            default: c = *p; break;
            }
        }
        sw_buf_add(&b, &c, 1);
    }
    if (*p != '"' || b.oom) {
        free(b.data);
        return NULL;
    }
    *out = sw_arena_strdup(a, b.data);
    free(b.data);
    return *out ? p + 1 : NULL;
}

/* path NULL: parse without keeping (array elements: the row needs none of them). */
static const char *json_value(const char *p, const char *path, int depth, sw_json *j,
                              sw_arena *a)
{
    p = json_ws(p);
    if (depth > 16)
        return NULL;
    if (*p == '[') {
        p = json_ws(p + 1);
        if (*p == ']')
            return p + 1;
        for (;;) {
            if (!(p = json_value(p, NULL, depth + 1, j, a)))
                return NULL;
            p = json_ws(p);
            if (*p == ']')
                return p + 1;
            if (*p != ',')
                return NULL;
            p = json_ws(p + 1);
        }
    }
    if (*p == '{') {
        p = json_ws(p + 1);
        if (*p == '}')
            return p + 1;
        for (;;) {
            char *name = NULL;
            if (*p != '"' || !(p = json_string(p, &name, a)))
                return NULL;
            p = json_ws(p);
            if (*p != ':')
                return NULL;
            char *sub = !path ? NULL : path[0] ? sw_arena_printf(a, "%s.%s", path, name) : name;
            if ((path && !sub) || !(p = json_value(p + 1, sub, depth + 1, j, a)))
                return NULL;
            p = json_ws(p);
            if (*p == '}')
                return p + 1;
            if (*p != ',')
                return NULL;
            p = json_ws(p + 1);
        }
    }
    char *value = NULL;
    if (*p == '"') {
        if (!(p = json_string(p, &value, a)))
            return NULL;
    } else {
        size_t n = strcspn(p, ",}] \t\r\n");
        if (n == 0)
            return NULL;
        if (path && !(value = sw_arena_strndup(a, p, n)))
            return NULL;
        p += n;
    }
    if (!path)
        return p;
    if (!sw_grow((void **)&j->f, &j->cap, j->n, sizeof *j->f))
        return NULL;
    j->f[j->n++] = (sw_jfield){path, value};
    return p;
}

/* Parse a run's output; `prefix` names a single estimate's side ("analytic") so that every mode
 * reads as compare's {"analytic": {...}, "simulate": {...}}. */
static bool json_parse(const char *text, const char *prefix, sw_json *j, sw_arena *a)
{
    const char *end = json_value(text, prefix, 0, j, a);
    return end && *json_ws(end) == '\0';
}

static const char *json_get(const sw_json *j, const char *path)
{
    for (int i = 0; i < j->n; i++)
        if (strcmp(j->f[i].path, path) == 0)
            return j->f[i].value;
    return NULL;
}

/* ------------------------------------------------------------------------------------------ */
/* Rows from runs. */

/* How one configuration ended. */
typedef struct {
    const char *status;  /* ok, error, failed */
    const char *message; /* why not ok ("" when ok) */
    double wall_s;       /* the run's wall time (0 when nothing ran) */
    const sw_json *json; /* the run's output when ok */
} sw_outcome;

static const char *const time_fields[8] = {
    "iteration.compute_s", "iteration.comm_s", "iteration.exposed_comm_s", "iteration.total_s",
    "epoch.compute_s", "epoch.comm_s", NULL /* epoch exposed: computed */, "epoch.total_s",
};

/* The sides a mode's JSON has. */
static int mode_sides(const char *mode, const char **sides)
{
    if (strcmp(mode, "compare") == 0) {
        sides[0] = "analytic";
        sides[1] = "simulate";
        return 2;
    }
    sides[0] = mode;
    return 1;
}

/* The first field a run's JSON lacks, or NULL when it has all the row needs. */
static const char *json_missing(const sw_json *j, const char *mode, sw_arena *a)
{
    const char *sides[2];
    int n = mode_sides(mode, sides);
    static const char *const common[] = {"batch", "p1", "p2", "iterations_per_epoch",
                                         "memory_per_gpu_bytes", "fits_in_memory"};
    for (int s = 0; s < n; s++) {
        for (int i = 0; i < 8; i++) {
            char *path = time_fields[i] ? sw_arena_printf(a, "%s.%s", sides[s], time_fields[i]) : NULL;
            if (time_fields[i] && (!path || !json_get(j, path)))
                return path ? path : "memory";
        }
        for (int i = 0; i < 6; i++) {
            char *path = sw_arena_printf(a, "%s.%s", sides[s], common[i]);
            if (!path || !json_get(j, path))
                return path ? path : "memory";
        }
    }
    if (n == 2 && !json_get(j, "agreement"))
        return "agreement";
    return NULL;
}

/* One side's eight time columns. The epoch's exposed communication is not in the JSON; it
 * scales like communication, with the iterations (estimate.h's rule). */
static void side_columns(const sw_json *j, const char *side, const char **col, sw_arena *a)
{
    for (int i = 0; i < 8; i++) {
        if (time_fields[i]) {
            char *path = sw_arena_printf(a, "%s.%s", side, time_fields[i]);
            col[i] = path ? json_get(j, path) : NULL;
        }
    }
    char *exposed = sw_arena_printf(a, "%s.iteration.exposed_comm_s", side);
    char *iters = sw_arena_printf(a, "%s.iterations_per_epoch", side);
    const char *e = exposed ? json_get(j, exposed) : NULL, *it = iters ? json_get(j, iters) : NULL;
    if (e && it)
        col[6] = sw_arena_printf(a, "%.17g", strtod(e, NULL) * strtod(it, NULL));
}

static char *format_row(const sw_plan *plan, const sw_config *c, const sw_outcome *o,
                        sw_arena *a)
{
    const char *col[C_COUNT];
    for (int i = 0; i < C_COUNT; i++)
        col[i] = "";
    col[C_KEY] = c->key;
    col[C_MODE] = plan->mode;
    col[C_WORKLOAD] = c->workload;
    col[C_PLATFORM] = c->platform;
    col[C_STRATEGY] = c->strategy;
    col[C_GPUS] = sw_arena_printf(a, "%d", c->gpus);
    col[C_BATCH_RULE] = c->rule->text;
    if (c->micro_batches)
        col[C_MICRO] = sw_arena_printf(a, "%d", c->micro_batches);
    col[C_PLACEMENT] = c->placement ? c->placement : "";
    col[C_COLLECTIVES] = c->collectives ? c->collectives : "";
    col[C_LAYERS] = plan->layers ? plan->layers : "";
    if (c->batch)
        col[C_BATCH] = sw_arena_printf(a, "%lld", (long long)c->batch);
    if (o->json) {
        const char *sides[2];
        int n = mode_sides(plan->mode, sides);
        const char *first = sides[0];
        char *p;
        if ((p = sw_arena_printf(a, "%s.p1", first)))
            col[C_P1] = json_get(o->json, p);
        if ((p = sw_arena_printf(a, "%s.p2", first)))
            col[C_P2] = json_get(o->json, p);
        if ((p = sw_arena_printf(a, "%s.iterations_per_epoch", first)))
            col[C_ITERATIONS] = json_get(o->json, p);
        if ((p = sw_arena_printf(a, "%s.memory_per_gpu_bytes", first)))
            col[C_MEMORY] = json_get(o->json, p);
        if ((p = sw_arena_printf(a, "%s.fits_in_memory", first)))
            col[C_FITS] = json_get(o->json, p);
        for (int s = 0; s < n; s++)
            side_columns(o->json, sides[s],
                         col + (strcmp(sides[s], "analytic") == 0 ? C_AN : C_SIM), a);
        if (n == 2)
            col[C_AGREEMENT] = json_get(o->json, "agreement");
    }
    col[C_WALL] = sw_arena_printf(a, "%.3f", o->wall_s);
    col[C_STATUS] = o->status;
    col[C_MESSAGE] = o->message;
    sw_buf b = {0};
    for (int i = 0; i < C_COUNT; i++) {
        if (i)
            sw_buf_puts(&b, ",");
        csv_field(&b, col[i] ? col[i] : "");
    }
    sw_buf_puts(&b, "\n");
    char *line = b.oom ? NULL : sw_arena_strdup(a, b.data);
    free(b.data);
    return line;
}

/* ------------------------------------------------------------------------------------------ */
/* Running children. */

/* The interrupting signal, 0 if none. The sweep's one global: a signal handler reaches
 * nothing else. */
static volatile sig_atomic_t sw_interrupt;

static void on_signal(int sig) { sw_interrupt = sig; }

/* A run in flight. */
typedef struct {
    pid_t pid;        /* 0: the slot is free */
    int config;       /* the configuration it runs */
    double start_s;
    bool timed_out;   /* we killed it after --timeout */
} sw_slot;

/* What the progress line shows. */
typedef struct {
    bool enabled, tty;
    int total;        /* configurations in the sweep */
    int skipped;      /* already in the CSV */
    int to_run;       /* configurations this session runs */
    int done, errors, failed, running;
    int last_tenth;   /* plain lines: the tenth of the work the last line reported */
    double start_s, last_s; /* session start; the last time a line was drawn */
} sw_progress;

/* The state of one sweep run. */
typedef struct {
    const sw_plan *plan;
    const char *exe;         /* the hybridsim executable */
    char tmpdir[PATH_MAX / 2]; /* children's stdout and stderr (short: file names follow) */
    int csv_fd;              /* the CSV, opened for appending */
    const char **line_of;    /* per configuration: its row (old or new), or NULL */
    FILE *log;               /* --log, or NULL */
    sw_progress progress;
    sw_arena *arena;
} sw_runner;

/* The run command of a configuration: EXE MODE -w .. -p .. -s .. -g .. -b .. --json. argv has
 * room for 24 entries; numbers go into nums. */
static void child_argv(const sw_plan *plan, const sw_config *c, const char *exe, char **argv,
                       char nums[3][24])
{
    int n = 0;
    snprintf(nums[0], 24, "%d", c->gpus);
    snprintf(nums[1], 24, "%lld", (long long)c->batch);
    snprintf(nums[2], 24, "%d", c->micro_batches);
    argv[n++] = (char *)exe;
    argv[n++] = (char *)plan->mode;
    argv[n++] = "-w", argv[n++] = (char *)c->workload;
    argv[n++] = "-p", argv[n++] = (char *)c->platform;
    argv[n++] = "-s", argv[n++] = (char *)c->strategy;
    argv[n++] = "-g", argv[n++] = nums[0];
    argv[n++] = "-b", argv[n++] = nums[1];
    if (c->micro_batches)
        argv[n++] = "--micro-batches", argv[n++] = nums[2];
    if (plan->layers)
        argv[n++] = "--layers", argv[n++] = (char *)plan->layers;
    if (c->placement)
        argv[n++] = "--placement", argv[n++] = (char *)c->placement;
    if (c->collectives)
        argv[n++] = "--collectives", argv[n++] = (char *)c->collectives;
    argv[n++] = "--json";
    argv[n] = NULL;
}

/* Where a run's stdout ("out") or stderr ("err") goes. */
static void child_path(const sw_runner *r, int config, const char *ext, char path[PATH_MAX])
{
    snprintf(path, PATH_MAX, "%s/%d.%s", r->tmpdir, config, ext);
}

static void log_run(sw_runner *r, const sw_config *c, char **argv)
{
    if (!r->log)
        return;
    sw_buf b = {0};
    sw_buf_puts(&b, c->key);
    sw_buf_puts(&b, "\t");
    for (int i = 0; argv[i]; i++) {
        if (i)
            sw_buf_puts(&b, " ");
        sw_shell_word(&b, argv[i]);
    }
    if (!b.oom) {
        fprintf(r->log, "%s\n", b.data);
        fflush(r->log);
    }
    free(b.data);
}

/* Fork and exec one run, its stdout and stderr into files of the temp directory. */
static int launch(sw_runner *r, int config, sw_slot *slot, char *err)
{
    const sw_config *c = &r->plan->configs[config];
    char *argv[24], nums[3][24];
    child_argv(r->plan, c, r->exe, argv, nums);
    char out_path[PATH_MAX], err_path[PATH_MAX];
    child_path(r, config, "out", out_path);
    child_path(r, config, "err", err_path);
    int in = open("/dev/null", O_RDONLY | O_CLOEXEC);
    int out = open(out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    int errfd = open(err_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (in < 0 || out < 0 || errfd < 0) {
        int saved = errno;
        if (in >= 0) close(in);
        if (out >= 0) close(out);
        if (errfd >= 0) close(errfd);
        return hs_fail(err, HS_EINTERNAL, "%s: %s", r->tmpdir, strerror(saved));
    }
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        /* Only async-signal-safe calls until exec. A run outlives no killed sweep. */
#ifdef __linux__
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(127);
#endif
        if (dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(errfd, 2) < 0)
            _exit(127);
        execv(r->exe, argv);
        static const char msg[] = "hybridsim: sweep: cannot execute the hybridsim executable\n";
        ssize_t ignored = write(2, msg, sizeof msg - 1);
        (void)ignored;
        _exit(127);
    }
    (void)parent;
    int saved = errno;
    close(in);
    close(out);
    close(errfd);
    if (pid < 0)
        return hs_fail(err, HS_EINTERNAL, "fork: %s", strerror(saved));
    *slot = (sw_slot){pid, config, sw_now_s(), false};
    log_run(r, c, argv);
    return HS_OK;
}

/* The message of a failed run: its last "hybridsim: ..." line, else its last line. */
static char *run_message(char *text, sw_arena *a)
{
    char *best = NULL, *last = NULL, *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        line = sw_trim(line);
        if (!*line)
            continue;
        last = line;
        if (strncmp(line, "hybridsim: ", 11) == 0)
            best = line + 11;
    }
    char *m = best ? best : last ? last : "";
    char *copy = sw_arena_strndup(a, m, strnlen(m, SW_MESSAGE_LEN));
    if (copy)
        for (char *p = copy; *p; p++)
            if ((unsigned char)*p < 0x20)
                *p = ' ';
    return copy ? copy : "";
}

/* What a finished child's exit status and output say about its configuration. The outcome's
 * strings live in `a`, the run's own scratch arena. */
static sw_outcome judge(const sw_runner *r, const sw_slot *slot, int wstatus, sw_json *json,
                        sw_arena *a)
{
    const char *mode = r->plan->mode;
    sw_outcome o = {"failed", "", sw_now_s() - slot->start_s, NULL};
    char out_path[PATH_MAX], err_path[PATH_MAX];
    child_path(r, slot->config, "out", out_path);
    child_path(r, slot->config, "err", err_path);
    char *out = sw_slurp(out_path, a), *errtext = sw_slurp(err_path, a);
    unlink(out_path);
    unlink(err_path);
    char *message = run_message(errtext, a);
    if (slot->timed_out) {
        o.message = sw_arena_printf(a, "timed out after %g s (--timeout)", r->plan->timeout_s);
    } else if (WIFSIGNALED(wstatus)) {
        o.message = sw_arena_printf(a, "killed by signal %d (%s)%s%s", WTERMSIG(wstatus),
                                 strsignal(WTERMSIG(wstatus)), *message ? ": " : "", message);
    } else if (WEXITSTATUS(wstatus) == HS_EINPUT) {
        o.status = "error";
        o.message = message;
    } else if (WEXITSTATUS(wstatus) != 0) {
        o.message = sw_arena_printf(a, "exit status %d%s%s", WEXITSTATUS(wstatus),
                                 *message ? ": " : "", message);
    } else if (!json_parse(out, strcmp(mode, "compare") == 0 ? "" : mode, json, a)) {
        o.message = "the run printed no readable JSON";
    } else {
        const char *missing = json_missing(json, mode, a);
        if (missing) {
            o.message = sw_arena_printf(a, "the run's JSON has no %s", missing);
        } else {
            o.status = "ok";
            o.json = json;
        }
    }
    if (!o.message)
        o.message = "out of memory";
    return o;
}

static void progress_draw(sw_progress *p, bool force);

/* Record a configuration's row: append it to the CSV and remember it for the final rewrite.
 * The row is formatted in a scratch arena (a run's output can be large) and only the row kept. */
static int record(sw_runner *r, int config, const sw_outcome *o, char *err)
{
    sw_arena scratch = {0};
    char *formatted = format_row(r->plan, &r->plan->configs[config], o, &scratch);
    char *line = formatted ? sw_arena_strdup(r->arena, formatted) : NULL;
    sw_arena_free(&scratch);
    if (!line)
        return hs_fail(err, HS_EINTERNAL, "out of memory");
    int status = append_row(r->csv_fd, r->plan->output, line, err);
    if (status != HS_OK)
        return status;
    r->line_of[config] = line;
    r->progress.done++;
    r->progress.errors += strcmp(o->status, "error") == 0;
    r->progress.failed += strcmp(o->status, "failed") == 0;
    progress_draw(&r->progress, false);
    return HS_OK;
}

/* Free a slot whose run will give no row, removing its output files. */
static void forget(const sw_runner *r, sw_slot *s)
{
    char path[PATH_MAX];
    child_path(r, s->config, "out", path);
    unlink(path);
    child_path(r, s->config, "err", path);
    unlink(path);
    s->pid = 0;
}

/* Reap the runs that finished and kill those past --timeout. */
static int reap(sw_runner *r, sw_slot *slots, int n_slots, bool *any, char *err)
{
    double now = sw_now_s();
    for (int i = 0; i < n_slots; i++) {
        sw_slot *s = &slots[i];
        if (!s->pid)
            continue;
        int wstatus;
        pid_t got = waitpid(s->pid, &wstatus, WNOHANG);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            return hs_fail(err, HS_EINTERNAL, "waitpid: %s", strerror(errno));
        if (got == 0) {
            if (r->plan->timeout_s > 0 && !s->timed_out && now - s->start_s > r->plan->timeout_s) {
                kill(s->pid, SIGKILL);
                s->timed_out = true;
            }
            continue;
        }
        if (sw_interrupt) { /* killed with the sweep: not the configuration's fault, no row */
            forget(r, s);
            r->progress.running--;
            continue;
        }
        sw_json json = {0};
        sw_arena scratch = {0};
        sw_outcome o = judge(r, s, wstatus, &json, &scratch);
        s->pid = 0;
        r->progress.running--;
        *any = true;
        int status = record(r, s->config, &o, err);
        free(json.f);
        sw_arena_free(&scratch);
        if (status != HS_OK)
            return status;
    }
    return HS_OK;
}

/* Stop every run in flight and wait for it (after a signal or an error). */
static void stop_all(sw_runner *r, sw_slot *slots, int n_slots)
{
    for (int i = 0; i < n_slots; i++)
        if (slots[i].pid)
            kill(slots[i].pid, SIGTERM);
    for (int i = 0; i < n_slots; i++) {
        if (!slots[i].pid)
            continue;
        while (waitpid(slots[i].pid, NULL, 0) < 0 && errno == EINTR)
            ;
        forget(r, &slots[i]);
    }
}

/* Run the configurations in todo[], --jobs at a time; stop_after < 0: no limit. */
static int run_all(sw_runner *r, const int *todo, int n_todo, int stop_after, char *err)
{
    int jobs = r->plan->jobs, next = 0, started = 0, status = HS_OK;
    sw_slot *slots = calloc((size_t)jobs, sizeof *slots);
    if (!slots)
        return hs_fail(err, HS_EINTERNAL, "out of memory");
    while (status == HS_OK && !sw_interrupt) {
        for (int i = 0; i < jobs && next < n_todo && status == HS_OK; i++) {
            if (slots[i].pid)
                continue;
            const sw_config *c = &r->plan->configs[todo[next]];
            if (c->error) { /* known before running: its row needs no process */
                sw_outcome o = {"error", c->error, 0.0, NULL};
                status = record(r, todo[next++], &o, err);
                i--;
                continue;
            }
            if (stop_after >= 0 && started >= stop_after)
                break;
            status = launch(r, todo[next++], &slots[i], err);
            started++;
            r->progress.running++;
        }
        bool stopping = stop_after >= 0 && started >= stop_after;
        if (status != HS_OK || (r->progress.running == 0 && (next >= n_todo || stopping)))
            break;
        bool any = false;
        status = reap(r, slots, jobs, &any, err);
        progress_draw(&r->progress, false);
        if (!any && status == HS_OK) {
            struct timespec pause = {0, 20 * 1000 * 1000};
            nanosleep(&pause, NULL);
        }
    }
    stop_all(r, slots, jobs);
    free(slots);
    return status;
}

/* ------------------------------------------------------------------------------------------ */
/* Progress on stderr: a bar redrawn in place on a terminal, else a plain line now and then. */

static void format_duration(double s, char *out, size_t len)
{
    long t = s > 0 ? (long)(s + 0.5) : 0;
    if (t >= 3600)
        snprintf(out, len, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
    else
        snprintf(out, len, "%ld:%02ld", t / 60, t % 60);
}

static void progress_draw(sw_progress *p, bool force)
{
    if (!p->enabled)
        return;
    double now = sw_now_s();
    /* A plain line every SW_PLAIN_PROGRESS_S, and at every tenth of the work, so that a log
     * shows progress without a line per run. */
    int tenth = p->to_run ? 10 * p->done / p->to_run : 10;
    if (!p->tty && tenth > p->last_tenth)
        force = true;
    if (!force && now - p->last_s < (p->tty ? 0.25 : SW_PLAIN_PROGRESS_S))
        return;
    p->last_tenth = tenth;
    p->last_s = now;
    double elapsed = now - p->start_s;
    char spent[32], left[32] = "?";
    format_duration(elapsed, spent, sizeof spent);
    if (p->done > 0)
        format_duration(elapsed / p->done * (p->to_run - p->done), left, sizeof left);
    int finished = p->skipped + p->done;
    if (p->tty) {
        enum { WIDTH = 30 };
        char bar[WIDTH + 1];
        int fill = p->total ? (int)((long)WIDTH * finished / p->total) : WIDTH;
        for (int i = 0; i < WIDTH; i++)
            bar[i] = i < fill ? '#' : '.';
        bar[WIDTH] = '\0';
        fprintf(stderr, "\r\033[K[%s] %d/%d %3d%%  %d running  %d error  %d failed  %s  ~%s left",
                bar, finished, p->total, p->total ? 100 * finished / p->total : 100, p->running,
                p->errors, p->failed, spent, left);
    } else {
        fprintf(stderr,
                "sweep: %d/%d done (%d error, %d failed), %d running, %s elapsed, about %s left\n",
                finished, p->total, p->errors, p->failed, p->running, spent, left);
    }
    fflush(stderr);
}

/* ------------------------------------------------------------------------------------------ */
/* The direct sweep. */

/* The executable the runs exec: --exe, else the one running now. */
static int find_exe(const char *given, char *path, size_t len, char *err)
{
    if (given) {
        if (access(given, X_OK) != 0)
            return hs_fail(err, HS_EINPUT, "--exe %s: not an executable: %s", given,
                           strerror(errno));
        if (!realpath(given, path))
            return hs_fail(err, HS_EINPUT, "--exe %s: %s", given, strerror(errno));
        return HS_OK;
    }
    ssize_t n = readlink("/proc/self/exe", path, len - 1);
    if (n <= 0)
        return hs_fail(err, HS_EINTERNAL, "cannot find this executable (/proc/self/exe): %s",
                       strerror(errno));
    path[n] = '\0';
    return HS_OK;
}

/* The CSV's lines in final order: the configurations' rows, then rows of other sweeps. */
static const char **final_lines(const sw_plan *plan, const char **line_of, const sw_table *old,
                                int *n)
{
    const char **lines = malloc(((size_t)plan->n_configs + (size_t)old->n + 1) * sizeof *lines);
    if (!lines)
        return NULL;
    *n = 0;
    for (int i = 0; i < plan->n_configs; i++)
        if (line_of[i])
            lines[(*n)++] = line_of[i];
    for (int i = 0; i < old->n; i++)
        if (!old->rows[i].matched && !old->rows[i].superseded)
            lines[(*n)++] = old->rows[i].line;
    return lines;
}

static int rewrite_csv(const sw_plan *plan, const char **line_of, const sw_table *old,
                       const char *header, sw_arena *a, char *err)
{
    int n = 0;
    const char **lines = final_lines(plan, line_of, old, &n);
    if (!lines)
        return hs_fail(err, HS_EINTERNAL, "out of memory");
    int status = write_atomic("-o", plan->output, header, lines, n, a, err);
    free(lines);
    return status;
}

/* Match the CSV's rows to configurations: todo[] gets those without an ok or error row. */
static int plan_todo(const sw_plan *plan, sw_table *old, const char **line_of, int *todo,
                     int *n_todo, char *err)
{
    int n_refs = 0;
    sw_keyref *refs = table_index(old, &n_refs);
    if (!refs)
        return hs_fail(err, HS_EINTERNAL, "out of memory");
    *n_todo = 0;
    for (int i = 0; i < plan->n_configs; i++) {
        const sw_keyref *ref = bsearch(plan->configs[i].key, refs, (size_t)n_refs, sizeof *refs,
                                       keyref_find);
        if (ref) {
            sw_row *row = &old->rows[ref->row];
            row->matched = true;
            line_of[i] = row->line; /* kept even if failed: the rerun's row replaces it */
            if (strcmp(row->status, "failed") != 0)
                continue;
        }
        todo[(*n_todo)++] = i;
    }
    free(refs);
    return HS_OK;
}

/* Install the interruption handlers (restored by the caller from `saved`). */
static void catch_signals(struct sigaction saved[3])
{
    static const int sigs[3] = {SIGINT, SIGTERM, SIGHUP};
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sw_interrupt = 0;
    for (int i = 0; i < 3; i++) {
        sigaction(sigs[i], &sa, &saved[i]);
        /* A signal ignored on entry stays ignored (a background job of a script, nohup). */
        if (saved[i].sa_handler == SIG_IGN)
            sigaction(sigs[i], &saved[i], NULL);
    }
}

static void restore_signals(const struct sigaction saved[3])
{
    static const int sigs[3] = {SIGINT, SIGTERM, SIGHUP};
    for (int i = 0; i < 3; i++)
        sigaction(sigs[i], &saved[i], NULL);
}

static int run_sweep(const sw_plan *plan, const sw_cmdline *cl, sw_arena *a, char *err)
{
    char exe[PATH_MAX];
    int status = find_exe(cl->exe, exe, sizeof exe, err);
    if (status != HS_OK)
        return status;
    const char *header = csv_header(a);
    sw_table old = {0};
    const char **line_of = calloc((size_t)plan->n_configs + 1, sizeof *line_of);
    int *todo = calloc((size_t)plan->n_configs + 1, sizeof *todo);
    int n_todo = 0;
    sw_runner r = {.plan = plan, .exe = exe, .csv_fd = -1, .line_of = line_of, .arena = a};
    if (!header || !line_of || !todo) {
        status = hs_fail(err, HS_EINTERNAL, "out of memory");
        goto done;
    }
    if ((status = table_read(plan->output, header, &old, a, err)) ||
        (status = plan_todo(plan, &old, line_of, todo, &n_todo, err)) ||
        /* Start from a clean file: a truncated last line would otherwise glue onto the next. */
        (status = rewrite_csv(plan, line_of, &old, header, a, err)))
        goto done;
    r.csv_fd = open(plan->output, O_WRONLY | O_APPEND | O_CLOEXEC);
    if (r.csv_fd < 0) {
        status = hs_fail(err, HS_EINPUT, "%s: cannot append: %s", plan->output, strerror(errno));
        goto done;
    }
    if (plan->log && !(r.log = fopen(plan->log, "a"))) {
        status = hs_fail(err, HS_EINPUT, "--log %s: cannot write: %s", plan->log, strerror(errno));
        goto done;
    }
    const char *tmp = getenv("TMPDIR");
    int len = snprintf(r.tmpdir, sizeof r.tmpdir, "%s/hybridsim-sweep-XXXXXX",
                       tmp && *tmp ? tmp : "/tmp");
    if (len < 0 || (size_t)len >= sizeof r.tmpdir) {
        status = hs_fail(err, HS_EINPUT, "TMPDIR is too long a path");
        goto done;
    }
    if (!mkdtemp(r.tmpdir)) {
        status = hs_fail(err, HS_EINTERNAL, "mkdtemp %s: %s", r.tmpdir, strerror(errno));
        goto done;
    }
    r.progress = (sw_progress){.enabled = !cl->quiet, .tty = isatty(STDERR_FILENO) == 1,
                               .total = plan->n_configs, .skipped = plan->n_configs - n_todo,
                               .to_run = n_todo, .start_s = sw_now_s()};
    r.progress.last_s = r.progress.start_s;
    if (r.progress.enabled)
        fprintf(stderr, "sweep: %d configurations, %d already in %s, %d to run, %d at a time\n",
                plan->n_configs, plan->n_configs - n_todo, plan->output, n_todo, plan->jobs);
    struct sigaction saved[3];
    catch_signals(saved);
    status = run_all(&r, todo, n_todo, cl->stop_after, err);
    restore_signals(saved);
    rmdir(r.tmpdir);
    if (r.progress.enabled && r.progress.tty) {
        progress_draw(&r.progress, true); /* the last state, which the rate limit may skip */
        fputc('\n', stderr);
    }
    if (status == HS_OK && sw_interrupt)
        status = hs_fail(err, HS_EINTERNAL,
                         "interrupted by signal %d: %d of %d configurations are in %s; run the "
                         "same command again to finish",
                         (int)sw_interrupt, r.progress.skipped + r.progress.done,
                         plan->n_configs, plan->output);
    else if (status == HS_OK && r.progress.skipped + r.progress.done < plan->n_configs) {
        if (r.progress.enabled)
            fprintf(stderr, "sweep: stopped after %d runs (--stop-after); %d of %d "
                    "configurations are in %s\n", cl->stop_after,
                    r.progress.skipped + r.progress.done, plan->n_configs, plan->output);
    } else if (status == HS_OK) {
        status = rewrite_csv(plan, line_of, &old, header, a, err);
        if (status == HS_OK && r.progress.enabled)
            fprintf(stderr, "sweep: %d configurations in %s: %d run now (%d error, %d failed), "
                    "%d from before\n", plan->n_configs, plan->output, r.progress.done,
                    r.progress.errors, r.progress.failed, r.progress.skipped);
    }
done:
    if (r.csv_fd >= 0)
        close(r.csv_fd);
    if (r.log)
        fclose(r.log);
    free(old.rows);
    free(line_of);
    free(todo);
    return status;
}

/* ------------------------------------------------------------------------------------------ */
/* --emit: the runs as jobs for GNU parallel or Slurm; --merge: their rows back into one CSV. */

/* One job: cd to where the sweep was defined (relative paths keep their meaning), then a
 * one-configuration sweep writing DIR/<index>.csv. */
static char *job_command(const sw_plan *plan, const sw_config *c, int index, const char *cwd,
                         const char *exe, const char *dir, sw_arena *a)
{
    sw_buf b = {0};
    char num[32];
    sw_buf_puts(&b, "cd ");
    sw_shell_word(&b, cwd);
    sw_buf_puts(&b, " && ");
    sw_shell_word(&b, exe);
    sw_buf_puts(&b, " sweep --quiet --jobs 1 --mode ");
    sw_buf_puts(&b, plan->mode);
    const char *pairs[][2] = {{" -w ", c->workload}, {" -p ", c->platform},
                              {" -s ", c->strategy}, {" -b ", c->rule->text},
                              {" -P ", c->placement}, {" -c ", c->collectives},
                              {" --layers ", plan->layers}};
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        if (!pairs[i][1])
            continue;
        sw_buf_puts(&b, pairs[i][0]);
        sw_shell_word(&b, pairs[i][1]);
    }
    snprintf(num, sizeof num, " -g %d", c->gpus);
    sw_buf_puts(&b, num);
    if (c->micro_batches) {
        snprintf(num, sizeof num, " -S %d", c->micro_batches);
        sw_buf_puts(&b, num);
    }
    if (plan->timeout_s > 0) {
        snprintf(num, sizeof num, " --timeout %g", plan->timeout_s);
        sw_buf_puts(&b, num);
    }
    char *out = sw_arena_printf(a, "%s/%06d.csv", dir, index);
    sw_buf_puts(&b, " -o ");
    sw_shell_word(&b, out ? out : "");
    char *s = b.oom || !out ? NULL : sw_arena_strdup(a, b.data);
    free(b.data);
    return s;
}

static int emit_jobs(const sw_plan *plan, const sw_cmdline *cl, sw_arena *a, char *err)
{
    char exe[PATH_MAX], cwd[PATH_MAX];
    int status = find_exe(cl->exe, exe, sizeof exe, err);
    if (status != HS_OK)
        return status;
    if (!getcwd(cwd, sizeof cwd))
        return hs_fail(err, HS_EINTERNAL, "getcwd: %s", strerror(errno));
    const char *dir = cl->emit_dir ? cl->emit_dir : sw_arena_printf(a, "%s.d", cl->emit_file);
    if (!dir)
        return hs_fail(err, HS_EINTERNAL, "out of memory");
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        return hs_fail(err, HS_EINPUT, "--emit-dir %s: cannot create: %s", dir, strerror(errno));
    bool slurm = strcmp(cl->emit_kind, "slurm") == 0;
    const char **lines = calloc((size_t)plan->n_configs + 1, sizeof *lines);
    if (!lines)
        return hs_fail(err, HS_EINTERNAL, "out of memory");
    for (int i = 0; i < plan->n_configs && status == HS_OK; i++) {
        char *cmd = job_command(plan, &plan->configs[i], i, cwd, exe, dir, a);
        lines[i] = !cmd ? NULL
                   : slurm ? sw_arena_printf(a, "  %d) %s ;;\n", i, cmd)
                           : sw_arena_printf(a, "%s\n", cmd);
        if (!lines[i])
            status = hs_fail(err, HS_EINTERNAL, "out of memory");
    }
    const char *head = slurm
        ? sw_arena_printf(a,
                       "#!/bin/bash\n"
                       "# hybridsim sweep as a Slurm job array: one configuration per task.\n"
                       "# Submit: sbatch %s   Gather: hybridsim sweep --merge %s -o OUT.csv\n"
                       "#SBATCH --job-name=hybridsim-sweep\n"
                       "#SBATCH --array=0-%d\n"
                       "#SBATCH --ntasks=1\n"
                       "#SBATCH --cpus-per-task=1\n"
                       "#SBATCH --output=%s/slurm-%%A_%%a.out\n"
                       "set -eu\n"
                       "case \"${SLURM_ARRAY_TASK_ID:?run me with sbatch}\" in\n",
                       cl->emit_file, dir, plan->n_configs - 1, dir)
        : "";
    char *expected = sw_arena_printf(a, "%s/expected", dir);
    char *count = sw_arena_printf(a, "%d\n", plan->n_configs);
    if (status == HS_OK && (!head || !expected || !count))
        status = hs_fail(err, HS_EINTERNAL, "out of memory");
    if (status == HS_OK && slurm) {
        lines[plan->n_configs] = "  *) echo \"no configuration $SLURM_ARRAY_TASK_ID\" >&2; "
                                 "exit 2 ;;\nesac\n";
    }
    if (status == HS_OK)
        status = write_atomic("--emit", cl->emit_file, head, lines,
                              plan->n_configs + (slurm ? 1 : 0), a, err);
    /* The number of jobs, so that --merge can say which are missing. */
    const char *count_line[1] = {count};
    if (status == HS_OK)
        status = write_atomic("--emit-dir", expected, NULL, count_line, 1, a, err);
    if (status == HS_OK && slurm)
        chmod(cl->emit_file, 0755);
    if (status == HS_OK && !cl->quiet)
        fprintf(stderr,
                "sweep: wrote %d jobs to %s; their rows go to %s/; then: hybridsim sweep "
                "--merge %s -o OUT.csv\n",
                plan->n_configs, cl->emit_file, dir, dir);
    free(lines);
    return status;
}

static int by_number(const void *x, const void *y)
{
    long a = *(const long *)x, b = *(const long *)y;
    return (a > b) - (a < b);
}

/* The job outputs of DIR (000012.csv, ...) in index order. */
static int list_job_files(const char *dir, long **indices, int *n, char *err)
{
    DIR *d = opendir(dir);
    if (!d)
        return hs_fail(err, HS_EINPUT, "--merge %s: %s", dir, strerror(errno));
    int cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t digits = strspn(e->d_name, "0123456789");
        if (digits == 0 || strcmp(e->d_name + digits, ".csv") != 0)
            continue;
        if (!sw_grow((void **)indices, &cap, *n, sizeof **indices)) {
            closedir(d);
            return hs_fail(err, HS_EINTERNAL, "out of memory");
        }
        (*indices)[(*n)++] = strtol(e->d_name, NULL, 10);
    }
    closedir(d);
    qsort(*indices, (size_t)*n, sizeof **indices, by_number);
    return HS_OK;
}

static void report_missing(const char *dir, const long *indices, int n, sw_arena *a)
{
    char *expected_path = sw_arena_printf(a, "%s/expected", dir);
    long expected = expected_path ? strtol(sw_slurp(expected_path, a), NULL, 10) : 0;
    if (expected <= n)
        return;
    char list[256] = "";
    int shown = 0, k = 0;
    for (long i = 0; i < expected && shown < 10; i++) {
        while (k < n && indices[k] < i)
            k++;
        if (k < n && indices[k] == i)
            continue;
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%06ld", shown ? ", " : "", i);
        shown++;
    }
    fprintf(stderr, "sweep: merge: %ld of %ld jobs have no row yet (%s%s); merged the rest\n",
            expected - n, expected, list, expected - n > shown ? ", ..." : "");
}

static int merge_jobs(const char *dir, const char *output, bool quiet, sw_arena *a, char *err)
{
    if (!output)
        return hs_fail(err, HS_EINPUT, "--merge needs -o OUT.csv");
    const char *header = csv_header(a);
    long *indices = NULL;
    int n = 0, status = HS_OK;
    const char **lines = NULL;
    int n_lines = 0, cap = 0, with_row = 0;
    if (!header)
        return hs_fail(err, HS_EINTERNAL, "out of memory");
    if ((status = list_job_files(dir, &indices, &n, err)))
        goto done;
    for (int i = 0; i < n && status == HS_OK; i++) {
        char *path = sw_arena_printf(a, "%s/%06ld.csv", dir, indices[i]);
        sw_table t = {0};
        if (!path) {
            status = hs_fail(err, HS_EINTERNAL, "out of memory");
            break;
        }
        status = table_read(path, header, &t, a, err);
        int n_refs = 0;
        sw_keyref *refs = status == HS_OK ? table_index(&t, &n_refs) : NULL;
        if (status == HS_OK && !refs)
            status = hs_fail(err, HS_EINTERNAL, "out of memory");
        for (int k = 0; status == HS_OK && k < t.n; k++) {
            if (t.rows[k].superseded)
                continue;
            if (!sw_grow((void **)&lines, &cap, n_lines, sizeof *lines))
                status = hs_fail(err, HS_EINTERNAL, "out of memory");
            else
                lines[n_lines++] = t.rows[k].line;
        }
        if (status == HS_OK && n_refs > 0) /* a job killed early leaves only the header */
            indices[with_row++] = indices[i];
        free(refs);
        free(t.rows);
    }
    if (status == HS_OK)
        status = write_atomic("-o", output, header, lines, n_lines, a, err);
    if (status == HS_OK && !quiet) {
        report_missing(dir, indices, with_row, a); /* indices[0..with_row): jobs with a row */
        fprintf(stderr, "sweep: merged %d rows from %s into %s\n", n_lines, dir, output);
    }
done:
    free(indices);
    free(lines);
    return status;
}

/* ------------------------------------------------------------------------------------------ */

/* The file's lists, each replaced by the flags' list for the same key. */
static void overlay(sw_spec *file, const sw_spec *flags)
{
    for (int k = 0; k < K_COUNT; k++) {
        if (flags->key[k].n == 0)
            continue;
        free(file->key[k].items);
        file->key[k] = flags->key[k];
        file->key[k].cap = file->key[k].n;
        file->key[k].items = malloc((size_t)flags->key[k].n * sizeof *file->key[k].items);
        if (file->key[k].items)
            memcpy(file->key[k].items, flags->key[k].items,
                   (size_t)flags->key[k].n * sizeof *file->key[k].items);
        else
            file->key[k].n = file->key[k].cap = 0;
    }
}

static int plan_sweep(sw_spec *spec, const sw_cmdline *cl, sw_plan *plan, sw_dims *dims,
                      sw_arena *a, char *err)
{
    int status = check_options(spec, !cl->emit_kind, plan, err);
    if (status == HS_OK)
        status = check_dims(spec, strcmp(plan->mode, "analytic") == 0, dims, a, err);
    if (status == HS_OK)
        status = enumerate(dims, plan, a, err);
    return status;
}

int sw_main(int argc, char **argv, char *err)
{
    sw_arena arena = {0};
    sw_spec file = {0}, flags = {0};
    sw_cmdline cl = {.stop_after = -1};
    sw_plan plan = {0};
    sw_dims dims = {0};
    int status = parse_flags(argc, argv, &flags, &cl, &arena, err);
    if (status == HS_OK && cl.help) {
        print_usage(stdout);
    } else if (status == HS_OK && cl.merge_dir) {
        const sw_item *out = single(&flags.key[K_OUTPUT]);
        if (cl.file)
            status = hs_fail(err, HS_EINPUT, "--merge takes a directory and -o, not a sweep file");
        else if ((status = check_single(&flags.key[K_OUTPUT], err)) == HS_OK)
            status = merge_jobs(cl.merge_dir, out ? out->text : NULL, cl.quiet, &arena, err);
    } else if (status == HS_OK) {
        if (cl.file)
            status = read_sweep_file(cl.file, &file, &arena, err);
        if (status == HS_OK) {
            overlay(&file, &flags);
            status = plan_sweep(&file, &cl, &plan, &dims, &arena, err);
        }
        if (status == HS_OK && cl.emit_kind)
            status = emit_jobs(&plan, &cl, &arena, err);
        else if (status == HS_OK)
            status = run_sweep(&plan, &cl, &arena, err);
    }
    free(plan.configs);
    dims_free(&dims);
    spec_free(&file);
    spec_free(&flags);
    sw_arena_free(&arena);
    return status;
}
