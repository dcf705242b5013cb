/* SPDX-License-Identifier: MIT */
/* vec_summary.c - what a run adds up to: counts per verdict and severity, one
 * line per skip reason, failures grouped by severity, the gates
 * (conformance/ADAPTER.md "Gates") and the --json results file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rl_build_info.h"
#include "vec_kinds.h"
#include "vec_report.h"

/* The kind a row counts under for --require: a case's kind "ha_case <area>" is "ha_case". */
static void kind_word(const char *kind, char *out, size_t cap)
{
    size_t n = strcspn(kind, " ");
    vec_format(out, cap, "%.*s", (int)n, kind);
}

static void mark_ran(vec_report_t *r)
{
    char k[40];
    kind_word(r->kind, k, sizeof k);
    for (size_t i = 0; i < r->n_ran; i++) {
        if (strcmp(r->ran[i], k) == 0)
            return;
    }
    if (r->n_ran < VEC_RAN_KINDS)
        vec_format(r->ran[r->n_ran++], sizeof r->ran[0], "%s", k);
}

static void count_skip(vec_report_t *r, const char *reason)
{
    for (size_t i = 0; i < r->n_skips; i++) {
        if (strcmp(r->skips[i].reason, reason) == 0) {
            r->skips[i].n++;
            return;
        }
    }
    size_t i = r->n_skips < VEC_SKIP_REASONS ? r->n_skips++ : VEC_SKIP_REASONS - 1; /* the last one collects the rest */
    if (i + 1 == VEC_SKIP_REASONS && r->skips[i].n > 0)
        vec_format(r->skips[i].reason, sizeof r->skips[i].reason, "%s", "other reasons (run with --verbose)");
    else
        vec_format(r->skips[i].reason, sizeof r->skips[i].reason, "%s", reason);
    r->skips[i].n++;
}

static void keep_failure(vec_report_t *r, const vec_case_t *c)
{
    if (r->n_fail_lines == r->cap_fail_lines) {
        size_t cap = r->cap_fail_lines == 0 ? 32 : r->cap_fail_lines * 2;
        char **grown = realloc(r->fail_lines, cap * sizeof *grown);
        if (grown == NULL)
            return; /* the grouped summary is shorter; the rows and counts stay right */
        r->fail_lines = grown;
        r->cap_fail_lines = cap;
    }
    char line[VEC_MSG_MAX + VJ_PATH_MAX + 256];
    vec_format(line, sizeof line, "%d\t%s %s: %s", (int)c->severity, r->path, c->id, c->detail);
    char *copy = malloc(strlen(line) + 1);
    if (copy == NULL)
        return;
    memcpy(copy, line, strlen(line) + 1);
    r->fail_lines[r->n_fail_lines++] = copy;
}

static const char *status_name(const vec_case_t *c)
{
    return c->skipped ? "skip" : c->inconclusive ? "inconclusive" : c->pass ? "pass" : "fail";
}

static void keep_result(vec_report_t *r, const vec_case_t *c)
{
    if (r->gate.json_path == NULL)
        return;
    if (r->results == NULL && (r->results = json_array()) == NULL)
        return;
    json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:b, s:s, s:s, s:f}", "file",
                          vec_relative_path(r->path), "kind", r->kind, "id", c->id, "name", c->name, "result",
                          c->result != NULL ? c->result : "-", "status", status_name(c), "step", c->step, "norm",
                          c->norm, "spec", c->spec, "severity", vec_severity_name(c->severity), "detail", c->detail,
                          "time_s", c->seconds);
    if (o != NULL)
        json_array_append_new(r->results, o);
}

void vec_summary_tally(vec_report_t *r, const vec_case_t *c)
{
    if (c->skipped) {
        r->skipped++;
        count_skip(r, c->detail);
    } else if (c->inconclusive) {
        r->inconclusive++;
        mark_ran(r);
    } else if (c->pass) {
        r->passed++;
        mark_ran(r);
    } else {
        r->failed++;
        /* a test with a norm has a severity; a broken file or case file has neither */
        if (c->norm[0] != '\0')
            r->failed_by[(unsigned)c->severity < VEC_SEV_COUNT ? c->severity : VEC_SEV_CONVENTION]++;
        mark_ran(r);
        if (c->norm[0] != '\0')
            keep_failure(r, c);
    }
    keep_result(r, c);
}

