/* SPDX-License-Identifier: MIT */
/* conf_runner.c - `rl-testbed conformance` (see conf_runner.h). Files are
 * classified by their `schema`; vector files run through the vectors code
 * path unchanged, case files through conf_exec.c. */
#define _POSIX_C_SOURCE 200809L

#include "conf_runner.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "conf_case.h"
#include "conf_exec.h"
#include "conf_remote.h"
#include "conf_sim.h"
#include "vec_client.h"
#include "vec_report.h"

#define MAX_AREAS 16u
#define MAX_SIM_TRACES 1024u

typedef struct {
    vec_report_t report;
    const conf_options_t *opt;
    unsigned long skipped;
    char areas[MAX_AREAS][16];
    unsigned long area_cases[MAX_AREAS];
    size_t n_areas;
} conf_state_t;

static bool is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

bool conf_inputs(char **args, int n_args, const conf_options_t *opt, vec_file_list_t *out)
{
    char pattern[4096];
    for (int i = 0; i < n_args; i++) {
        if (!is_dir(args[i])) {
            if (!vec_file_list_add(out, args[i], false))
                return false;
            continue;
        }
        size_t len = strlen(args[i]);
        vec_format(pattern, sizeof pattern, "%s%s*.json", args[i], len > 0 && args[i][len - 1] == '/' ? "" : "/");
        if (!vec_add_glob(out, pattern, true))
            return false;
    }
    if (n_args > 0)
        return true;
    if (!opt->cases_only && !vec_default_files(out))
        return false;
    if (opt->vectors_only)
        return true;
    const char *base = vec_default_base();
    vec_format(pattern, sizeof pattern, "%s%sconformance/cases/*.json", base, base[0] != '\0' ? "/" : "");
    if (!vec_add_glob(out, pattern, true))
        return false;
    if (!conf_simulator_built())
        return true;
    /* the simulator's shipped traces (the 1,000,000-request bench trace lives in a subfolder) */
    vec_format(pattern, sizeof pattern, "%s%ssim/traces/*.json", base, base[0] != '\0' ? "/" : "");
    return vec_add_glob(out, pattern, false);
}

static void count_area(conf_state_t *st, const char *area)
{
    for (size_t i = 0; i < st->n_areas; i++) {
        if (strcmp(st->areas[i], area) == 0) {
            st->area_cases[i]++;
            return;
        }
    }
    if (st->n_areas == MAX_AREAS)
        return;
    vec_format(st->areas[st->n_areas], sizeof st->areas[0], "%s", area);
    st->area_cases[st->n_areas++] = 1;
}

/* A failing row that is a refusal: submit refused at another step than the
 * case's (row "stage"), or a datagram the client rejected where it was due to
 * be accepted or rejected with another class. True when some failing row is
 * not one: a wrong acceptance or a wrong behaviour keeps the case's severity. */
static bool any_acceptance_failed(const conf_rows_t *rows)
{
    for (size_t i = 0; i < rows->n_rows; i++) {
        const conf_row_t *row = &rows->rows[i];
        bool refusal = strcmp(row->name, "stage") == 0 ||
                       (strcmp(row->name, "datagrams") == 0 && strstr(row->detail, "answered rejected") != NULL);
        if (!row->pass && !row->skipped && !row->inconclusive && !refusal)
            return true;
    }
    return false;
}

/* One run of a case: a table with a row per check, counted as one case.
 * mode is NULL for a case pinned to one auth mode, else the mode's name: the
 * table, JUnit name and id carry "[mode]" (README "Auth modes"). */
static void run_case_once(conf_state_t *st, const char *path, const conf_case_t *c, const char *mode)
{
    vec_report_t *r = &st->report;
    static conf_rows_t rows;
    char kind[48], shown[VJ_PATH_MAX], suffix[16] = "";
    if (mode != NULL)
        vec_format(suffix, sizeof suffix, "[%s]", mode);
    vec_format(kind, sizeof kind, "ha_case %s", c->area);
    vec_format(shown, sizeof shown, "%s%s", path, suffix);
    vec_report_file_begin_columns(r, shown, kind, "  check        status detail");
    vec_case_t verdict;
    memset(&verdict, 0, sizeof verdict);
    conf_case_tag(c, &verdict);
    if (st->opt->gate.norm_spec && !verdict.spec) {
        r->not_run++;
        return;
    }
    if (st->opt->client != NULL)
        conf_remote_run_case(c, st->opt->client, &rows, verdict.detail, sizeof verdict.detail);
    else
        conf_run_case(c, &rows);
    vec_format(verdict.name, sizeof verdict.name, "%s%s", c->id, suffix);
    vec_format(verdict.id, sizeof verdict.id, "%s", c->id);
    verdict.result = "-";
    verdict.pass = true;
    if (verdict.detail[0] != '\0') {
        /* the adapter's client cannot run this case (declared or answered) */
        verdict.skipped = true;
        verdict.pass = false;
        vec_report_skip_row(r, "case", verdict.detail);
    }
    for (size_t i = 0; i < rows.n_rows; i++) {
        conf_row_t *row = &rows.rows[i];
        if (row->skipped) {
            vec_report_skip_row(r, row->name, row->detail);
            continue;
        }
        if (row->inconclusive) {
            /* neither passed nor failed (ADAPTER.md "Steps"), unless another row fails */
            if (verdict.pass && !verdict.inconclusive) {
                verdict.inconclusive = true;
                vec_format(verdict.detail, sizeof verdict.detail, "%s: %s", row->name, row->detail);
            }
            vec_report_inconclusive_row(r, row->name, row->detail);
            continue;
        }
        if (!row->pass && verdict.pass) {
            verdict.pass = false;
            vec_format(verdict.detail, sizeof verdict.detail, "%s: %s", row->name, row->detail);
        }
        if (!row->pass && strcmp(row->name, "secrets") == 0)
            verdict.severity = VEC_SEV_SECURITY; /* key material on the wire outranks the case's own severity */
        vec_report_row(r, row->name, row->pass, row->detail);
    }
    if (!verdict.pass)
        verdict.inconclusive = false; /* a failing row outranks an inconclusive one */
    if (!verdict.pass && !any_acceptance_failed(&rows) &&
        (verdict.severity == VEC_SEV_SECURITY || verdict.severity == VEC_SEV_DECISION))
        verdict.severity = VEC_SEV_INTEROP; /* only wrong refusals: fail-safe (ADAPTER.md "Norms and severities") */
    vec_report_count(r, &verdict);
    count_area(st, c->area);
}

