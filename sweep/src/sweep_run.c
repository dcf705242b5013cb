/* SPDX-License-Identifier: MIT */
/* sweep_run.c - running a sweep with worker processes (docs/sweep.md
 * "Units", "Resume"). The parent loads and checks everything, then forks
 * workers that inherit the parsed traces (no file is read per unit); it hands
 * out unit indexes over one pipe per worker and appends each finished unit's
 * record to units.log as it arrives. The output files are written from the
 * log records alone, so they do not depend on --jobs, the completion order,
 * interruptions or sharding. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sweep_run.h"
#include "sim_world.h"

#define ERR(...) (snprintf(err, err_cap, __VA_ARGS__), -1)

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* mkdir -p */
static int make_dirs(const char *dir) {
    char p[4096];
    snprintf(p, sizeof p, "%s", dir);
    for (char *s = p + 1; *s; s++) {
        if (*s == '/') {
            *s = '\0';
            if (mkdir(p, 0777) != 0 && errno != EEXIST) return -1;
            *s = '/';
        }
    }
    if (mkdir(p, 0777) != 0 && errno != EEXIST) return -1;
    struct stat st;
    if (stat(p, &st) != 0) return -1;
    if (!S_ISDIR(st.st_mode)) {
        errno = ENOTDIR; /* "cannot create DIR: Not a directory" */
        return -1;
    }
    return 0;
}

/* ---- one unit (in a worker) ------------------------------------------------------- */

static void unit_values(const sim_metrics_t *mt, double *v) {
    const char **cols;
    size_t n = sweep_metric_columns(&cols);
    for (size_t i = 0; i < n; i++) {
        if (strcmp(cols[i], "extra_datagrams_per_request") == 0) {
            v[i] = mt->submitted > 0 ? (double)(mt->replays_sent + mt->completion_sends) / (double)mt->submitted : 0.0;
        } else if (!sim_metric_value(mt, cols[i], &v[i])) {
            v[i] = NAN;
        }
    }
}

static char *run_unit(sweep_t *sw, size_t u) {
    size_t c, t, s;
    sweep_unit_split(sw, u, &c, &t, &s);
    sweep_apply(sw, c, t);
    sim_run_opts_t ro = {.events = NULL};
    sim_result_t r;
    char err[512];
    if (sim_run(&sw->traces[t].cfg, sw->seeds[s], &ro, &r, err, sizeof err) != 0) {
        return sweep_log_line(sw, u, NULL, NULL, 0, err);
    }
    double v[128];
    unit_values(&r.metrics, v);
    char *line = sweep_log_line(sw, u, v, r.digest, r.events, NULL);
    sim_result_free(&r);
    return line;
}