static void print_grouped_failures(vec_report_t *r)
{
    if (r->n_fail_lines == 0)
        return; /* (files that could not be run have their own rows and no severity) */
    fprintf(r->out, "\nfailures by severity:\n");
    for (size_t k = 0; k < VEC_SEV_COUNT; k++) {
        int sev = (int)vec_severity_order[k];
        if (r->failed_by[sev] == 0)
            continue;
        fprintf(r->out, "  %s: %lu\n", vec_severity_name((vec_severity_t)sev), r->failed_by[sev]);
        for (size_t i = 0; i < r->n_fail_lines; i++) {
            if (atoi(r->fail_lines[i]) == sev)
                fprintf(r->out, "    %s\n", strchr(r->fail_lines[i], '\t') + 1);
        }
    }
}

static bool ran(const vec_report_t *r, const char *kind, size_t len)
{
    for (size_t i = 0; i < r->n_ran; i++) {
        if (strlen(r->ran[i]) == len && strncmp(r->ran[i], kind, len) == 0)
            return true;
    }
    return false;
}

/* Print every gate not met ("gate: ..."); true when all are met. */
static bool check_gates(vec_report_t *r, FILE *out)
{
    bool met = true;
    if (r->passed + r->failed + r->inconclusive == 0) {
        met = false;
        if (out != NULL)
            fprintf(out, "gate: no test ran\n");
    }
    if (r->gate.fail_on_skip && r->skipped > 0) {
        met = false;
        if (out != NULL)
            fprintf(out, "gate: %lu skipped (--fail-on-skip)\n", r->skipped);
    }
    if (r->passed < r->gate.min_pass) {
        met = false;
        if (out != NULL)
            fprintf(out, "gate: %lu passed, --min-pass wants %lu\n", r->passed, r->gate.min_pass);
    }
    for (const char *k = r->gate.require; k != NULL && *k != '\0';) {
        size_t n = strcspn(k, ",");
        if (n > 0 && !ran(r, k, n)) {
            met = false;
            if (out != NULL)
                fprintf(out, "gate: --require %.*s: no test of this kind ran\n", (int)n, k);
        }
        k += n + (k[n] == ',' ? 1 : 0);
    }
    return met;
}

bool vec_summary_print(vec_report_t *r)
{
    FILE *out = r->out;
    if (out != NULL && r->n_skips > 0) {
        fprintf(out, "\n");
        for (size_t i = 0; i < r->n_skips; i++)
            fprintf(out, "skipped %lu: %s\n", r->skips[i].n, r->skips[i].reason);
    }
    if (out != NULL)
        print_grouped_failures(r);
    for (size_t i = 0; i < r->n_fail_lines; i++)
        free(r->fail_lines[i]);
    free(r->fail_lines);
    r->fail_lines = NULL;
    r->n_fail_lines = r->cap_fail_lines = 0;
    if (out != NULL && (!r->quiet || r->failed > 0 || r->n_skips > 0))
        fprintf(out, "\n");
    if (out != NULL && r->not_run > 0)
        fprintf(out, "not run: %lu tests whose norm is a project choice (--norm spec)\n", r->not_run);
    if (out != NULL && r->not_run_traces > 0)
        fprintf(out, "not run: %lu simulator trace%s: traces drive the built-in core, not a client (--client)\n",
                r->not_run_traces, r->not_run_traces == 1 ? "" : "s");
    bool met = check_gates(r, out);
    if (out == NULL)
        return met;
    /* CI greps "N passed, N failed": the other counts only follow when there are some. */
    fprintf(out, "%s: %lu passed, %lu failed", r->label, r->passed, r->failed);
    if (r->inconclusive > 0)
        fprintf(out, ", %lu inconclusive", r->inconclusive);
    if (r->skipped > 0)
        fprintf(out, ", %lu skipped", r->skipped);
    if (r->failed_by[VEC_SEV_SECURITY] + r->failed_by[VEC_SEV_DECISION] + r->failed_by[VEC_SEV_INTEROP] +
            r->failed_by[VEC_SEV_CONVENTION] > 0)
        fprintf(out, "; failed by severity: security %lu, decision %lu, interop %lu, convention %lu",
                r->failed_by[VEC_SEV_SECURITY], r->failed_by[VEC_SEV_DECISION], r->failed_by[VEC_SEV_INTEROP],
                r->failed_by[VEC_SEV_CONVENTION]);
    fprintf(out, "\n");
    fflush(out);
    return met;
}

