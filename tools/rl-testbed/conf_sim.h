/* conf_sim.h - simulator traces with expectations, for the conformance gate. */
#ifndef CONF_SIM_H
#define CONF_SIM_H

#include <stdbool.h>
#include <stddef.h>

/* One simulator trace and its verdict against the expectations it carries. */
typedef struct {
    const char *name;   /* trace name, e.g. its file */
    bool pass;
    const char *detail; /* why it failed; "" on pass */
} conf_sim_trace_t;

/* Fill out[0..cap) with the simulator's traces that carry expectations and
 * return how many. The simulator does not exist yet: returns 0. */
size_t conf_simulator_traces(conf_sim_trace_t *out, size_t cap);

#endif /* CONF_SIM_H */
