/* cli.h: the `hybridsim` command line (DESIGN.md's contract). Returns the process exit status:
 * 0 success, 2 bad input (message on stderr), 1 internal failure.
 *
 * Folder: sim/cli/ (this is its main header): the command line, a thin front door: parse the
 * flags, call the module that does the work, print (cli_int.h lists the files). May include every
 * folder; nothing includes it but main.c. */
#ifndef CLI_H
#define CLI_H

int cli_main(int argc, char **argv);

#endif
