/* sweep_config.c: what the user asked `hybridsim sweep` for (sweep_int.h): the sweep file and
 * the flags, read into one list of values per key, before any checking (sweep_plan.c checks).
 *
 * Every key of a sweep file is also a long flag, and a flag replaces the file's key, so one
 * table (keydefs) drives both readers; values keep where they came from ("FILE:LINE: KEY" or
 * "-g") so that a bad one is named wherever it is found to be bad. */
#define _GNU_SOURCE
#include "sweep_int.h"

#include <errno.h>
#include <stdbool.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hs_error.h"
#include "hs_parse.h"
#include "hs_text.h"
#include "platgen.h"

/* A key of the sweep file, which is also a long flag. */
typedef struct {
    const char *name;   /* "batch-per-gpu" */
    int key;            /* SW_K_* it fills */
    const char *suffix; /* appended to each value ("/gpu"), or NULL */
    char flag;          /* the short flag, or 0 */
    bool single;        /* takes one value (an option, not a dimension) */
} sw_keydef;

static const sw_keydef keydefs[] = {
    {"workloads", SW_K_WORKLOADS, NULL, 'w', false},
    {"workload", SW_K_WORKLOADS, NULL, 0, false},
    {"platforms", SW_K_PLATFORMS, NULL, 'p', false},
    {"platform", SW_K_PLATFORMS, NULL, 0, false},
    {"strategies", SW_K_STRATEGIES, NULL, 's', false},
    {"strategy", SW_K_STRATEGIES, NULL, 0, false},
    {"gpus", SW_K_GPUS, NULL, 'g', false},
    {"batch", SW_K_BATCH, NULL, 'b', false},
    {"batch-per-gpu", SW_K_BATCH, "/gpu", 0, false},
    {"batch-per-node", SW_K_BATCH, "/node", 0, false},
    {"batch-per-group", SW_K_BATCH, "/group", 0, false},
    {"micro-batches", SW_K_MICRO, NULL, 'S', false},
    {"placement", SW_K_PLACEMENT, NULL, 'P', false},
    {"collectives", SW_K_COLLECTIVES, NULL, 'c', false},
    {"allreduce", SW_K_ALLREDUCE, NULL, 0, false},
    {"layers", SW_K_LAYERS, NULL, 'l', true},
    {"mode", SW_K_MODE, NULL, 'm', true},
    {"output", SW_K_OUTPUT, NULL, 'o', true},
    {"jobs", SW_K_JOBS, NULL, 'j', true},
    {"timeout", SW_K_TIMEOUT, NULL, 0, true},
    {"log", SW_K_LOG, NULL, 0, true},
};
#define N_KEYDEFS ((int)(sizeof keydefs / sizeof keydefs[0]))
/* After them, key N_KEYDEFS + k is job key k (js_keys) where it is no dimension of the sweep:
 * one value for every run (--compute, --precision, --halo, ...); see def_of. */
#define N_DEFS (N_KEYDEFS + JS_MAX_KEYS)

/* The keys a message lists (keydefs without the singular aliases), the job keys' follow. */
static const char *sweep_keys =
    "workloads, platforms, strategies, gpus, batch, batch-per-gpu, batch-per-node, "
    "batch-per-group, micro-batches, placement, collectives, allreduce, layers, mode, output, "
    "jobs, timeout, log";

/* getopt_long's codes beyond the short flags: keydefs[i] is SW_OPT_KEY + i, then the flags
 * that only make sense on a command line. */
enum { SW_OPT_KEY = 1000, OPT_EMIT = 2000, OPT_EMIT_DIR, OPT_MERGE, OPT_EXE, OPT_STOP_AFTER,
       OPT_QUIET };

static const struct option cmdline_only[] = {
    {"emit", required_argument, NULL, OPT_EMIT},
    {"emit-dir", required_argument, NULL, OPT_EMIT_DIR},
    {"merge", required_argument, NULL, OPT_MERGE},
    {"exe", required_argument, NULL, OPT_EXE},
    {"stop-after", required_argument, NULL, OPT_STOP_AFTER},
    {"quiet", no_argument, NULL, OPT_QUIET},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};
