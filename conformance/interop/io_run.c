/* SPDX-License-Identifier: MIT */
/* io_run.c - `rl-testbed interop` over a list of case files (docs/interop.md):
 * each playable case once per auth mode and address family (or once, rotating
 * through them), a run with a failed timing check rerun once, the table,
 * JUnit and JSON reports, and the closing line "interop: N passed, N failed,
 * N skipped". */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <openssl/crypto.h>

#include "io_int.h"
#include "rl_credential.h"
#include "sim_keys.h"
#include "vec_report.h"

#define N_SEVERITIES 4

static const char *const severities[N_SEVERITIES] = {"security", "decision", "interop", "convention"};

typedef struct {
    const io_options_t *opt;
    vec_report_t report;
    json_t *runs;
    unsigned long by_severity[N_SEVERITIES];
    size_t case_index;
} io_state_t;

const char *io_default_driver(void)
{
    const char *env = getenv("RL_INTEROP_DRIVER");
    return env != NULL && env[0] != '\0' ? env : RL_INTEROP_DRIVER_PATH;
}

static bool is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

bool io_inputs(char **args, int n_args, vec_file_list_t *out)
{
    static const char *const dirs[] = {"conformance/cases", "conformance/interop/cases"};
    char pattern[4096];
    for (int i = 0; i < n_args; i++) {
        size_t len = strlen(args[i]);
        if (!is_dir(args[i])) {
            if (!vec_file_list_add(out, args[i], false))
                return false;
            continue;
        }
        vec_format(pattern, sizeof pattern, "%s%s*.json", args[i], len > 0 && args[i][len - 1] == '/' ? "" : "/");
        if (!vec_add_glob(out, pattern, true))
            return false;
    }
    if (n_args > 0)
        return true;
    const char *base = vec_default_base();
    for (size_t i = 0; i < 2; i++) {
        vec_format(pattern, sizeof pattern, "%s%s%s/*.json", base, base[0] != '\0' ? "/" : "", dirs[i]);
        if (!vec_add_glob(out, pattern, true))
            return false;
    }
    return true;
}

/* For an "auth": "any" case: the conformance key of mode with dedup_ttl_ms_max
 * raised to 2000 ms (the largest a key encodes, wire_protocol.md "Bech32
 * Credential Formats"), so that H at U = 100 ms fits. The secret is the
 * simulator's for the key_id (sim_keys.h). */
static const char *bind_mode(conf_case_t *c, r_auth_type_t mode)
{
    const char *name = conf_case_bind_mode(c, mode);
    r_auth_key_info_t k;
    uint32_t word = 0;
    if (r_client_parse_auth_key(c->key, 0, &k) == RCLIENT_OK) {
        k.quotas.dedup_ttl_ms_max = 2000;
        if (rl_quota_encode(&k.quotas, &word) == RCLIENT_OK)
            (void)sim_key_make(mode, k.key_id, word, c->key, sizeof c->key);
        OPENSSL_cleanse(&k, sizeof k);
    }
    return name;
}

static void count_severity(io_state_t *st, const io_rows_t *rows)
{
    for (size_t i = 0; i < rows->n; i++)
        for (size_t s = 0; s < N_SEVERITIES && !rows->rows[i].pass; s++)
            if (strcmp(rows->rows[i].severity, severities[s]) == 0)
                st->by_severity[s]++;
}

static bool has_failure(const io_rows_t *rows)
{
    for (size_t i = 0; i < rows->n; i++)
        if (!rows->rows[i].pass)
            return true;
    return false;
}

static void skip_rows(io_state_t *st, const io_case_t *ic, const char *why);

/* One run of ic bound to mode and family, rerun once when a timing check
 * failed or the testbed sent a scripted datagram late (io_script_late), and
 * once more when the testbed was late again. */
