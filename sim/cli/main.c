/* main.c: hybridsim-sim, the whole program; everything happens in cli.c.
 *
 * Its outputs are written and closed when cli_main returns, so it ends there with _exit:
 * otherwise SimGrid's engine, a static object, frees every host, link and route of the
 * platform one by one at exit (a seventh of a 65,536-GPU run). The sanitized build returns,
 * so that LeakSanitizer still looks at the heap at exit. */
#include <stdio.h>
#include <unistd.h>

#include "cli.h"

int main(int argc, char **argv)
{
    int status = cli_main(argc, argv, &cli_sim_full);
#ifndef HS_SANITIZE
    fflush(NULL);
    _exit(status);
#endif
    return status;
}
