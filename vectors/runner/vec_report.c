/* SPDX-License-Identifier: MIT */
/* vec_report.c - result table, JUnit XML and closing line (see vec_report.h). */
#define _POSIX_C_SOURCE 200809L

#include "vec_report.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rl_build_info.h"
#include "vec_runner.h"

const char *vec_testbed_version(void)
{
    return rl_build_version();
}

/* Monotonic seconds: the time attributes of JUnit and --json. */
double vec_report_now(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
        return 0.0;
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

const char *vec_relative_path(const char *path)
{
    static char cwd[4096];
    const char *base = vec_default_base();
    if (base[0] == '\0') /* the data directory is the current one */
        base = getcwd(cwd, sizeof cwd) != NULL ? cwd : "";
    size_t n = strlen(base);
    if (n > 0 && strncmp(path, base, n) == 0 && path[n] == '/')
        return path + n + 1;
    return path;
}

/* Length of the valid UTF-8 sequence at s (XML 1.0 characters only), or 0. */
static size_t utf8_seq_len(const unsigned char *s)
{
    unsigned char c = s[0];
    size_t n;
    unsigned char lo = 0x80, hi = 0xBF; /* allowed range of the second byte */
    if (c >= 0xC2 && c <= 0xDF)
        n = 2;
    else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        lo = c == 0xE0 ? 0xA0 : 0x80; /* no overlong forms */
        hi = c == 0xED ? 0x9F : 0xBF; /* no surrogates */
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        lo = c == 0xF0 ? 0x90 : 0x80;
        hi = c == 0xF4 ? 0x8F : 0xBF;
    } else
        return 0;
    if (s[1] < lo || s[1] > hi)
        return 0;
    for (size_t i = 2; i < n; i++) {
        if (s[i] < 0x80 || s[i] > 0xBF)
            return 0;
    }
    /* U+FFFE and U+FFFF are not XML characters. */
    if (n == 3 && c == 0xEF && s[1] == 0xBF && s[2] >= 0xBE)
        return 0;
    return n;
}

void vec_sanitize(char *s)
{
    unsigned char *u = (unsigned char *)s;
    size_t i = 0;
    while (u[i] != '\0') {
        if (u[i] >= 0x20 && u[i] < 0x7F) {
            i++;
            continue;
        }
        size_t n = u[i] >= 0x80 ? utf8_seq_len(u + i) : 0;
        if (n == 0) {
            u[i++] = '?';
            continue;
        }
        i += n;
    }
}

bool vec_report_open(vec_report_t *r, const char *label, bool quiet, const char *junit_path)
{
    memset(r, 0, sizeof *r);
    r->label = label;
    r->out = stdout;
    r->quiet = quiet;
    r->mark = vec_report_now();
    if (junit_path == NULL)
        return true;
    r->junit = fopen(junit_path, "w");
    if (r->junit == NULL) {
        fprintf(stderr, "rl-testbed: cannot create JUnit file %s: %s\n", junit_path, strerror(errno));
        return false;
    }
    fprintf(r->junit, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"rl-testbed %s\">\n", label);
    char build_id[RL_BUILD_ID_MAX];
    rl_build_id(build_id);
    fprintf(r->junit,
            "  <properties><property name=\"testbed_version\" value=\"%s\"/>"
            "<property name=\"testbed_commit\" value=\"%s\"/><property name=\"testbed_build_id\" value=\"%s\"/>"
            "<property name=\"suite_data_version\" value=\"%s\"/></properties>\n",
            rl_build_version(), rl_build_commit(), build_id, rl_build_suite_data_version());
    return true;
}

static void print_header(vec_report_t *r)
{
    if (r->header_printed || r->out == NULL)
        return;
    r->header_printed = true;
    fprintf(r->out, "\n%s [%s]\n", r->path, r->kind);
    if (r->columns != NULL)
        fprintf(r->out, "%s\n", r->columns);
    else
        fprintf(r->out, "  %-8s %-8s %-6s %s\n", "tcId", "result", "status", "detail");
}

void vec_report_file_begin(vec_report_t *r, const char *path, const char *kind)
{
    vec_report_file_begin_columns(r, path, kind, NULL);
}

void vec_report_file_begin_columns(vec_report_t *r, const char *path, const char *kind, const char *columns)
{
    vec_format(r->path, sizeof r->path, "%s", path);
    vec_sanitize(r->path);
    vec_format(r->kind, sizeof r->kind, "%s", kind);
    vec_sanitize(r->kind);
    r->header_printed = false;
    r->columns = columns;
    r->n_cases = 0;
}

static void keep_case(vec_report_t *r, const vec_case_t *c)
{
    if (r->junit == NULL)
        return;
    if (r->n_cases == r->cap_cases) {
        size_t cap = r->cap_cases == 0 ? 64 : r->cap_cases * 2;
        vec_case_t *grown = realloc(r->cases, cap * sizeof *grown);
        if (grown == NULL) {
            fprintf(stderr, "rl-testbed: out of memory; JUnit output incomplete\n");
            return;
        }
        r->cases = grown;
        r->cap_cases = cap;
    }
    r->cases[r->n_cases++] = *c;
}

