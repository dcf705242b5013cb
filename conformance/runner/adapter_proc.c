/* SPDX-License-Identifier: MIT */
/* adapter_proc.c - process, pipes, timeouts and the hello exchange of the
 * adapter protocol (see adapter_proc.h, conformance/ADAPTER.md). */
#define _POSIX_C_SOURCE 200809L

#include "adapter_proc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "vec_kinds.h"

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

/* Reap the child if it has exited; describe how into why. */
static bool reaped(rl_adapter_t *a, int flags, char *why, size_t cap)
{
    int status = 0;
    if (a->pid <= 0)
        return true;
    pid_t r = waitpid(a->pid, &status, flags);
    if (r != a->pid)
        return false;
    a->pid = -1;
    if (WIFEXITED(status))
        vec_format(why, cap, "the adapter exited with status %d", WEXITSTATUS(status));
    else if (WIFSIGNALED(status))
        vec_format(why, cap, "the adapter was killed by signal %d", WTERMSIG(status));
    else
        vec_format(why, cap, "the adapter stopped");
    return true;
}

static void kill_child(rl_adapter_t *a)
{
    char why[64];
    if (a->pid > 0) {
        kill(-a->pid, SIGKILL); /* the adapter's process group (spawn) */
        kill(a->pid, SIGKILL);
        (void)reaped(a, 0, why, sizeof why);
    }
}

/* Mark the adapter unusable: the reason is repeated for every later call. */
static bool die(rl_adapter_t *a, char *err, size_t cap, const char *msg)
{
    char tail[1024];
    if (!a->dead) {
        a->dead = true;
        kill_child(a);
        rl_adapter_stderr_tail(a, tail, sizeof tail);
        vec_format(a->dead_reason, sizeof a->dead_reason, "%s%s%s", msg, tail[0] ? "; its stderr: " : "", tail);
    }
    vec_format(err, cap, "%s", a->dead_reason);
    return false;
}

void rl_adapter_stderr_tail(rl_adapter_t *a, char *buf, size_t cap)
{
    struct stat st;
    buf[0] = '\0';
    if (a->err_fd < 0 || cap < 2 || fstat(a->err_fd, &st) != 0 || st.st_size == 0)
        return;
    off_t from = st.st_size > (off_t)(cap - 1) ? st.st_size - (off_t)(cap - 1) : 0;
    ssize_t n = pread(a->err_fd, buf, cap - 1, from);
    if (n < 0)
        n = 0;
    while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
        n--;
    buf[n] = '\0';
    for (ssize_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)buf[i];
        if (c == '\n')
            buf[i] = '|';
        else if (c < 0x20 || c == 0x7F)
            buf[i] = '?';
    }
}

static bool spawn(rl_adapter_t *a, const char *cmd, char *err, size_t cap)
{
    int in[2], out[2];
    FILE *tmp = tmpfile();
    if (tmp == NULL) {
        vec_format(err, cap, "cannot create a file for the adapter's stderr: %s", strerror(errno));
        return false;
    }
    a->err_fd = dup(fileno(tmp));
    fclose(tmp);
    if (a->err_fd < 0 || pipe(in) != 0) {
        vec_format(err, cap, "cannot create pipes: %s", strerror(errno));
        return false;
    }
    if (pipe(out) != 0) {
        close(in[0]);
        close(in[1]);
        vec_format(err, cap, "cannot create pipes: %s", strerror(errno));
        return false;
    }
    fflush(NULL);
    a->pid = fork();
    if (a->pid == 0) {
        setpgid(0, 0); /* its own process group: stopping it stops whatever it started */
        dup2(in[0], STDIN_FILENO);
        dup2(out[1], STDOUT_FILENO);
        dup2(a->err_fd, STDERR_FILENO);
        close(in[0]);
        close(in[1]);
        close(out[0]);
        close(out[1]);
        close(a->err_fd);
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    if (a->pid > 0)
        setpgid(a->pid, a->pid); /* as the child does: whichever runs first */
    close(in[0]);
    close(out[1]);
    if (a->pid < 0) {
        close(in[1]);
        close(out[0]);
        vec_format(err, cap, "cannot start the adapter: %s", strerror(errno));
        return false;
    }
    a->to_fd = in[1];
    a->from_fd = out[0];
    fcntl(a->from_fd, F_SETFL, fcntl(a->from_fd, F_GETFL) | O_NONBLOCK);
    return true;
}

/* Why the adapter stopped talking: its exit, when it exits within a moment
 * (a child that has just closed its pipes is usually exiting), else dflt. */
static void exit_reason(rl_adapter_t *a, const char *dflt, char *why, size_t cap)
{
    long long wait_until = now_ms() + 500;
    vec_format(why, cap, "%s", dflt);
    while (!reaped(a, WNOHANG, why, cap) && now_ms() < wait_until) {
        struct timespec ts = {0, 5000000};
        nanosleep(&ts, NULL);
    }
}

static bool write_all(int fd, const char *s, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, s, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        s += n;
        len -= (size_t)n;
    }
    return true;
}

