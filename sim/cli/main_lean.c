/* main_lean.c: hybridsim, the front door without SimGrid (cli.h): what needs SimGrid runs in
 * hybridsim-sim beside it. */
#include <stddef.h>

#include "cli.h"

int main(int argc, char **argv) { return cli_main(argc, argv, NULL); }