bool vec_summary_write_json(vec_report_t *r)
{
    if (r->gate.json_path == NULL)
        return true;
    char build_id[RL_BUILD_ID_MAX];
    rl_build_id(build_id);
    json_t *doc = json_pack("{s:s, s:{s:s, s:s, s:s, s:s, s:s}, s:s, s:{s:I, s:I, s:I, s:I, s:{s:I, s:I, s:I, s:I}}, s:o}", "schema",
                            "rl-testbed-results/1", "testbed", "name", "rl-testbed", "version", vec_testbed_version(),
                            "commit", rl_build_commit(), "build_id", build_id, "suite_data_version",
                            rl_build_suite_data_version(),
                            "label", r->label, "summary", "passed", (json_int_t)r->passed, "failed",
                            (json_int_t)r->failed, "inconclusive", (json_int_t)r->inconclusive, "skipped",
                            (json_int_t)r->skipped, "failed_by_severity", "security",
                            (json_int_t)r->failed_by[VEC_SEV_SECURITY], "decision",
                            (json_int_t)r->failed_by[VEC_SEV_DECISION], "interop",
                            (json_int_t)r->failed_by[VEC_SEV_INTEROP], "convention",
                            (json_int_t)r->failed_by[VEC_SEV_CONVENTION], "tests",
                            r->results != NULL ? r->results : json_array());
    r->results = NULL;
    bool ok = doc != NULL && json_dump_file(doc, r->gate.json_path, JSON_INDENT(1)) == 0;
    json_decref(doc);
    fprintf(stderr, ok ? "rl-testbed: JSON results written to %s\n" : "rl-testbed: writing JSON results to %s failed\n",
            r->gate.json_path);
    return ok;
}

/* A --require entry: a vector kind, or "ha_case" / "sim_trace". */
static bool known_kind(const char *k, size_t n)
{
    char name[40];
    vec_format(name, sizeof name, "%.*s", (int)n, k);
    json_t *s = json_string(name);
    bool ok = strcmp(name, "ha_case") == 0 || strcmp(name, "sim_trace") == 0 || vec_kind_find(s) != NULL;
    json_decref(s);
    return ok;
}

static int gate_value(int argc, char **argv, int *i, const char *opt, const char **value, char *err, size_t cap)
{
    size_t n = strlen(opt);
    const char *a = argv[*i];
    if (strcmp(a, opt) == 0) {
        if (*i + 1 >= argc) {
            vec_format(err, cap, "missing value after '%s'", opt);
            return -1;
        }
        *value = argv[++*i];
        return 1;
    }
    if (strncmp(a, opt, n) == 0 && a[n] == '=') {
        *value = a + n + 1;
        return 1;
    }
    return 0;
}

int vec_gate_option(int argc, char **argv, int *i, vec_gate_t *g, char *err, size_t cap)
{
    const char *a = argv[*i], *v = NULL;
    int rc;
    if (strcmp(a, "--fail-on-skip") == 0) {
        g->fail_on_skip = true;
        return 1;
    }
    if (strcmp(a, "--verbose") == 0 || strcmp(a, "-v") == 0) {
        g->verbose = true;
        return 1;
    }
    if ((rc = gate_value(argc, argv, i, "--json", &v, err, cap)) != 0) {
        g->json_path = v;
        return rc;
    }
    if ((rc = gate_value(argc, argv, i, "--norm", &v, err, cap)) != 0) {
        if (rc > 0 && strcmp(v, "spec") != 0 && strcmp(v, "all") != 0) {
            vec_format(err, cap, "--norm wants spec or all, got '%s'", v);
            return -1;
        }
        g->norm_spec = rc > 0 && strcmp(v, "spec") == 0;
        return rc;
    }
    if ((rc = gate_value(argc, argv, i, "--min-pass", &v, err, cap)) != 0) {
        char *end = NULL;
        unsigned long n = rc > 0 ? strtoul(v, &end, 10) : 0;
        if (rc > 0 && (end == v || *end != '\0' || v[0] == '-')) {
            vec_format(err, cap, "--min-pass wants a count, got '%s'", v);
            return -1;
        }
        g->min_pass = n;
        return rc;
    }
    if ((rc = gate_value(argc, argv, i, "--require", &v, err, cap)) <= 0)
        return rc;
    for (const char *k = v;;) {
        size_t n = strcspn(k, ",");
        if (!known_kind(k, n)) {
            vec_format(err, cap, "--require: unknown kind '%.*s' (a vector kind, ha_case or sim_trace)", (int)n, k);
            return -1;
        }
        if (k[n] == '\0')
            break;
        k += n + 1;
    }
    g->require = v;
    return 1;
}