static int write_all(int fd, const void *buf, size_t n) {
    const char *p = buf;
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static int read_all(int fd, void *buf, size_t n) {
    char *p = buf;
    while (n > 0) {
        ssize_t r = read(fd, p, n);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return -1;
        p += r;
        n -= (size_t)r;
    }
    return 0;
}

/* A worker: read a unit index, run it, answer with its length-prefixed log line. */
static void worker_main(sweep_t *sw, int cmd_fd, int res_fd) {
    signal(SIGINT, SIG_IGN); /* the parent decides when to stop */
    signal(SIGTERM, SIG_DFL);
    uint64_t u;
    while (read_all(cmd_fd, &u, sizeof u) == 0) {
        char *line = run_unit(sw, (size_t)u);
        if (line == NULL) _exit(3);
        uint32_t len = (uint32_t)strlen(line);
        if (write_all(res_fd, &len, sizeof len) != 0 || write_all(res_fd, line, len) != 0) _exit(4);
        free(line);
    }
    _exit(0);
}

typedef struct {
    pid_t pid;
    int cmd, res;       /* parent ends: write unit indexes, read results */
    long unit;          /* the unit it runs, -1 idle */
} worker_t;

static int spawn(sweep_t *sw, worker_t *all, size_t n_all, worker_t *w) {
    int a[2], b[2];
    if (pipe(a) != 0) return -1;
    if (pipe(b) != 0) {
        close(a[0]);
        close(a[1]);
        return -1;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(a[0]);
        close(a[1]);
        close(b[0]);
        close(b[1]);
        return -1;
    }
    if (pid == 0) {
        close(a[1]);
        close(b[0]);
        for (size_t i = 0; i < n_all; i++) { /* the other workers' pipes: their EOF must not wait for us */
            if (&all[i] != w && all[i].pid > 0) {
                close(all[i].cmd);
                close(all[i].res);
            }
        }
        worker_main(sw, a[0], b[1]);
    }
    close(a[0]);
    close(b[1]);
    w->pid = pid;
    w->cmd = a[1];
    w->res = b[0];
    w->unit = -1;
    return 0;
}

static void reap(worker_t *w, bool kill_it) {
    if (w->pid <= 0) return;
    close(w->cmd);
    close(w->res);
    if (kill_it) kill(w->pid, SIGKILL);
    int st;
    while (waitpid(w->pid, &st, 0) < 0 && errno == EINTR) {
    }
    w->pid = 0;
}

/* ---- progress --------------------------------------------------------------------- */

typedef struct {
    FILE *f;
    bool tty;
    double start, last;
    size_t total, done;  /* units to run in this run */
} progress_t;

static void progress_show(progress_t *p, bool final) {
    if (p->f == NULL) return;
    double t = now_s();
    double interval = p->tty ? 0.2 : 10.0;
    if (!final && t - p->last < interval) return;
    p->last = t;
    double el = t - p->start;
    double rate = el > 0 ? (double)p->done / el : 0.0;
    double eta = rate > 0 ? (double)(p->total - p->done) / rate : 0.0;
    char etab[32];
    if (p->done == 0) snprintf(etab, sizeof etab, "?");
    else snprintf(etab, sizeof etab, "%um%02us", (unsigned)(eta / 60), (unsigned)fmod(eta, 60.0));
    if (p->tty) {
        fprintf(p->f, "\rsweep: %zu/%zu units  %.1f runs/s  ETA %s   %s", p->done, p->total, rate, etab,
                final ? "\n" : "");
    } else {
        fprintf(p->f, "sweep: %zu/%zu units  %.1f runs/s  ETA %s\n", p->done, p->total, rate, etab);
    }
    fflush(p->f);
}

/* ---- the run ---------------------------------------------------------------------- */

/* The manifest: written on the first run, compared on a resume. */
static int check_manifest(const sweep_t *sw, const sweep_run_opts_t *o, const char *build_id, sweep_manifest_t *m,
                          char *err, size_t err_cap) {
    char path[4200];
    snprintf(path, sizeof path, "%s/manifest.json", o->out_dir);
    struct stat st;
    if (stat(path, &st) != 0) {
        json_t *j = sweep_manifest_new(sw, build_id, o->shard_index, o->shard_count);
        int r = j != NULL ? json_dump_file(j, path, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15)) : -1;
        json_decref(j);
        if (r != 0) return ERR("cannot write %s", path);
    }
    if (sweep_manifest_read(o->out_dir, m, err, err_cap) != 0) return -1;
    if (strcmp(m->hash, sw->hash) != 0) {
        char old[17]; /* copied before the free: m->hash points into the manifest */
        snprintf(old, sizeof old, "%.16s", m->hash);
        sweep_manifest_free(m);
        return ERR("%s holds results of another sweep (sweep hash %s, this sweep %.16s): the sweep file or a trace "
                   "changed; use another --out or remove it",
                   o->out_dir, old, sw->hash);
    }
    if (strcmp(m->build_id, build_id) != 0) {
        char old[SWEEP_BUILD_ID_MAX];
        snprintf(old, sizeof old, "%s", m->build_id);
        sweep_manifest_free(m);
        return ERR("%s holds results of another build (%s, this build %s): use another --out or remove it", o->out_dir,
                   old, build_id);
    }
    if (m->shard_index != o->shard_index || m->shard_count != o->shard_count) {
        size_t i = m->shard_index, n = m->shard_count;
        sweep_manifest_free(m);
        return ERR("%s holds shard %zu/%zu, not %zu/%zu", o->out_dir, i, n, o->shard_index, o->shard_count);
    }
    return 0;
}

