/* main.c: the hybridsim executable; everything happens in cli.c. */
#include "cli.h"

int main(int argc, char **argv) { return cli_main(argc, argv); }