/* Read one line (without its newline) into a->buf[0..*len). */
static bool read_line(rl_adapter_t *a, unsigned long id, const char *op, size_t *len, char *err, size_t cap)
{
    char msg[VEC_MSG_MAX];
    long long deadline = now_ms() + a->timeout_ms;
    for (;;) {
        char *nl = a->buf_len > 0 ? memchr(a->buf, '\n', a->buf_len) : NULL;
        if (nl != NULL) {
            *len = (size_t)(nl - a->buf);
            return true;
        }
        if (a->buf_len >= RL_ADAPTER_LINE_MAX) {
            vec_format(msg, sizeof msg, "adapter message %lu (%s): answer line longer than %u bytes", id, op,
                       RL_ADAPTER_LINE_MAX);
            return die(a, err, cap, msg);
        }
        long long left = deadline - now_ms();
        if (left <= 0) {
            if (id == 1)
                vec_format(msg, sizeof msg, "adapter message 1 (%s): no answer within %d ms (start-up: the larger of "
                           "--timeout and %d ms)", op, a->timeout_ms, RL_ADAPTER_HELLO_TIMEOUT_MS);
            else
                vec_format(msg, sizeof msg, "adapter message %lu (%s): no answer within %d ms (--timeout)", id, op,
                           a->timeout_ms);
            return die(a, err, cap, msg);
        }
        struct pollfd p = {a->from_fd, POLLIN, 0};
        int pr = poll(&p, 1, (int)left);
        if (pr < 0 && errno == EINTR)
            continue;
        if (pr <= 0)
            continue;
        ssize_t n = read(a->from_fd, a->buf + a->buf_len, RL_ADAPTER_LINE_MAX - a->buf_len);
        if (n < 0 && (errno == EAGAIN || errno == EINTR))
            continue;
        if (n <= 0) {
            char why[96];
            exit_reason(a, "the adapter closed its stdout", why, sizeof why);
            vec_format(msg, sizeof msg, "adapter message %lu (%s): %s before answering", id, op, why);
            return die(a, err, cap, msg);
        }
        a->buf_len += (size_t)n;
    }
}

bool rl_adapter_call(rl_adapter_t *a, json_t *req, json_t **out, char *err, size_t cap)
{
    char msg[VEC_MSG_MAX];
    *out = NULL;
    if (a->dead)
        return die(a, err, cap, a->dead_reason);
    unsigned long id = a->next_id++;
    const char *op = json_string_value(json_object_get(req, "op"));
    op = op != NULL ? op : "?";
    json_object_set_new(req, "id", json_integer((json_int_t)id));
    char *text = json_dumps(req, JSON_COMPACT | JSON_ENSURE_ASCII);
    bool sent = text != NULL && write_all(a->to_fd, text, strlen(text)) && write_all(a->to_fd, "\n", 1);
    free(text);
    if (!sent) {
        char why[96], dflt[96];
        vec_format(dflt, sizeof dflt, "cannot write to the adapter (%s)",
                   errno == EPIPE ? "it closed its stdin" : strerror(errno));
        exit_reason(a, dflt, why, sizeof why);
        vec_format(msg, sizeof msg, "adapter message %lu (%s): %s before reading it", id, op, why);
        return die(a, err, cap, msg);
    }
    size_t len = 0;
    if (!read_line(a, id, op, &len, err, cap))
        return false;
    json_t *ans = NULL;
    rl_answer_t got = rl_adapter_parse_answer(a->buf, len, id, op, &ans, msg, sizeof msg);
    memmove(a->buf, a->buf + len + 1, a->buf_len - len - 1);
    a->buf_len -= len + 1;
    if (got == RL_ANSWER_BROKEN)
        return die(a, err, cap, msg);
    if (got == RL_ANSWER_ERROR) {
        vec_format(err, cap, "%s", msg);
        return false;
    }
    *out = ans;
    return true;
}