static void record(sweep_unit_result_t *res, const sweep_manifest_t *m, const char *line, FILE *log,
                   sweep_run_report_t *rep, FILE *pf) {
    fputs(line, log);
    fflush(log);
    char why[256];
    long u = sweep_log_parse_line(m, line, res, why, sizeof why);
    if (u >= 0 && !res[u].ok && pf != NULL) {
        const char *c = m->configs[(size_t)u / m->n_seeds / m->n_traces];
        const char *t = m->traces[((size_t)u / m->n_seeds) % m->n_traces];
        fprintf(pf, "%ssweep: unit %ld (%s, %s, seed %s) failed: %s\n", "", u, c, t, m->seeds[(size_t)u % m->n_seeds],
                res[u].error);
    }
    rep->ran++;
}

int sweep_run(sweep_t *sw, const sweep_run_opts_t *o, sweep_run_report_t *rep, char *err, size_t err_cap) {
    memset(rep, 0, sizeof *rep);
    double t0 = now_s();
    char build_id[SWEEP_BUILD_ID_MAX];
    sweep_build_id(build_id);
    if (make_dirs(o->out_dir) != 0) return ERR("cannot create %s: %s", o->out_dir, strerror(errno));
    sweep_manifest_t m;
    if (check_manifest(sw, o, build_id, &m, err, err_cap) != 0) return -1;
    size_t nu = sweep_units(sw);
    sweep_unit_result_t *res = calloc(nu, sizeof *res);
    size_t *pending = malloc((nu + 1) * sizeof *pending);
    if (res == NULL || pending == NULL) {
        free(res);
        free(pending);
        sweep_manifest_free(&m);
        return ERR("out of memory");
    }
    long got = sweep_log_read(o->out_dir, &m, res, true, err, err_cap);
    if (got < 0) {
        sweep_results_free(res, nu);
        free(pending);
        sweep_manifest_free(&m);
        return -1;
    }
    size_t np = 0;
    for (size_t u = 0; u < nu; u++) {
        if (!sweep_in_shard(u, o->shard_index, o->shard_count)) continue;
        rep->units++;
        if (res[u].done) {
            if (!res[u].ok) rep->failed++;
            rep->already_done++;
        } else {
            pending[np++] = u;
        }
    }
    if ((size_t)got != rep->already_done) {
        sweep_results_free(res, nu);
        free(pending);
        sweep_manifest_free(&m);
        return ERR("%s/units.log holds units of another shard", o->out_dir);
    }
    char logpath[4200];
    snprintf(logpath, sizeof logpath, "%s/units.log", o->out_dir);
    FILE *log = fopen(logpath, "a");
    if (log == NULL) {
        sweep_results_free(res, nu);
        free(pending);
        sweep_manifest_free(&m);
        return ERR("cannot append to %s: %s", logpath, strerror(errno));
    }
    size_t limit = o->stop_after > 0 && o->stop_after < np ? o->stop_after : np;
    progress_t pr = {o->progress, o->progress_tty, now_s(), 0, limit, 0};
    size_t nw = o->jobs < 1 ? 1 : o->jobs;
    if (nw > limit) nw = limit;
    worker_t *w = calloc(nw + 1, sizeof *w);
    struct pollfd *pfd = calloc(nw + 1, sizeof *pfd);
    int rc = 0;
    void (*old_pipe)(int) = signal(SIGPIPE, SIG_IGN);
    for (size_t i = 0; w != NULL && pfd != NULL && i < nw; i++) {
        if (spawn(sw, w, nw, &w[i]) != 0) {
            rc = ERR("cannot start a worker process: %s", strerror(errno));
            break;
        }
    }
    if (w == NULL || pfd == NULL) rc = ERR("out of memory");
    size_t next = 0, recorded = 0, running = 0;
    while (rc == 0 && recorded < limit && !(o->stop != NULL && *o->stop)) {
        for (size_t i = 0; i < nw; i++) {
            if (w[i].pid > 0 && w[i].unit < 0 && next < limit) {
                uint64_t u = pending[next];
                if (write_all(w[i].cmd, &u, sizeof u) != 0) {
                    rc = ERR("a worker process stopped unexpectedly");
                    break;
                }
                w[i].unit = (long)pending[next++];
                running++;
            }
        }
        if (rc != 0 || running == 0) break;
        size_t n = 0;
        for (size_t i = 0; i < nw; i++) {
            pfd[i].fd = w[i].pid > 0 && w[i].unit >= 0 ? w[i].res : -1;
            pfd[i].events = POLLIN;
            pfd[i].revents = 0;
            n++;
        }
        int pr_ = poll(pfd, n, 1000);
        if (pr_ < 0 && errno == EINTR) continue;
        if (pr_ < 0) {
            rc = ERR("poll: %s", strerror(errno));
            break;
        }
        for (size_t i = 0; i < nw && rc == 0 && recorded < limit; i++) {
            if (pfd[i].fd < 0 || pfd[i].revents == 0) continue;
            uint32_t len = 0;
            char *line = NULL;
            if (read_all(w[i].res, &len, sizeof len) == 0 && len < (1u << 24) && (line = malloc(len + 1)) != NULL &&
                read_all(w[i].res, line, len) == 0) {
                line[len] = '\0';
                record(res, &m, line, log, rep, o->progress);
                free(line);
                recorded++;
                running--;
                w[i].unit = -1;
                pr.done = recorded;
                progress_show(&pr, false);
                continue;
            }
            free(line);
            /* the worker died running its unit: record it as failed, start another */
            size_t u = (size_t)w[i].unit;
            int st = 0;
            close(w[i].cmd);
            close(w[i].res);
            while (waitpid(w[i].pid, &st, 0) < 0 && errno == EINTR) {
            }
            w[i].pid = 0;
            char why[96];
            if (WIFSIGNALED(st)) snprintf(why, sizeof why, "the run crashed (signal %d)", WTERMSIG(st));
            else snprintf(why, sizeof why, "the run's worker exited with status %d", WEXITSTATUS(st));
            char *fl = sweep_log_line(sw, u, NULL, NULL, 0, why);
            if (fl != NULL) record(res, &m, fl, log, rep, o->progress);
            free(fl);
            recorded++;
            running--;
            if (next < limit && spawn(sw, w, nw, &w[i]) != 0) rc = ERR("cannot start a worker process: %s", strerror(errno));
        }
    }
    for (size_t i = 0; w != NULL && i < nw; i++) reap(&w[i], w[i].unit >= 0 || rc != 0);
    signal(SIGPIPE, old_pipe);
    free(w);
    free(pfd);
    bool log_bad = ferror(log) != 0;
    log_bad |= fclose(log) != 0;
    if (rc == 0 && log_bad) rc = ERR("writing %s failed", logpath);
    pr.done = recorded;
    if (limit > 0) progress_show(&pr, true);
    if (rc == 0) {
        rep->failed = 0;
        size_t done = 0;
        for (size_t u = 0; u < nu; u++) {
            if (!sweep_in_shard(u, o->shard_index, o->shard_count) || !res[u].done) continue;
            done++;
            if (!res[u].ok) rep->failed++;
        }
        rep->complete = done == rep->units;
        if (rep->complete && o->shard_count <= 1) {
            if (sweep_write_outputs(o->out_dir, &m, res, err, err_cap) != 0) rc = -1;
            else rep->outputs_written = true;
        }
    }
    rep->wall_seconds = now_s() - t0;
    sweep_results_free(res, nu);
    free(pending);
    sweep_manifest_free(&m);
    return rc;
}

