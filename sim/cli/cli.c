/* cli.c: `hybridsim COMMAND [flags]`: the front door. Each command parses its flags, calls the
 * module that does the work, and prints (cli_int.h); the exit status is 0 on success, 2 on bad
 * input (the message on stderr names the flag or file), 1 on an internal failure. */
#include "cli.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_int.h"
#include "hs_out.h"
#include "platgen.h"
#include "runtime.h"
#include "sweep.h"

#define HS_VERSION "0.1.0"

static const char *command_names[] = {"analytic", "simulate", "compare"};

const char *cli_command_name(cli_command command)
{
    return command_names[command];
}

/* The options every run takes: where, the job's keys (job_keys.h), and how to simulate it. */
static void print_usage_run(FILE *out)
{
    fputs("run options:\n"
          "  -p, --platform P        platform: a path or a short name in platforms/ (abci,\n"
          "                          dgx1, nvswitch-ndr), or a generated machine\n"
          "                          gen:PRESET[:FLAG=VALUE,...] with the flags of hybridsim\n"
          "                          platform, e.g. gen:abci:nodes=4352\n",
          out);
    js_print_help(out, 0);
    fputs("  -c, --collectives F     simulation fidelity: flow (default; one flow per ring edge,\n"
          "                          step by step where other traffic may come and go on the\n"
          "                          ring's links) or step (every step of every collective)\n"
          "      --step-budget N     flow mode: the messages an iteration's rings may spend\n"
          "                          running step by step (default 1000000), the cheapest\n"
          "                          first; the rings over it run as flows in blocks of steps\n"
          "  -P, --placement K       packed (default: rank r on GPU r), spread (nodes dealt\n"
          "                          round-robin over racks) or scatter (one rank per node)\n",
          out);
}

/* --cfg: the SimGrid settings hybridsim passes on (platcfg.c's list, so the help names only
 * what it takes), wrapped at 88 columns. */
static void print_cfg_help(FILE *out)
{
    const char *w = plat_engine_cfg_names();
    int col = fprintf(out, "      --cfg NAME:VALUE    a SimGrid setting hybridsim passes on:");
    while (*w) {
        size_t n = strcspn(w, " ");
        if (col + 1 + (int)n > 88)
            col = fprintf(out, "\n%26s", "") - 1;
        else
            col += fprintf(out, " ");
        col += fprintf(out, "%.*s", (int)n, w);
        w += n;
        w += strspn(w, " ");
    }
    fprintf(out, "\n%26s(hybridsim sets the network and the models itself)\n", "");
}

/* What a run prints and writes, several jobs on one fabric, and the exit statuses. */
static void print_usage_output(FILE *out)
{
    fputs("  -j, --json              print one JSON object instead of the table\n"
          "      --row               print one line (for scripts); --row-header adds the header\n"
          "      --trace FILE.json   simulate, compare: write a Chrome trace (Perfetto,\n"
          "                          chrome://tracing) of every kernel and message\n"
          "      --trace-gpus LIST   keep only these GPUs in the trace, e.g. 0-7,64,128-131\n"
          "      --layers-top N      table: the N layers that cost most time (default 10, 0: no\n"
          "                          per-layer table); --per-layer: all layers\n"
          "      --links FILE.csv    simulate, compare: per link direction, bytes, busy time,\n"
          "                          mean and peak utilisation (CSV); the report adds a summary\n"
          "                          per link kind, the top links and the congestion share;\n"
          "                          --links-all lists unused links too\n"
          "      --links-summary     simulate, compare: that summary without the CSV\n"
          "      --job SPEC          simulate: one job of several sharing the platform, e.g.\n"
          "                          \"w=resnet50,s=data,g=128,b=4096,racks=0-1,placement=spread\"\n"
          "                          (keys w s g b, optional name, layers, S, halo,\n"
          "                          filter-backward, compute, gpus, racks, placement; lists\n"
          "                          are ranges joined by '+': gpus=0-63+128-191); repeat\n"
          "                          for each job; -w -s -g -b go inside; --compute, --halo\n"
          "                          and --filter-backward outside hold for every job that\n"
          "                          does not say its own\n"
          "      --background SPEC   traffic for the whole run: \"from=NODES,to=NODES,rate=5GBps\"\n"
          "                          (optional gpu=G: the GPU host of each node it uses)\n"
          "      --baseline          with --job: also each job alone, to report its slowdown\n",
          out);
    print_cfg_help(out);
    fputs("  -h, --help              this text;  --version  the version\n"
          "\n"
          "Times are seconds, memory bytes (GB = 1e9 bytes in tables). Exit status: 0 success,\n"
          "2 bad input (the message names the file, line or flag), 1 internal failure or a\n"
          "failed write, 128+N stopped by signal N (130: Ctrl-C; no file is left half-written).\n",
          out);
}

