/* main.c: hybridsim-sim, the whole program; everything happens in cli.c. */
#include "cli.h"

int main(int argc, char **argv) { return cli_main(argc, argv, &cli_sim_full); }