#define N_CMDLINE_ONLY ((int)(sizeof cmdline_only / sizeof cmdline_only[0]))

/* ------------------------------------------------------------------------------------------ */
/* Lists. */

/* Whether job key k is one value for every run: in a sweep's scope, and no sweep key of its
 * own (gpus, allreduce, ... are dimensions). */
static bool job_option(int k)
{
    if (k < 0 || k >= js_n_keys || !(js_keys[k].scope & JS_IN_SWEEP))
        return false;
    for (int i = 0; i < N_KEYDEFS; i++)
        if (strcmp(keydefs[i].name, js_keys[k].name) == 0)
            return false;
    return true;
}

/* Key d (< N_DEFS) as a keydef; false when d is no key. */
static bool def_of(int d, sw_keydef *def)
{
    if (d < N_KEYDEFS) {
        *def = keydefs[d];
        return true;
    }
    int k = d - N_KEYDEFS;
    if (!job_option(k))
        return false;
    *def = (sw_keydef){js_keys[k].name, SW_K_JOB(k), NULL, 0, true};
    return true;
}

static int find_keydef(const char *name)
{
    sw_keydef def;
    for (int d = 0; d < N_DEFS; d++)
        if (def_of(d, &def) && strcmp(def.name, name) == 0)
            return d;
    return -1;
}

/* "unknown key" 's list of the known ones, into known. */
static void known_keys(char *known, size_t size)
{
    size_t n = (size_t)snprintf(known, size, "%s", sweep_keys);
    for (int k = 0; k < js_n_keys && n < size; k++)
        if (job_option(k))
            n += (size_t)snprintf(known + n, size - n, ", %s", js_keys[k].name);
}

/* Does s (after blanks) read FLAG=VALUE, a flag of `hybridsim platform` without its "--"? */
static bool flag_item(const char *s)
{
    s += strspn(s, " \t");
    size_t n = strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789-");
    return n > 0 && s[n] == '=';
}

/* The comma that ends the value at v, or NULL: its first, except that a generated machine's
 * spec keeps the FLAG=VALUE items after it ("gen:abci:nodes=272,uplink-routing=hash, abci" is
 * two platforms). */
static char *value_end(char *v)
{
    char *comma = strchr(v, ',');
    if (strncmp(v + strspn(v, " \t"), PG_SPEC_PREFIX, strlen(PG_SPEC_PREFIX)) != 0)
        return comma;
    while (comma && flag_item(comma + 1))
        comma = strchr(comma + 1, ',');
    return comma;
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
        char *comma = value_end(value);
        if (comma)
            *comma = '\0';
        char *v = sw_trim(value);
        if (*v == '\0')
            return hs_fail(err, HS_EINPUT, "%s: empty value in '%s'", where, text);
        if (!hs_grow((void **)&list->items, &list->cap, (size_t)list->n + 1, sizeof *list->items))
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

void sw_spec_free(sw_spec *spec)
{
    for (int k = 0; k < SW_K_ALL; k++)
        free(spec->key[k].items);
}

void sw_overlay(sw_spec *file, const sw_spec *flags)
{
    for (int k = 0; k < SW_K_ALL; k++) {
        if (flags->key[k].n == 0)
            continue;
        free(file->key[k].items);
        file->key[k] = flags->key[k];
        file->key[k].cap = (size_t)file->key[k].n;
        file->key[k].items = malloc((size_t)flags->key[k].n * sizeof *file->key[k].items);
        if (file->key[k].items)
            memcpy(file->key[k].items, flags->key[k].items,
                   (size_t)flags->key[k].n * sizeof *file->key[k].items);
        else
            file->key[k].n = 0, file->key[k].cap = 0;
    }
}

const sw_item *sw_single(const sw_list *l) { return l->n ? &l->items[0] : NULL; }

int sw_check_single(const sw_list *l, char *err)
{
    if (l->n > 1)
        return hs_fail(err, HS_EINPUT, "%s: takes one value, got %d", l->items[1].where, l->n);
    return HS_OK;
}

int sw_check_single_keys(const sw_spec *s, char *err)
{
    int status;
    sw_keydef def;
    for (int d = 0; d < N_DEFS; d++)
        if (def_of(d, &def) && def.single && (status = sw_check_single(&s->key[def.key], err)))
            return status;
    return HS_OK;
}

int sw_default_jobs(void)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    return cores > 0 ? (int)cores : 1;
}