rl_answer_t rl_adapter_parse_answer(const char *line, size_t len, unsigned long id, const char *op, json_t **out,
                                    char *msg, size_t cap)
{
    *out = NULL;
    json_error_t jerr;
    json_t *ans = json_loadb(line, len, JSON_REJECT_DUPLICATES, &jerr);
    if (ans == NULL || !json_is_object(ans)) {
        vec_format(msg, cap, "adapter message %lu (%s): answer is not a JSON object%s%s", id, op,
                   ans == NULL ? ": " : "", ans == NULL ? jerr.text : "");
        json_decref(ans);
        return RL_ANSWER_BROKEN;
    }
    json_t *got = json_object_get(ans, "id");
    if (!json_is_integer(got) || json_integer_value(got) != (json_int_t)id) {
        char d[96];
        vec_format(msg, cap, "adapter message %lu (%s): id: expected %lu, got %s", id, op, id,
                   vj_describe(got, d, sizeof d));
        json_decref(ans);
        return RL_ANSWER_BROKEN;
    }
    const json_t *e = json_object_get(ans, "protocol_error");
    if (json_is_string(e)) {
        vec_format(msg, cap, "adapter message %lu (%s): the adapter reports an error: %s", id, op,
                   json_string_value(e));
        json_decref(ans);
        return RL_ANSWER_ERROR;
    }
    *out = ans;
    return RL_ANSWER_OK;
}

/* ---- hello ------------------------------------------------------------------ */

bool rl_adapter_check_hello(rl_adapter_t *a, const json_t *h, char *err, size_t cap)
{
    vj_err_t e;
    vj_path_t none = {""};
    const char *s = NULL;
    size_t len = 0, n = 0;
    const json_t *client = NULL, *caps = NULL, *kinds = NULL;
    if (!vj_string(h, &none, "protocol", &s, &len, &e))
        goto bad;
    if (strcmp(s, RL_ADAPTER_PROTOCOL) != 0) {
        vec_format(err, cap, "adapter message 1 (hello): protocol: expected \"%s\", got \"%s\"",
                   RL_ADAPTER_PROTOCOL, s);
        return false;
    }
    if (!vj_object(h, &none, "client", &client, &e))
        goto bad;
    vj_path_t cp = vj_path("client");
    if (!vj_string(client, &cp, "name", &s, &len, &e))
        goto bad;
    vec_format(a->name, sizeof a->name, "%s", s);
    if (!vj_string(client, &cp, "version", &s, &len, &e))
        goto bad;
    vec_format(a->version, sizeof a->version, "%s", s);
    if (!vj_object(h, &none, "capabilities", &caps, &e))
        goto bad;
    vj_path_t kp = vj_path("capabilities");
    if (!vj_array(caps, &kp, "vector_kinds", &kinds, &n, &e))
        goto bad;
    kp = vj_path("capabilities.vector_kinds");
    for (size_t i = 0; i < n; i++) {
        vj_path_t q = vj_path_index(&kp, i);
        if (!vj_v_string(json_array_get(kinds, i), &q, &s, &len, &e))
            goto bad;
    }
    kp = vj_path("capabilities");
    const json_t *v = json_object_get(caps, "error_classes");
    if (v != NULL && !json_is_boolean(v)) {
        vj_fail(&e, &(vj_path_t){"capabilities.error_classes"}, "expected true or false");
        goto bad;
    }
    v = json_object_get(caps, "ha");
    if (v != NULL && !json_is_object(v)) {
        vj_fail(&e, &(vj_path_t){"capabilities.ha"}, "expected object");
        goto bad;
    }
    return true;
bad:
    vec_format(err, cap, "adapter message 1 (hello): %s", e.msg);
    return false;
}

