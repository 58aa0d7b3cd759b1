/* main.c: STUB entry point, replaced by the command line (sim/cli.c). */
#include <stdio.h>
int main(void) { fprintf(stderr, "hybridsim: not built yet\n"); return 1; }
