/* interop_faults.c - see interop_faults.h. Milestone 1: no fault yet. */
#include <stdio.h>
#include <stdlib.h>

#include "interop_faults.h"

void interop_faults_init(void)
{
    const char *f = getenv("RL_INTEROP_FAULT");
    if (f != NULL && f[0] != '\0') {
        fprintf(stderr, "rl-interop-driver: unknown RL_INTEROP_FAULT \"%s\"\n", f);
        exit(2);
    }
}