static void run_once(io_state_t *st, const io_case_t *ic, r_auth_type_t mode, bool v6)
{
    vec_report_t *r = &st->report;
    io_run_t *run = NULL;
    io_rows_t first, rows;
    char shown[VJ_PATH_MAX], err[256] = "", late[160] = "", first_late[160] = "";
    bool rerun = false;
    vec_case_t verdict;
    memset(&verdict, 0, sizeof verdict);
    memset(&first, 0, sizeof first);
    int reruns = 0;
    for (int attempt = 0; attempt < 3; attempt++) {
        if (run != NULL && run->host != NULL) {
            io_servers_stop(run);
            conf_host_free(run->host);
            free(run->host);
        }
        free(run);
        run = calloc(1, sizeof *run);
        if (run == NULL)
            return;
        run->ic = ic;
        run->c = ic->c;
        run->mode = ic->any_auth ? bind_mode(&run->c, mode) : (mode == R_AUTH_NONE    ? "none"
                                                                         : mode == R_AUTH_COOKIE ? "cookie"
                                                                                                 : "aes");
        run->v6 = v6;
        run->c.policy.unit_ms *= ic->factor;
        if (attempt == 0) {
            vec_format(shown, sizeof shown, "%s[%s,%s]", ic->path, run->mode, v6 ? "ipv6" : "ipv4");
            vec_report_file_begin_columns(r, shown, "interop", "  check          status detail");
        }
        err[0] = '\0';
        if (!io_play(run, st->opt->driver, err, sizeof err))
            break;
        if (run->unsupported[0] != '\0') { /* the driver declined the case: skipped, not failed */
            char why[200];
            vec_format(why, sizeof why, "%s", run->unsupported);
            io_servers_stop(run);
            conf_host_free(run->host);
            free(run->host);
            free(run);
            skip_rows(st, ic, why);
            return;
        }
        io_judge(run, &rows);
        late[0] = '\0';
        bool script_late = io_script_late(run, late, sizeof late) && has_failure(&rows);
        /* a timing failure is rerun once; a run in which the testbed's own
         * script was late judged nothing of the client, so a second such run
         * gets one more (project: docs/interop.md "Timing") */
        bool again = attempt == 0 ? script_late || io_rows_timing_affected(&rows) : attempt == 1 && script_late;
        if (!again)
            break;
        if (attempt == 0) {
            first = rows;
            vec_format(first_late, sizeof first_late, "%s", late);
        }
        rerun = true;
        reruns++;
    }
    vec_format(verdict.name, sizeof verdict.name, "%s[%s,%s]", ic->c.id, run->mode, v6 ? "ipv6" : "ipv4");
    vec_format(verdict.id, sizeof verdict.id, "%s", ic->c.id);
    verdict.result = "-";
    verdict.pass = err[0] == '\0';
    if (!verdict.pass) {
        vec_format(verdict.detail, sizeof verdict.detail, "%s", err);
        vec_report_row(r, "setup", false, verdict.detail);
        rows.n = 0;
    }
    for (size_t i = 0; i < first.n && rerun; i++)
        if (!first.rows[i].pass && (first.rows[i].timing || first_late[0] != '\0')) {
            char d[VEC_MSG_MAX];
            if (first_late[0] != '\0')
                vec_format(d, sizeof d, "first run failed (%s: %s) after %s (a loaded machine); rerun once",
                           first.rows[i].name, first.rows[i].detail, first_late);
            else
                vec_format(d, sizeof d, "first run failed a timing check (%s: %s); rerun once", first.rows[i].name,
                           first.rows[i].detail);
            vec_report_row(r, "rerun", true, d);
            break;
        }
    if (reruns == 2)
        vec_report_row(r, "rerun", true, "the rerun failed with the testbed's own script late again; rerun once more");
    for (size_t i = 0; i < rows.n; i++) {
        io_row_t *x = &rows.rows[i];
        char d[VEC_MSG_MAX];
        if (x->pass)
            vec_format(d, sizeof d, "%s%s%s", x->severity, x->detail[0] != '\0' ? "; " : "", x->detail);
        else
            vec_format(d, sizeof d, "%s: %s [%s%s]", x->severity, x->detail, x->spec,
                       x->timing ? "; tolerance -" IO_TOL_TEXT " U" : "");
        if (!x->pass && verdict.pass) {
            verdict.pass = false;
            vec_format(verdict.detail, sizeof verdict.detail, "%s (%s): %s%s%s%s", x->name, x->severity, x->detail,
                       reruns == 2 ? " (after two reruns)" : rerun ? " (after one rerun)" : "",
                       late[0] != '\0' ? "; " : "", late);
        }
        if (x->pass && strncmp(x->detail, "not judged", 10) == 0)
            vec_report_na_row(r, x->name, d); /* nothing to judge: said, never a pass */
        else
            vec_report_row(r, x->name, x->pass, d);
    }
    if (!verdict.pass && (run->n_rx > 0 || run->n_tx > 0 || run->decided) && r->out != NULL)
        io_print_timeline(r->out, run);
    count_severity(st, &rows);
    vec_report_count(r, &verdict);
    vec_report_file_end(r);
    if (st->runs != NULL)
        json_array_append_new(st->runs, io_run_json(run, &rows, rerun, verdict.pass ? "pass" : "fail"));
    if (run->host != NULL) {
        io_servers_stop(run);
        conf_host_free(run->host);
        free(run->host);
    }
    free(run);
}

