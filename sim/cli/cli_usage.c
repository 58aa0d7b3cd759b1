/* cli_usage.c: `hybridsim --help`: the commands, then the options of analytic, simulate and
 * compare (cli_int.h's cli_print_usage). Text only; below the option parsing (cli_options.c
 * prints it for -h) and the dispatch (cli.c). */
#include "cli_int.h"

#include <stdio.h>
#include <string.h>

#include "platform.h"

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
          "                          filter-backward, compute, overlap, allreduce, precision,\n"
          "                          runtime, optimizer-every, loader-workers, gpus, racks,\n"
          "                          placement; lists are ranges joined by '+':\n"
          "                          gpus=0-63+128-191); repeat for each job; a job's own\n"
          "                          keys (w s g b layers S optimizer-every loader-workers\n"
          "                          placement) go inside; the others given outside\n"
          "                          (--precision, --runtime, --compute, ...) hold for every\n"
          "                          job that does not say its own\n"
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