/* One case file: one run, or with "auth": "any" one run per auth mode. */
static void run_case_file(conf_state_t *st, const char *path, const json_t *root)
{
    static const r_auth_type_t modes[] = {R_AUTH_NONE, R_AUTH_COOKIE, R_AUTH_AES};
    vec_report_t *r = &st->report;
    conf_case_t *c = calloc(1, sizeof *c);
    vj_err_t e;
    if (c == NULL || !conf_case_parse(root, c, &e)) {
        vec_report_file_begin(r, path, "ha_case");
        vec_report_file_failure(r, path, c == NULL ? "(case): out of memory" : e.msg);
        free(c);
        return;
    }
    if (!c->any_auth) {
        run_case_once(st, path, c, NULL);
    } else {
        for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
            const char *mode = conf_case_bind_mode(c, modes[i]);
            run_case_once(st, path, c, mode);
            if (i + 1 < sizeof modes / sizeof modes[0])
                vec_report_file_end(r);
        }
    }
    free(c);
}

/* A simulator trace (docs/traces.md): one case, passed when it runs with its
 * own seed and every expectation holds. */
static void run_trace_file(conf_state_t *st, const char *path)
{
    vec_report_t *r = &st->report;
    vec_case_t c;
    memset(&c, 0, sizeof c);
    if (st->opt->client != NULL) {
        /* a trace drives the built-in core inside the simulator, not a client: not run,
         * never a skip the client's declaration did not cause (ADAPTER.md "Verdicts") */
        r->not_run_traces++;
        return;
    }
    vec_report_file_begin_columns(r, path, "sim_trace", "  check        status detail");
    /* the traces pin this project's core in its simulator (docs/traces.md): a project norm */
    vec_format(c.step, sizeof c.step, "decision");
    vec_format(c.norm, sizeof c.norm, "project: simulator trace expectations (docs/traces.md)");
    c.severity = VEC_SEV_CONVENTION;
    if (st->opt->gate.norm_spec) {
        r->not_run++;
        return;
    }
    c.pass = conf_judge_trace(path, c.detail, sizeof c.detail);
    c.result = "-";
    vec_format(c.name, sizeof c.name, "%s", path);
    vec_format(c.id, sizeof c.id, "trace");
    vec_report_row(r, c.id, c.pass, c.detail);
    vec_report_count(r, &c);
    count_area(st, "sim_trace");
}

static void run_file(conf_state_t *st, const vec_file_t *f)
{
    vec_report_t *r = &st->report;
    char msg[VEC_MSG_MAX], got[96];
    json_t *root = vec_open_listed_file(r, f);
    if (root == NULL)
        return;
    bool vectors = vec_is_vector_file(root), ha_case = conf_is_case_file(root);
    bool trace = conf_is_trace_file(root);
    if ((vectors && st->opt->cases_only) || ((ha_case || trace) && st->opt->vectors_only)) {
        st->skipped++;
    } else if (vectors) {
        vec_run_root(r, f->path, root);
    } else if (ha_case) {
        run_case_file(st, f->path, root);
    } else if (trace) {
        run_trace_file(st, f->path);
    } else {
        vec_report_file_begin(r, f->path, "-");
        vec_format(msg, sizeof msg,
                   "schema: expected \"ratelimitly-vectors/v1\", \"" CONF_SCHEMA_ID "\" or \"" CONF_TRACE_SCHEMA_ID
                   "\", got %s",
                   vj_describe(json_is_object(root) ? json_object_get(root, "schema") : root, got, sizeof got));
        vec_report_file_failure(r, f->path, msg);
    }
    vec_report_file_end(r);
    json_decref(root);
}

int conf_run(const vec_file_list_t *files, const conf_options_t *opt)
{
    conf_state_t *st = calloc(1, sizeof *st);
    if (st == NULL) {
        fputs("rl-testbed: out of memory\n", stderr);
        return 1;
    }
    st->opt = opt;
    if (!vec_report_open(&st->report, "conformance", opt->quiet, opt->junit_path)) {
        free(st);
        return 2;
    }
    st->report.gate = opt->gate;
    vec_backend_t backend;
    if (opt->client != NULL) {
        backend = vec_client_backend(opt->client);
        st->report.backend = &backend;
    }
    for (size_t i = 0; i < files->n; i++)
        run_file(st, &files->files[i]);
    fflush(stdout);
    if (st->skipped > 0)
        fprintf(stderr, "rl-testbed: skipped %lu file(s) (%s)\n", st->skipped,
                opt->vectors_only ? "--vectors-only" : "--cases-only");
    if (!opt->quiet && st->n_areas > 0) {
        printf("\nHA cases by area:");
        for (size_t i = 0; i < st->n_areas; i++)
            printf(" %s %lu%s", st->areas[i], st->area_cases[i], i + 1 < st->n_areas ? "," : "\n");
    }
    bool files_ok = vec_report_close(&st->report, opt->junit_path);
    int rc = files_ok ? st->report.exit_status : 1;
    free(st);
    return rc;
}