/* The skip row of ic in the report block already open, and its JSON run. */
static void skip_rows(io_state_t *st, const io_case_t *ic, const char *why)
{
    vec_report_t *r = &st->report;
    vec_case_t v;
    char d[VEC_MSG_MAX];
    memset(&v, 0, sizeof v);
    vec_format(d, sizeof d, "%s", why);
    vec_report_skip_row(r, "case", d);
    vec_format(v.name, sizeof v.name, "%s", ic->c.id);
    vec_format(v.id, sizeof v.id, "%s", ic->c.id);
    vec_format(v.detail, sizeof v.detail, "%s", why);
    v.result = "-";
    v.skipped = true;
    vec_report_count(r, &v);
    vec_report_file_end(r);
    if (st->runs != NULL)
        json_array_append_new(st->runs, json_pack("{s:s, s:s, s:s, s:s}", "case", ic->c.id, "file", ic->path,
                                                  "result", "skip", "reason", why));
}

static void skip_case(io_state_t *st, const io_case_t *ic, const char *why)
{
    vec_report_file_begin_columns(&st->report, ic->path, "interop", "  check          status detail");
    skip_rows(st, ic, why);
}

static void run_case(io_state_t *st, const io_case_t *ic)
{
    static const r_auth_type_t modes[] = {R_AUTH_NONE, R_AUTH_COOKIE, R_AUTH_AES};
    r_auth_type_t m[3];
    bool fam[2];
    size_t n_m = 0, n_f = 0;
    for (size_t i = 0; i < 3; i++)
        if ((st->opt->auth_mask & (1u << modes[i])) && (ic->any_auth || ic->c.auth == modes[i]))
            m[n_m++] = modes[i];
    if (st->opt->family_mask & IO_FAMILY_V4)
        fam[n_f++] = false;
    if (st->opt->family_mask & IO_FAMILY_V6)
        fam[n_f++] = true;
    if (ic->skip[0] != '\0')
        return skip_case(st, ic, ic->skip);
    if (n_m == 0 || n_f == 0)
        return skip_case(st, ic, "its auth mode is not among those selected (--auth)");
    r_auth_key_info_t key;
    conf_case_t bound = ic->c;
    if (ic->any_auth)
        bind_mode(&bound, m[0]);
    r_request_policy_t pol = ic->c.policy;
    pol.unit_ms *= ic->factor;
    if (r_client_parse_auth_key(bound.key, 0, &key) == RCLIENT_OK && io_policy_h_ms(&pol) > key.quotas.dedup_ttl_ms_max)
        return skip_case(st, ic, "H at U = 100 ms is above the key's dedup_ttl_ms_max");
    size_t idx = st->case_index++;
    if (st->opt->rotate) {
        size_t combo = idx % (n_m * n_f);
        run_once(st, ic, m[combo % n_m], fam[combo / n_m]);
        return;
    }
    for (size_t i = 0; i < n_m; i++)
        for (size_t f = 0; f < n_f; f++)
            run_once(st, ic, m[i], fam[f]);
}