/* ------------------------------------------------------------------------------------------ */
/* The sweep file. */

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

/* One `key = value, ...` entry, which starts on line `at`. first_line_of[] remembers where each
 * key was given: aliases (workload, workloads) count as one key, but the batch keys each have
 * their own slot (after SW_K_COUNT) since they add to one list. */
static int read_entry(const char *path, int at, char *text, int *first_line_of, sw_spec *spec,
                      sw_arena *a, char *err)
{
    char *eq = strchr(text, '=');
    if (!eq)
        return hs_fail(err, HS_EINPUT, "%s:%d: expected 'key = value, ...', got '%.60s'", path,
                       at, text);
    *eq = '\0';
    char *name = sw_trim(text), *value = sw_trim(eq + 1);
    int d = find_keydef(name);
    sw_keydef def;
    if (d < 0 || !def_of(d, &def)) {
        char known[1024];
        known_keys(known, sizeof known);
        return hs_fail(err, HS_EINPUT, "%s:%d: unknown key '%s' (known: %s)", path, at, name,
                       known);
    }
    int slot = def.key == SW_K_BATCH ? SW_K_ALL + d : def.key;
    if (first_line_of[slot])
        return hs_fail(err, HS_EINPUT, "%s:%d: '%s' is given twice (first on line %d)", path, at,
                       name, first_line_of[slot]);
    first_line_of[slot] = at;
    if (*value == '\0')
        return hs_fail(err, HS_EINPUT, "%s:%d: '%s' has no value", path, at, name);
    const char *where = sw_arena_printf(a, "%s:%d: %s", path, at, name);
    return where ? add_values(spec, &def, value, where, a, err)
                 : hs_fail(err, HS_EINTERNAL, "out of memory");
}

int sw_read_sweep_file(const char *path, sw_spec *spec, sw_arena *a, char *err)
{
    char *text; /* read whole first: bounded, checked (hs_text.h), then parsed from memory */
    size_t len;
    int read = hs_text_read(path, "sweep file", &text, &len, err);
    if (read != HS_OK)
        return read;
    FILE *f = len ? fmemopen(text, len, "r") : fopen("/dev/null", "r");
    if (!f) {
        free(text);
        return hs_fail(err, HS_EINTERNAL, "%s: %s", path, strerror(errno));
    }
    int first_line_of[SW_K_ALL + N_DEFS];
    memset(first_line_of, 0, sizeof first_line_of);
    char *line = NULL;
    size_t cap = 0;
    sw_buf logical = {0};
    int line_no = 0, at = 0, status = HS_OK;
    while (status == HS_OK && read_logical_line(f, &line, &cap, &logical, &line_no, &at))
        status = logical.oom ? hs_fail(err, HS_EINTERNAL, "out of memory")
                             : read_entry(path, at, logical.data, first_line_of, spec, a, err);
    if (status == HS_OK && ferror(f))
        status = hs_fail(err, HS_EINPUT, "%s: read error: %s", path, strerror(errno));
    free(line);
    free(logical.data);
    fclose(f);
    free(text);
    return status;
}

/* ------------------------------------------------------------------------------------------ */
/* Flags: the same keys as the file, plus what only makes sense on a command line. */

