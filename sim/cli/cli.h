/* cli.h: the `hybridsim` command line (DESIGN.md's contract). Returns the process exit status:
 * 0 success, 2 bad input (message on stderr), 1 internal failure. */
#ifndef CLI_H
#define CLI_H

int cli_main(int argc, char **argv);

#endif