bool rl_adapter_start(rl_adapter_t *a, const char *cmd, int timeout_ms, char *err, size_t cap)
{
    memset(a, 0, sizeof *a);
    a->pid = -1;
    a->to_fd = a->from_fd = a->err_fd = -1;
    a->timeout_ms = timeout_ms > 0 ? timeout_ms : RL_ADAPTER_DEFAULT_TIMEOUT_MS;
    a->next_id = 1;
    signal(SIGPIPE, SIG_IGN); /* a dead adapter shows as EPIPE, not as the testbed's death */
    a->buf = malloc(RL_ADAPTER_LINE_MAX);
    if (a->buf == NULL) {
        vec_format(err, cap, "out of memory");
        return false;
    }
    if (!spawn(a, cmd, err, cap)) {
        rl_adapter_stop(a);
        return false;
    }
    json_t *req = json_pack("{s:s, s:s, s:i, s:s}", "op", "hello", "protocol", RL_ADAPTER_PROTOCOL, "revision",
                            RL_ADAPTER_REVISION, "testbed", "rl-testbed");
    json_t *ans = NULL;
    int answer_ms = a->timeout_ms; /* hello includes the start-up: RL_ADAPTER_HELLO_TIMEOUT_MS at least */
    a->timeout_ms = answer_ms > RL_ADAPTER_HELLO_TIMEOUT_MS ? answer_ms : RL_ADAPTER_HELLO_TIMEOUT_MS;
    bool ok = req != NULL && rl_adapter_call(a, req, &ans, err, cap) && rl_adapter_check_hello(a, ans, err, cap);
    a->timeout_ms = answer_ms;
    json_decref(req);
    if (!ok) {
        char tail[1024];
        size_t used = strlen(err);
        rl_adapter_stderr_tail(a, tail, sizeof tail);
        if (tail[0] != '\0' && !a->dead) /* a dead adapter's reason already holds it */
            vec_format(err + used, cap - used, "; its stderr: %s", tail);
        json_decref(ans);
        rl_adapter_stop(a);
        return false;
    }
    a->hello = ans;
    return true;
}

void rl_adapter_stop(rl_adapter_t *a)
{
    char why[96];
    close_fd(&a->to_fd); /* end of input: a well-behaved adapter exits */
    long long deadline = now_ms() + a->timeout_ms;
    while (a->pid > 0 && !reaped(a, WNOHANG, why, sizeof why) && now_ms() < deadline) {
        struct timespec ts = {0, 2000000};
        nanosleep(&ts, NULL);
    }
    kill_child(a);
    close_fd(&a->from_fd);
    close_fd(&a->err_fd);
    free(a->buf);
    a->buf = NULL;
    json_decref(a->hello);
    a->hello = NULL;
}

static const json_t *caps(const rl_adapter_t *a)
{
    return json_object_get(a->hello, "capabilities");
}

/* An optional array of names at path p, each one of `known` (NULL-terminated;
 * NULL: any string); `what` and `list` name them in the message. */
static bool check_names(const json_t *arr, const vj_path_t *p, const char *const *known, const char *what,
                        const char *list, vj_err_t *e)
{
    char got[96];
    if (arr == NULL)
        return true;
    if (!json_is_array(arr))
        return vj_fail(e, p, "expected array of strings, got %s", vj_describe(arr, got, sizeof got));
    for (size_t i = 0; i < json_array_size(arr); i++) {
        const json_t *v = json_array_get(arr, i);
        size_t k = 0;
        while (known != NULL && known[k] != NULL && !vj_string_is(v, known[k]))
            k++;
        vj_path_t q = vj_path_index(p, i);
        if (!json_is_string(v))
            return vj_fail(e, &q, "expected string, got %s", vj_describe(v, got, sizeof got));
        if (known != NULL && known[k] == NULL)
            return vj_fail(e, &q, "unknown %s %s (%s)", what, vj_describe(v, got, sizeof got), list);
    }
    return true;
}

/* unsupported_fields / unproduced_fields: an object keyed by kind, each an
 * array of field names; an unproduced field must be one of the kind's valid
 * `expected` fields (input fields are not listed per kind). */
static bool check_field_map(const json_t *c, const char *name, bool output, vj_err_t *e)
{
    const json_t *map = json_object_get(c, name);
    const char *kind = NULL;
    const json_t *fields = NULL;
    char got[96], list[256];
    vj_path_t p = vj_path_key(&(vj_path_t){"capabilities"}, name);
    if (map == NULL)
        return true;
    if (!json_is_object(map))
        return vj_fail(e, &p, "expected object, got %s", vj_describe(map, got, sizeof got));
    json_object_foreach ((json_t *)map, kind, fields) {
        json_t *kn = json_string(kind);
        const vec_kind_t *k = vec_kind_find(kn);
        json_decref(kn);
        vj_path_t q = vj_path_key(&p, kind);
        if (k == NULL)
            return vj_fail(e, &q, "unknown kind");
        if (fields == NULL || !json_is_array(fields))
            return vj_fail(e, &q, "expected array of strings, got %s", vj_describe(fields, got, sizeof got));
        size_t n = (size_t)snprintf(list, sizeof list, "%s outputs", k->name);
        for (size_t j = 0; k->expected_fields[j] != NULL && n < sizeof list; j++)
            n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", j == 0 ? " " : ", ", k->expected_fields[j]);
        if (!check_names(fields, &q, output ? k->expected_fields : NULL, "output field", list, e))
            return false;
    }
    return true;
}