static bool write_json(const io_state_t *st, FILE *f, const char *path)
{
    json_t *sev = json_object();
    for (size_t s = 0; s < N_SEVERITIES; s++)
        json_object_set_new(sev, severities[s], json_integer((json_int_t)st->by_severity[s]));
    json_t *root = json_pack("{s:s, s:i, s:{s:i, s:i}, s:I, s:I, s:I, s:o, s:O}", "schema",
                             "ratelimitly-interop-results/v1", "unit_ms", (int)IO_UNIT_MS, "tolerance", "early_ms",
                             (int)IO_EARLY_MS, "late_ms", (int)(IO_UNIT_MS * IO_LATE_PERCENT / 100u), "passed",
                             (json_int_t)st->report.passed,
                             "failed", (json_int_t)st->report.failed, "skipped", (json_int_t)st->report.skipped,
                             "failed_checks_by_severity", sev, "runs", st->runs);
    int rc = root != NULL ? json_dumpf(root, f, JSON_INDENT(1)) : -1;
    json_decref(root);
    if (fclose(f) != 0)
        rc = -1;
    if (rc != 0)
        fprintf(stderr, "interop: cannot write %s\n", path);
    return rc == 0;
}

int io_run(const vec_file_list_t *files, const io_options_t *opt)
{
    io_state_t st;
    io_options_t o = *opt;
    memset(&st, 0, sizeof st);
    if (o.driver == NULL)
        o.driver = io_default_driver();
    st.opt = &o;
    /* opened before the first run: a path that cannot be written is a usage
     * error now, not after the whole matrix */
    FILE *json_f = o.json_path != NULL ? fopen(o.json_path, "w") : NULL;
    if (o.json_path != NULL && json_f == NULL) {
        fprintf(stderr, "rl-testbed interop: cannot create JSON file %s: %s\n", o.json_path, strerror(errno));
        return 2;
    }
    if (!vec_report_open(&st.report, "interop", o.quiet, o.junit_path)) {
        if (json_f != NULL)
            fclose(json_f);
        return 2;
    }
    st.runs = o.json_path != NULL ? json_array() : NULL;
    uint64_t started_us = io_now_us();
    bool broken = false;
    io_case_t *ic = malloc(sizeof *ic);
    for (size_t i = 0; ic != NULL && i < files->n; i++) {
        char err[VEC_MSG_MAX];
        if (files->files[i].no_match || !io_case_load(files->files[i].path, ic, err, sizeof err)) {
            vec_report_file_begin(&st.report, files->files[i].path, "interop");
            vec_report_file_failure(&st.report, files->files[i].path,
                                    files->files[i].no_match ? "no file matches" : err);
            vec_report_file_end(&st.report);
            broken = true;
            continue;
        }
        run_case(&st, ic);
    }
    free(ic);
    fprintf(stdout, "interop failed checks by severity: security %lu, decision %lu, interop %lu, convention %lu\n",
            st.by_severity[0], st.by_severity[1], st.by_severity[2], st.by_severity[3]);
    /* the closing note gives the tolerances and the run time (issue 22 "Done when") */
    uint64_t took_ms = (io_now_us() - started_us) / 1000u;
    fprintf(stdout,
            "interop tolerances: timing -%u ms/+%u%% of U (U = %u ms), completion race %u ms, testbed script %u ms; "
            "run time %llu.%01llu s\n",
            IO_EARLY_MS, IO_LATE_PERCENT, IO_UNIT_MS, IO_EARLY_MS, IO_SCRIPT_SLACK_MS,
            (unsigned long long)(took_ms / 1000u), (unsigned long long)(took_ms % 1000u / 100u));
    bool json_ok = o.json_path == NULL || write_json(&st, json_f, o.json_path);
    json_decref(st.runs);
    bool junit_ok = vec_report_close(&st.report, o.junit_path);
    if (!junit_ok || !json_ok || broken)
        return 2;
    /* a failure, or nothing played at all ("gate: no test ran"): a driver that
     * declines every case gets no green verdict (project, as conformance) */
    return st.report.exit_status;
}
