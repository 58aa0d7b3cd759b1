/* cli.c: `hybridsim COMMAND [flags]`: the front door. Each command parses its flags, calls the
 * module that does the work, and prints (cli_int.h); the exit status is 0 on success, 2 on bad
 * input (the message on stderr names the flag or file), 1 on an internal failure. */
#include "cli.h"

#include <stdio.h>
#include <string.h>

#include "cli_int.h"
#include "hs_out.h"
#include "platgen.h"
#include "runtime.h"
#include "sweep.h"

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
    if (argc > 1) { /* one runtime asked: its file holds every value with its source */
        char path[4096];
        snprintf(path, sizeof path, "%s/%s.rt", rt_default_dir(), argv[1]);
        FILE *f = strchr(argv[1], '/') ? NULL : fopen(path, "r");
        if (f)
            fclose(f);
        return hs_fail(err, HS_EINPUT, "runtimes takes no argument ('%s')%s%s", argv[1],
                       f ? "; a runtime's values and their sources are its file, " : "",
                       f ? path : "");
    }
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
    cli_exec_keep_argv(argv);
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