/* ---- merge -------------------------------------------------------------------------- */

int sweep_merge(const char *const *dirs, size_t n_dirs, const char *out_dir, size_t *failed, char *err,
                size_t err_cap) {
    if (n_dirs == 0) return ERR("no shard directories given");
    struct stat so, sd, se;
    bool out_exists = stat(out_dir, &so) == 0;
    for (size_t d = 0; d < n_dirs; d++) {
        if (stat(dirs[d], &sd) != 0) continue; /* reported when its manifest is read */
        if (out_exists && sd.st_dev == so.st_dev && sd.st_ino == so.st_ino) {
            return ERR("--out %s is the slice %s: merge into a new directory", out_dir, dirs[d]);
        }
        for (size_t e = 0; e < d; e++) {
            if (stat(dirs[e], &se) == 0 && sd.st_dev == se.st_dev && sd.st_ino == se.st_ino) {
                return ERR("%s and %s are the same directory: give each slice once", dirs[e], dirs[d]);
            }
        }
    }
    sweep_manifest_t *ms = calloc(n_dirs, sizeof *ms);
    if (ms == NULL) return ERR("out of memory");
    int rc = 0;
    size_t nread = 0;
    for (; nread < n_dirs && rc == 0; nread++) {
        if (sweep_manifest_read(dirs[nread], &ms[nread], err, err_cap) != 0) {
            rc = -1;
            break;
        }
        if (nread > 0 && strcmp(ms[nread].hash, ms[0].hash) != 0) {
            rc = ERR("%s: another sweep (sweep hash %.16s) than %s (%.16s): refusing to merge", dirs[nread],
                     ms[nread].hash, dirs[0], ms[0].hash);
        } else if (nread > 0 && strcmp(ms[nread].build_id, ms[0].build_id) != 0) {
            rc = ERR("%s: another build (%s) than %s (%s): refusing to merge", dirs[nread], ms[nread].build_id, dirs[0],
                     ms[0].build_id);
        }
    }
    size_t nu = rc == 0 ? ms[0].n_units : 0;
    sweep_unit_result_t *res = rc == 0 ? calloc(nu, sizeof *res) : NULL;
    size_t *owner = rc == 0 ? calloc(nu, sizeof *owner) : NULL;
    if (rc == 0 && (res == NULL || owner == NULL)) rc = ERR("out of memory");
    for (size_t d = 0; rc == 0 && d < n_dirs; d++) {
        sweep_unit_result_t *one = calloc(nu, sizeof *one);
        if (one == NULL) {
            rc = ERR("out of memory");
            break;
        }
        char why[512];
        if (sweep_log_read(dirs[d], &ms[0], one, false, why, sizeof why) < 0) {
            rc = ERR("%s", why);
        }
        for (size_t u = 0; rc == 0 && u < nu; u++) {
            if (!one[u].done) continue;
            if (res[u].done) {
                rc = ERR("unit %zu (%s, %s, seed %s) is in both %s and %s: overlapping slices", u,
                         ms[0].configs[u / ms[0].n_seeds / ms[0].n_traces],
                         ms[0].traces[(u / ms[0].n_seeds) % ms[0].n_traces], ms[0].seeds[u % ms[0].n_seeds],
                         dirs[owner[u]], dirs[d]);
                break;
            }
            res[u] = one[u];
            memset(&one[u], 0, sizeof one[u]);
            owner[u] = d;
        }
        sweep_results_free(one, nu);
    }
    size_t missing = 0, first = 0;
    for (size_t u = 0; rc == 0 && u < nu; u++) {
        if (!res[u].done && missing++ == 0) first = u;
    }
    if (rc == 0 && missing > 0) {
        rc = ERR("%zu of %zu units are in no slice, the first unit %zu (%s, %s, seed %s): missing slices or "
                 "unfinished shards",
                 missing, nu, first, ms[0].configs[first / ms[0].n_seeds / ms[0].n_traces],
                 ms[0].traces[(first / ms[0].n_seeds) % ms[0].n_traces], ms[0].seeds[first % ms[0].n_seeds]);
    }
    if (rc == 0 && make_dirs(out_dir) != 0) rc = ERR("cannot create %s: %s", out_dir, strerror(errno));
    if (rc == 0) {
        json_t *shard = json_pack("{s:I, s:I}", "index", (json_int_t)0, "count", (json_int_t)1);
        json_object_set_new(ms[0].root, "shard", shard);
        char path[4200];
        snprintf(path, sizeof path, "%s/manifest.json", out_dir);
        if (json_dump_file(ms[0].root, path, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15)) != 0) {
            rc = ERR("cannot write %s", path);
        }
    }
    if (rc == 0) rc = sweep_write_outputs(out_dir, &ms[0], res, err, err_cap);
    if (failed != NULL) {
        *failed = 0;
        for (size_t u = 0; rc == 0 && u < nu; u++) *failed += !res[u].ok;
    }
    sweep_results_free(res, nu);
    free(owner);
    for (size_t d = 0; d < nread && d < n_dirs; d++) sweep_manifest_free(&ms[d]);
    free(ms);
    return rc;
}