/* Every declaration of "What a client declares" is one the testbed can use:
 * a misspelt mode, format, kind, field or feature would silently skip what
 * the client runs, or run what it cannot. */
static bool check_declarations(const json_t *c, vj_err_t *e)
{
    static const char *const modes[] = {"none", "cookie", "aes", NULL};
    static const char *const formats[] = {"rl-none", "rl-cookie", "rl-aes", "rl-secret", NULL};
    char got[96];
    if (!check_names(json_object_get(c, "auth_modes"), &(vj_path_t){"capabilities.auth_modes"}, modes, "auth mode",
                     "none, cookie or aes", e) ||
        !check_names(json_object_get(c, "key_formats"), &(vj_path_t){"capabilities.key_formats"}, formats,
                     "key format", "rl-none, rl-cookie, rl-aes or rl-secret", e) ||
        !check_field_map(c, "unsupported_fields", false, e) || !check_field_map(c, "unproduced_fields", true, e))
        return false;
    const char *f = NULL;
    const json_t *v = NULL;
    json_object_foreach (json_object_get(c, "ha"), f, v) {
        bool shape = strcmp(f, "policy_shape") == 0;
        vj_path_t q = vj_path_key(&(vj_path_t){"capabilities.ha"}, f);
        if (shape ? !vj_string_is(v, "api_md") : !json_is_boolean(v))
            return vj_fail(e, &q, "expected %s, got %s",
                           shape ? "\"api_md\" (absent: the r-client.md 9.3 shape)" : "true or false",
                           vj_describe(v, got, sizeof got));
    }
    return true;
}

bool rl_adapter_check_capabilities(const rl_adapter_t *a, char *err, size_t cap)
{
    vj_err_t e;
    if (!check_declarations(caps(a), &e)) {
        vec_format(err, cap, "adapter message 1 (hello): %s", e.msg);
        return false;
    }
    const json_t *kinds = json_object_get(caps(a), "vector_kinds");
    for (size_t i = 0; i < json_array_size(kinds); i++) {
        const json_t *k = json_array_get(kinds, i);
        if (vec_kind_find(k) == NULL) {
            char got[96];
            vec_format(err, cap,
                       "adapter message 1 (hello): capabilities.vector_kinds[%zu]: unknown kind %s (the kinds are "
                       "those of ../shared/vectors-schema.md \"Kinds\" and the administrative ones)",
                       i, vj_describe(k, got, sizeof got));
            return false;
        }
    }
    if (json_array_size(kinds) == 0 && !rl_adapter_has_ha(a, "cases")) {
        vec_format(err, cap, "adapter message 1 (hello): capabilities: no vector kind and no HA cases: nothing to test");
        return false;
    }
    return true;
}

bool rl_adapter_has_kind(const rl_adapter_t *a, const char *kind)
{
    const json_t *kinds = json_object_get(caps(a), "vector_kinds");
    for (size_t i = 0; i < json_array_size(kinds); i++) {
        if (vj_string_is(json_array_get(kinds, i), kind))
            return true;
    }
    return false;
}

bool rl_adapter_has_ha(const rl_adapter_t *a, const char *feature)
{
    return json_is_true(json_object_get(json_object_get(caps(a), "ha"), feature));
}

bool rl_adapter_ha_or(const rl_adapter_t *a, const char *feature, bool dflt)
{
    const json_t *v = json_object_get(json_object_get(caps(a), "ha"), feature);
    return json_is_boolean(v) ? json_is_true(v) : dflt;
}

bool rl_adapter_lists(const rl_adapter_t *a, const char *field, const char *value)
{
    const json_t *arr = json_object_get(caps(a), field);
    if (!json_is_array(arr))
        return true;
    for (size_t i = 0; i < json_array_size(arr); i++) {
        if (vj_string_is(json_array_get(arr, i), value))
            return true;
    }
    return false;
}

bool rl_adapter_reports_classes(const rl_adapter_t *a)
{
    return !json_is_false(json_object_get(caps(a), "error_classes"));
}