void cli_print_usage(FILE *out)
{
    fprintf(out,
            "hybridsim %s: how fast does a CNN train on a GPU cluster, and why.\n"
            "\n"
            "usage:\n"
            "  hybridsim analytic -w WORKLOAD -p PLATFORM -s STRATEGY -g GPUS -b BATCH [options]\n"
            "  hybridsim simulate -w ... -p ... -s ... -g ... -b ... [--collectives flow|step]\n"
            "                     [--placement packed|spread] [options]\n"
            "  hybridsim compare  -w ... -p ... -s ... -g ... -b ... [options]\n"
            "  hybridsim platform [--preset NAME] [flags] -o FILE.xml   (see hybridsim platform --help)\n"
            "  hybridsim sweep [FILE.sweep] [flags with lists] -o OUT.csv  (see hybridsim sweep --help)\n"
            "  hybridsim strategy --generate SPEC -w W -g N -b B -o FILE.xml  (a per-layer\n"
            "                     strategy file), or --search -w ... -p ... -g ... -b ... [-o F]\n"
            "                     (the best per-layer strategy; see hybridsim strategy --help)\n"
            "  hybridsim suggest -w W -p P -g N (-b B | --batch-per-gpu b) [--top K]\n"
            "                     (every strategy ranked, the best simulated; suggest --help)\n"
            "  hybridsim runtimes (the training software --runtime takes, with what each ran)\n"
            "\n"
            "  analytic   ParaDL's closed-form model: instant, no contention\n"
            "  simulate   SimGrid simulation of every kernel and message, with link sharing\n"
            "  compare    both, side by side, with their agreement\n"
            "\n",
            HS_VERSION);
    print_usage_run(out);
    print_usage_output(out);
}

/* The process's arguments, for cli_exec_full: the one piece of module state. */
static char **cli_argv;

/* The full program beside this executable. */
#define CLI_FULL_NAME "hybridsim-sim"

int cli_exec_full(char *err)
{
    char self[PATH_MAX], full[PATH_MAX + sizeof CLI_FULL_NAME];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return hs_fail(err, HS_EINTERNAL, "cannot find this executable (/proc/self/exe): %s",
                       strerror(errno));
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    snprintf(full, sizeof full, "%.*s/%s", slash ? (int)(slash - self) : 0, self, CLI_FULL_NAME);
    /* A simulation allocates and frees millions of small SimGrid objects (activities, their
     * sharing variables) across all ranks in turn. glibc keeps only 7 freed chunks a size in
     * its per-thread cache; the rest go to bins it later sorts and merges, scattered over the
     * heap, and with thousands of ranks every event then misses the CPU caches: ResNet-50
     * data+filter on 8,192 GPUs 13.1 s, 9.8 s with the cache holding up to 65,535 chunks a
     * size (README "Speed"). The user's own GLIBC_TUNABLES is left alone. */
    setenv("GLIBC_TUNABLES", "glibc.malloc.tcache_count=65535", 0);
    return cli_child_run(full, cli_argv, err);
}

