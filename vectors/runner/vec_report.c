/* vec_report.c - result table, JUnit XML and closing line (see vec_report.h). */
#include "vec_report.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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
    if (junit_path == NULL)
        return true;
    r->junit = fopen(junit_path, "w");
    if (r->junit == NULL) {
        fprintf(stderr, "rl-testbed: cannot create JUnit file %s: %s\n", junit_path, strerror(errno));
        return false;
    }
    fprintf(r->junit, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"rl-testbed %s\">\n", label);
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
    if (!r->quiet)
        print_header(r);
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

/* Count a case under one of the three verdicts. */
static void tally(vec_report_t *r, const vec_case_t *c)
{
    if (c->skipped)
        r->skipped++;
    else if (c->pass)
        r->passed++;
    else
        r->failed++;
}

static const char *status_word(const vec_case_t *c)
{
    return c->skipped ? "SKIP" : c->pass ? "PASS" : "FAIL";
}

void vec_report_count(vec_report_t *r, vec_case_t *c)
{
    vec_sanitize(c->detail);
    vec_sanitize(c->id);
    vec_sanitize(c->name);
    tally(r, c);
    keep_case(r, c);
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

void vec_report_skip_row(vec_report_t *r, const char *name, char *detail)
{
    print_row(r, name, "SKIP", false, detail);
}

void vec_report_case(vec_report_t *r, vec_case_t *c)
{
    vec_sanitize(c->detail);
    vec_sanitize(c->id);
    vec_sanitize(c->name);
    tally(r, c);
    if ((!c->pass || !r->quiet) && r->out != NULL) {
        print_header(r);
        const char *status = status_word(c);
        if (c->detail[0] == '\0')
            fprintf(r->out, "  %-8s %-8s %s\n", c->id, c->result, status);
        else
            fprintf(r->out, "  %-8s %-8s %-6s %s\n", c->id, c->result, status, c->detail);
    }
    keep_case(r, c);
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
    for (size_t i = 0; i < r->n_cases; i++) {
        skipped += r->cases[i].skipped ? 1u : 0u;
        failures += r->cases[i].pass || r->cases[i].skipped ? 0u : 1u;
    }
    fputs("  <testsuite name=\"", r->junit);
    xml_escaped(r->junit, r->path);
    fprintf(r->junit, "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"%zu\">\n", r->n_cases, failures,
            skipped);
    for (size_t i = 0; i < r->n_cases; i++) {
        const vec_case_t *c = &r->cases[i];
        fputs("    <testcase classname=\"", r->junit);
        xml_escaped(r->junit, strcmp(r->kind, "-") == 0 ? "vectors" : r->kind);
        fputs("\" name=\"", r->junit);
        xml_escaped(r->junit, c->name);
        if (c->pass) {
            fputs("\"/>\n", r->junit);
            continue;
        }
        fputs(c->skipped ? "\">\n      <skipped message=\"" : "\">\n      <failure message=\"", r->junit);
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
    if (r->out != NULL) {
        if (!r->quiet || r->failed > 0)
            fprintf(r->out, "\n");
        /* CI greps "N passed, N failed": the skipped count only follows when there is one. */
        if (r->skipped > 0)
            fprintf(r->out, "%s: %lu passed, %lu failed, %lu skipped\n", r->label, r->passed, r->failed,
                    r->skipped);
        else
            fprintf(r->out, "%s: %lu passed, %lu failed\n", r->label, r->passed, r->failed);
        fflush(r->out);
    }
    if (junit_path != NULL) {
        if (ok)
            fprintf(stderr, "rl-testbed: JUnit XML written to %s\n", junit_path);
        else
            fprintf(stderr, "rl-testbed: writing JUnit XML to %s failed\n", junit_path);
    }
    return ok;
}