static const char *status_word(const vec_case_t *c)
{
    return c->skipped ? "SKIP" : c->inconclusive ? "INCONCLUSIVE" : c->pass ? "PASS" : "FAIL";
}

/* Sanitize, time and count a case (vec_summary.c), and keep it for JUnit. */
static void record(vec_report_t *r, vec_case_t *c)
{
    vec_sanitize(c->detail);
    vec_sanitize(c->id);
    vec_sanitize(c->name);
    double now = vec_report_now();
    if (c->seconds <= 0.0) /* a case timed by its runner keeps its time */
        c->seconds = now > r->mark ? now - r->mark : 0.0;
    r->mark = now;
    vec_summary_tally(r, c);
    keep_case(r, c);
}

void vec_report_count(vec_report_t *r, vec_case_t *c)
{
    record(r, c);
}

static void print_row(vec_report_t *r, const char *name, const char *status, bool failing, char *detail)
{
    vec_sanitize(detail);
    if ((!failing && r->quiet) || r->out == NULL)
        return;
    print_header(r);
    if (detail[0] == '\0')
        fprintf(r->out, "  %-12s %s\n", name, status);
    else
        fprintf(r->out, "  %-12s %-6s %s\n", name, status, detail);
}

void vec_report_row(vec_report_t *r, const char *name, bool pass, char *detail)
{
    print_row(r, name, pass ? "PASS" : "FAIL", !pass, detail);
}

void vec_report_inconclusive_row(vec_report_t *r, const char *name, char *detail)
{
    print_row(r, name, "INCONCLUSIVE", true, detail);
}

void vec_report_skip_row(vec_report_t *r, const char *name, char *detail)
{
    if (r->gate.verbose)
        print_row(r, name, "SKIP", false, detail);
}

void vec_report_na_row(vec_report_t *r, const char *name, char *detail)
{
    print_row(r, name, "N/A", false, detail);
}

void vec_report_case(vec_report_t *r, vec_case_t *c)
{
    record(r, c);
    /* failing and inconclusive rows always; passing ones unless quiet; skips with --verbose */
    bool show = c->skipped ? r->gate.verbose && !r->quiet : !c->pass || c->inconclusive || !r->quiet;
    if (show && r->out != NULL) {
        print_header(r);
        const char *status = status_word(c);
        if (c->detail[0] == '\0')
            fprintf(r->out, "  %-8s %-8s %s\n", c->id, c->result, status);
        else
            fprintf(r->out, "  %-8s %-8s %-6s %s\n", c->id, c->result, status, c->detail);
    }
}

static void xml_escaped(FILE *f, const char *s)
{
    for (; *s != '\0'; s++) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&apos;", f); break;
        default: fputc(*s, f); break;
        }
    }
}

void vec_report_file_end(vec_report_t *r)
{
    if (r->junit == NULL)
        return;
    size_t failures = 0, skipped = 0;
    double seconds = 0.0;
    for (size_t i = 0; i < r->n_cases; i++) {
        const vec_case_t *c = &r->cases[i];
        skipped += c->skipped ? 1u : 0u;
        failures += (c->pass && !c->inconclusive) || c->skipped ? 0u : 1u;
        seconds += c->seconds;
    }
    fputs("  <testsuite name=\"", r->junit);
    xml_escaped(r->junit, vec_relative_path(r->path));
    fprintf(r->junit, "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"%zu\" time=\"%.6f\">\n",
            r->n_cases, failures, skipped, seconds);
    for (size_t i = 0; i < r->n_cases; i++) {
        const vec_case_t *c = &r->cases[i];
        fputs("    <testcase classname=\"", r->junit);
        xml_escaped(r->junit, strcmp(r->kind, "-") == 0 ? "vectors" : r->kind);
        fputs("\" name=\"", r->junit);
        xml_escaped(r->junit, c->name);
        fprintf(r->junit, "\" time=\"%.6f", c->seconds);
        if (c->pass && !c->inconclusive) {
            fputs("\"/>\n", r->junit);
            continue;
        }
        fputs(c->skipped        ? "\">\n      <skipped message=\""
              : c->inconclusive ? "\">\n      <failure type=\"inconclusive\" message=\""
                                : "\">\n      <failure message=\"",
              r->junit);
        xml_escaped(r->junit, c->detail);
        fputs("\"/>\n    </testcase>\n", r->junit);
    }
    fputs("  </testsuite>\n", r->junit);
}

bool vec_report_close(vec_report_t *r, const char *junit_path)
{
    bool ok = true;
    if (r->junit != NULL) {
        fputs("</testsuites>\n", r->junit);
        ok = ferror(r->junit) == 0;
        ok = fclose(r->junit) == 0 && ok;
        r->junit = NULL;
    }
    free(r->cases);
    r->cases = NULL;
    bool gates_met = vec_summary_print(r);
    r->exit_status = r->failed == 0 && r->inconclusive == 0 && gates_met ? 0 : 1;
    bool json_ok = vec_summary_write_json(r);
    if (junit_path != NULL) {
        if (ok)
            fprintf(stderr, "rl-testbed: JUnit XML written to %s\n", junit_path);
        else
            fprintf(stderr, "rl-testbed: writing JUnit XML to %s failed\n", junit_path);
    }
    return ok && json_ok;
}