void sw_print_usage(FILE *out)
{
    fprintf(out,
            "usage: hybridsim sweep [FILE.sweep] [flags] -o OUT.csv\n"
            "       hybridsim sweep [FILE.sweep] [flags] --emit parallel|slurm JOBFILE\n"
            "       hybridsim sweep --merge DIR -o OUT.csv\n"
            "\n"
            "Runs every configuration of workloads x platforms x strategies x gradient\n"
            "allreduces x GPU counts x batch rules x micro-batches x placements x collectives,\n"
            "each in its own process, and writes one CSV row per configuration. Lists are\n"
            "comma-separated; the file's keys are the long flag names (see\n"
            "experiments/sweeps/example.sweep); a flag replaces its key.\n"
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
            "  -P, --placement LIST     packed (default), spread, scatter\n"
            "  -c, --collectives LIST   flow (default), step\n"
            "      --allreduce LIST     the gradient allreduce: ring (default), hier, tree,\n"
            "                           rings, auto (hybridsim simulate --help); the strategy\n"
            "                           column then reads \"data --allreduce hier\", the\n"
            "                           allreduce column \"hier\"\n"
            "  -m, --mode M             compare (default), analytic, simulate\n"
            "  -l, --layers FILE        the layer file every run uses\n"
            "  -o, --output FILE.csv    the CSV; if it exists, configurations in it are skipped\n"
            "  -j, --jobs N             runs at a time (default: the cores, here %d)\n"
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
            "Job keys with one value, for every run they apply to (as in hybridsim --help;\n"
            "each has its CSV column, the value said, empty for the default, but overlap,\n"
            "optimizer-every and loader-workers, which are in the row's key only):\n",
            sw_default_jobs());
    for (int k = 0; k < js_n_keys; k++)
        if (job_option(k)) {
            char flag[64];
            snprintf(flag, sizeof flag, "      --%s %s", js_keys[k].name,
                     js_keys[k].type == JS_SWITCH ? "on|off" : js_keys[k].arg);
            js_print_key_help(out, k, flag);
        }
    fputs("\nStatus column: ok; error (the run refused its input, exit 2: kept on resume);\n"
          "failed (crash, timeout, internal error: run again on resume).\n",
          out);
}

/* getopt_long's tables: every key (SW_OPT_KEY + d, and its short flag), then cmdline_only.
 * shortopts starts with "+" (stop at the first non-flag: the sweep file, wherever it stands)
 * and ":" (a missing value is reported as ':'). */
static void build_options(struct option *longopts, char *shortopts)
{
    size_t ns = 0;
    int n = 0;
    sw_keydef def;
    shortopts[ns++] = '+';
    shortopts[ns++] = ':';
    shortopts[ns++] = 'h';
    for (int d = 0; d < N_DEFS; d++) {
        if (!def_of(d, &def))
            continue;
        longopts[n++] = (struct option){def.name, required_argument, NULL, SW_OPT_KEY + d};
        if (def.flag) {
            shortopts[ns++] = def.flag;
            shortopts[ns++] = ':';
        }
    }
    shortopts[ns] = '\0';
    memcpy(longopts + n, cmdline_only, sizeof cmdline_only);
}

/* The key getopt_long's code c stands for, or -1. */
static int keydef_of_option(int c)
{
    if (c >= SW_OPT_KEY && c < SW_OPT_KEY + N_DEFS)
        return c - SW_OPT_KEY;
    for (int i = 0; i < N_KEYDEFS; i++)
        if (keydefs[i].flag && c == keydefs[i].flag)
            return i;
    return -1;
}

/* A list flag: its values, named by the flag as the user could have typed it; a flag given
 * twice is refused (seen[d]), as a key given twice in the file. */
