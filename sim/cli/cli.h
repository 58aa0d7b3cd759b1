/* cli.h: the `hybridsim` command line (DESIGN.md's contract). Returns the process exit status:
 * 0 success, 2 bad input (message on stderr), 1 internal failure.
 *
 * Two executables share it. `hybridsim-sim` (main.c) has everything. `hybridsim` (main_lean.c)
 * has all but what needs SimGrid, so that it does not load SimGrid's library (26-43 ms of
 * dynamic loading alone): it answers `analytic` on generated machines, `platform`, `sweep` and
 * the help itself, in milliseconds, and hands every other command to `hybridsim-sim` beside it
 * (exec, same arguments: same process, same output).
 *
 * Folder: sim/cli/ (this is its main header): the command line, a thin front door: parse the
 * flags, call the module that does the work, print (cli_int.h lists the files). May include every
 * folder; nothing includes it but main.c and main_lean.c. */
#ifndef CLI_H
#define CLI_H

/* The commands that need SimGrid (cli_sim.c). */
typedef struct cli_sim cli_sim;
extern const cli_sim cli_sim_full;

/* sim: the SimGrid half (&cli_sim_full), or NULL to hand what needs it to hybridsim-sim. */
int cli_main(int argc, char **argv, const cli_sim *sim);

#endif