/* analytic, simulate, compare: one run, or several jobs on one fabric. */
static int run_main(cli_command command, int argc, char **argv, const cli_sim *sim, char *err)
{
    cli_options o;
    memset(&o, 0, sizeof o);
    o.command = command;
    o.sim.fidelity = ENG_FLOW;
    o.sim.placement = PL_PACKED;
    o.layers_top = 10;
    int status = cli_parse_run_options(argc, argv, &o, err);
    if (status == HS_OK && o.n_jobs)
        status = sim ? sim->fabric(&o, err) : cli_exec_full(err);
    else if (status == HS_OK)
        status = cli_run_single(&o, sim, err);
    tr_gpus_free(&o.trace_gpus);
    return status < 0 ? HS_OK : status; /* < 0: --help */
}

/* `hybridsim runtimes`: every runtime file of workloads/runtime/ with what it ran. */
static int runtimes_main(int argc, char **argv, char *err)
{
    if (argc > 1 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
        puts("usage: hybridsim runtimes\n"
             "The runtimes --runtime NAME takes (workloads/runtime/NAME.rt; the format and\n"
             "the sources: workloads/runtime/README.md).");
        return HS_OK;
    }
    if (argc > 1)
        return hs_fail(err, HS_EINPUT, "runtimes takes no argument ('%s')", argv[1]);
    printf("runtimes (--runtime NAME; %s):\n", rt_default_dir());
    return rt_list(stdout, err);
}

/* The end of every command: standard output checked (a full disk is a failure, not a
 * success), the message said, and a command stopped by a signal ended by that signal. */
static int finish(int status, char *err)
{
    char out_err[HS_ERR_LEN];
    int out_status = hs_out_close_stdout(out_err);
    if (status == HS_OK && out_status != HS_OK) {
        status = out_status;
        snprintf(err, HS_ERR_LEN, "%s", out_err);
    }
    if (status != HS_OK)
        fprintf(stderr, "hybridsim: %s\n", err[0] ? err : "failed");
    if (status > HS_SIGNALLED(0))
        hs_out_die_by(status - HS_SIGNALLED(0));
    return status;
}

int cli_main(int argc, char **argv, const cli_sim *sim)
{
    char err[HS_ERR_LEN] = "";
    int status;
    cli_argv = argv;
    hs_out_trap_signals();
    if (argc < 2) {
        cli_print_usage(stderr);
        return HS_EINPUT;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "help") == 0) {
        cli_print_usage(stdout);
        return finish(HS_OK, err);
    }
    if (strcmp(cmd, "--version") == 0) {
        printf("hybridsim %s\n", HS_VERSION);
        return finish(HS_OK, err);
    }
    if (strcmp(cmd, "analytic") == 0)
        status = run_main(CMD_ANALYTIC, argc - 1, argv + 1, sim, err);
    else if (strcmp(cmd, "simulate") == 0)
        status = run_main(CMD_SIMULATE, argc - 1, argv + 1, sim, err);
    else if (strcmp(cmd, "compare") == 0)
        status = run_main(CMD_COMPARE, argc - 1, argv + 1, sim, err);
    else if (strcmp(cmd, "platform") == 0)
        status = pg_main(argc - 1, argv + 1, err);
    else if (strcmp(cmd, "sweep") == 0)
        status = sw_main(argc - 1, argv + 1, err);
    else if (strcmp(cmd, "strategy") == 0)
        status = cli_strategy_main(argc - 1, argv + 1, sim, err);
    else if (strcmp(cmd, "suggest") == 0)
        status = cli_suggest_main(argc - 1, argv + 1, sim, err);
    else if (strcmp(cmd, "runtimes") == 0)
        status = runtimes_main(argc - 1, argv + 1, err);
    else
        status = hs_fail(err, HS_EINPUT,
                         "unknown command '%s' (known: analytic, simulate, compare, platform, "
                         "sweep, strategy, suggest, runtimes; see hybridsim --help)",
                         cmd);
    return finish(status, err);
}