static int key_flag(int d, const char *value, sw_spec *spec, bool *seen, sw_arena *a, char *err)
{
    sw_keydef def;
    def_of(d, &def);
    const char *where = def.flag ? sw_arena_printf(a, "-%c", def.flag)
                                 : sw_arena_printf(a, "--%s", def.name);
    if (!where)
        return hs_fail(err, HS_EINTERNAL, "out of memory");
    if (seen[d])
        return hs_fail(err, HS_EINPUT, "%s is given twice (give one list: 4,8)", where);
    seen[d] = true;
    return add_values(spec, &def, value, where, a, err);
}

/* --emit KIND FILE: the one flag with two values, so it takes the next argument itself. */
static int emit_flag(int argc, char **argv, sw_cmdline *cl, char *err)
{
    if (strcmp(optarg, "parallel") != 0 && strcmp(optarg, "slurm") != 0)
        return hs_fail(err, HS_EINPUT, "--emit: unknown kind '%s' (known: parallel, slurm)",
                       optarg);
    if (optind >= argc || (argv[optind][0] == '-' && argv[optind][1])) /* "-": stdout */
        return hs_fail(err, HS_EINPUT, "--emit %s needs a FILE to write", optarg);
    cl->emit_kind = optarg;
    cl->emit_file = argv[optind++];
    return HS_OK;
}

static int stop_after_flag(sw_cmdline *cl, char *err)
{
    int64_t v = 0;
    if (hs_parse_whole(optarg, (size_t)-1, 0, INT_MAX, &v) != HS_NUM_OK)
        return hs_fail(err, HS_EINPUT, "--stop-after: '%s' is not a whole number >= 0", optarg);
    cl->stop_after = (int)v;
    return HS_OK;
}

/* A flag that is no key of the sweep file. */
static int cmdline_flag(int c, int argc, char **argv, sw_cmdline *cl, char *err)
{
    switch (c) {
    case OPT_EMIT: return emit_flag(argc, argv, cl, err);
    case OPT_EMIT_DIR: cl->emit_dir = optarg; return HS_OK;
    case OPT_MERGE: cl->merge_dir = optarg; return HS_OK;
    case OPT_EXE: cl->exe = optarg; return HS_OK;
    case OPT_STOP_AFTER: return stop_after_flag(cl, err);
    case OPT_QUIET: cl->quiet = true; return HS_OK;
    case 'h': cl->help = true; return HS_OK;
    case ':': return hs_fail(err, HS_EINPUT, "%s needs a value", argv[optind - 1]);
    default:
        return hs_fail(err, HS_EINPUT, "unknown option '%s' (see hybridsim sweep --help)",
                       argv[optind - 1]);
    }
}

/* The sweep file, the one argument that is not a flag. */
static int file_argument(char **argv, sw_cmdline *cl, char *err)
{
    if (cl->file)
        return hs_fail(err, HS_EINPUT, "unexpected argument '%s' (one sweep file only)",
                       argv[optind]);
    cl->file = argv[optind++];
    return HS_OK;
}

int sw_parse_flags(int argc, char **argv, sw_spec *spec, sw_cmdline *cl, sw_arena *a, char *err)
{
    struct option longopts[N_DEFS + N_CMDLINE_ONLY];
    char shortopts[4 + 2 * N_DEFS];
    bool seen[N_DEFS] = {false};
    build_options(longopts, shortopts);
    optind = 0; /* 0, not 1: GNU getopt then forgets a half-read option group of an earlier call */
    opterr = 0;
    int status = HS_OK;
    while (status == HS_OK && !cl->help && optind < argc) {
        int longindex = -1;
        int c = getopt_long(argc, argv, shortopts, longopts, &longindex);
        int d = c == -1 ? -1 : keydef_of_option(c);
        if (c == -1 && optind >= argc)
            break;
        if ((status = hs_parse_whole_flag(argv, optind, optarg, shortopts, longopts, longindex, err)))
            break;
        status = c == -1  ? file_argument(argv, cl, err)
                 : d >= 0 ? key_flag(d, optarg, spec, seen, a, err)
                          : cmdline_flag(c, argc, argv, cl, err);
    }
    return status;
}
