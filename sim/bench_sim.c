/* SPDX-License-Identifier: MIT */
/* bench_sim.c - simulator throughput: runs a trace (default: the 3-server,
 * 1,000,000-request trace sim/traces/bench/throughput_3srv.json; the 4,000,000
 * request sim/traces/bench/throughput_3srv_4m.json for scale) and prints
 * engine events per wall second and per CPU second, simulated logical
 * requests per wall second, and the peak resident set size. Targets (issue
 * "simulator as a measuring instrument"): >= 2,500,000 events/s on the 1M
 * trace; the 4M trace within 4.5x the 1M time; memory bounded by the live
 * window (the 4M peak close to the 1M peak).
 *
 * --scale adds the scale traces sim/traces/bench/clients_1024.json (1,024
 * clients) and servers_1024.json (1,024 servers, 1,024 clients). Each trace
 * runs in its own child process, so each peak RSS is that trace's own.
 *
 * --ratio runs the 1M and the 4M trace and prints the 4M/1M CPU-time ratio
 * against its 4.5x target and both peaks (the time-scale and memory targets).
 * The events/s target is judged on the 1M trace only; other traces print
 * their numbers without a verdict.
 *
 * usage: sim_bench [TRACE.json...] [--scale] [--ratio] [--seed N] */
#define _DEFAULT_SOURCE
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>
#include <time.h>

#include "sim_trace.h"
#include "sim_world.h"

#ifndef SIM_SOURCE_DIR
#define SIM_SOURCE_DIR "sim"
#endif

static double wall(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int bench_one(const char *path, int seed_given, uint64_t seed) {
    sim_config_t cfg;
    char err[512];
    if (sim_trace_load(path, &cfg, err, sizeof err) != 0) {
        fprintf(stderr, "sim_bench: %s\n", err);
        return 1;
    }
    sim_result_t r;
    sim_run_opts_t o = {.events = NULL};
    double t0 = wall();
    if (sim_run(&cfg, seed_given ? seed : cfg.seed, &o, &r, err, sizeof err) != 0) {
        fprintf(stderr, "sim_bench: %s\n", err);
        sim_config_free(&cfg);
        return 1;
    }
    double secs = wall() - t0;
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    double cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
                 (double)ru.ru_stime.tv_usec / 1e6;
    printf("sim_bench: %s (%zu servers, %zu clients), seed %" PRIu64 "\n", path, cfg.n_servers, cfg.n_clients, r.seed);
    printf("  wall time             %10.2f s\n", secs);
    printf("  engine events         %10" PRIu64 "  -> %.0f events/s\n", r.events, (double)r.events / secs);
    printf("  logical requests      %10" PRIu64 "  -> %.0f requests/s (decided %" PRIu64 ")\n", r.metrics.submitted,
           (double)r.metrics.submitted / secs, r.metrics.decided);
    printf("  CPU time              %10.2f s  -> %.0f events per CPU second (load, parse and run)\n", cpu,
           (double)r.events / cpu);
    printf("  peak RSS              %10.1f MB\n", (double)ru.ru_maxrss / 1024.0);
    printf("  digest                %s\n", r.digest);
    double eps = (double)r.events / secs, mb = (double)ru.ru_maxrss / 1024.0;
    const char *base = strrchr(path, '/');
    base = base != NULL ? base + 1 : path;
    if (strcmp(base, "throughput_3srv.json") == 0) {
        printf("targets: >= 2500000 events/s %s (per CPU second: %s), < 500 MB %s\n", eps >= 2.5e6 ? "met" : "MISSED",
               (double)r.events / cpu >= 2.5e6 ? "met" : "MISSED", mb < 500.0 ? "met" : "MISSED");
    } else {
        printf("targets: < 500 MB %s (the events/s target is judged on the 1M trace)\n", mb < 500.0 ? "met" : "MISSED");
    }
    printf("(wall-clock figures: a loaded machine lowers them; compare CPU time with `time`)\n");
    sim_result_free(&r);
    sim_config_free(&cfg);
    return 0;
}

int main(int argc, char **argv) {
    const char *paths[64];
    size_t n = 0;
    uint64_t seed = 0;
    int seed_given = 0, scale = 0, ratio = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
            seed = strtoull(argv[++i], NULL, 10);
            seed_given = 1;
        } else if (strcmp(argv[i], "--scale") == 0) {
            scale = 1;
        } else if (strcmp(argv[i], "--ratio") == 0) {
            ratio = 1;
        } else if (n < 60) {
            paths[n++] = argv[i];
        }
    }
    if (n == 0 || ratio) paths[n++] = SIM_SOURCE_DIR "/traces/bench/throughput_3srv.json";
    size_t i_1m = n - 1, i_4m = n;
    if (ratio) paths[n++] = SIM_SOURCE_DIR "/traces/bench/throughput_3srv_4m.json";
    if (scale) {
        paths[n++] = SIM_SOURCE_DIR "/traces/bench/clients_1024.json";
        paths[n++] = SIM_SOURCE_DIR "/traces/bench/servers_1024.json";
    }
    int status = 0;
    double cpu_of[64] = {0}, mb_of[64] = {0};
    for (size_t i = 0; i < n; i++) {
        fflush(stdout);
        pid_t pid = fork();
        if (pid < 0) return bench_one(paths[i], seed_given, seed); /* no child: run here */
        if (pid == 0) {
            int rc = bench_one(paths[i], seed_given, seed);
            fflush(stdout); /* _exit does not flush stdio */
            _exit(rc);
        }
        int ws = 0;
        struct rusage cru;
        if (wait4(pid, &ws, 0, &cru) != pid || !WIFEXITED(ws) || WEXITSTATUS(ws) != 0) {
            status = 1;
            continue;
        }
        cpu_of[i] = (double)cru.ru_utime.tv_sec + (double)cru.ru_utime.tv_usec / 1e6 + (double)cru.ru_stime.tv_sec +
                    (double)cru.ru_stime.tv_usec / 1e6;
        mb_of[i] = (double)cru.ru_maxrss / 1024.0;
    }
    if (ratio && status == 0 && cpu_of[i_1m] > 0.0) {
        double x = cpu_of[i_4m] / cpu_of[i_1m];
        printf("ratio: 4M/1M CPU time %.2f s / %.2f s = %.2fx (target <= 4.5x: %s); peak RSS %.1f MB / %.1f MB\n",
               cpu_of[i_4m], cpu_of[i_1m], x, x <= 4.5 ? "met" : "MISSED", mb_of[i_4m], mb_of[i_1m]);
    }
    return status;
}
