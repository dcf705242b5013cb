/* conf_sim.c - the simulator hook of `rl-testbed conformance`.
 *
 * The conformance gate also runs the simulator traces that carry
 * expectations. THE SIMULATOR DOES NOT EXIST YET: this function is the one
 * place that will hand its traces to the gate, and today it returns 0 traces
 * (conformance/README.md, `rl-testbed conformance --help`). When the simulator
 * lands, fill `out` with its traces and judge each one in conf_runner.c's
 * run_simulator_traces(). */
#include "conf_sim.h"

size_t conf_simulator_traces(conf_sim_trace_t *out, size_t cap)
{
    (void)out;
    (void)cap;
    return 0;
}
