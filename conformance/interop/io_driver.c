/* SPDX-License-Identifier: MIT */
/* io_driver.c - the driver process of `rl-testbed interop` (docs/interop.md
 * "Driver protocol"): started with sh -c, one JSON object per line on its
 * stdin and stdout; its stderr is passed through. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "io_int.h"
#include "vec_json.h"

#define LINE_MAX_BYTES 65536u

struct io_driver {
    pid_t pid;
    int in, out;        /* its stdin (we write), its stdout (we read) */
    char buf[LINE_MAX_BYTES];
    size_t len;
    bool exited;        /* reaped: status holds its wait status */
    int status;
    char why[IO_DRIVER_WHY_MAX]; /* why the last wait got no answer; "" none */
};

/* Its exit, when it exits within a moment (a child that has just closed its
 * output is usually exiting). */
static void note_exit(io_driver_t *d)
{
    for (int i = 0; i < 50 && !d->exited; i++) {
        if (waitpid(d->pid, &d->status, WNOHANG) == d->pid)
            d->exited = true;
        else
            usleep(10000);
    }
    if (!d->exited)
        vec_format(d->why, sizeof d->why, "the driver closed its output");
    else if (WIFEXITED(d->status))
        vec_format(d->why, sizeof d->why, "the driver exited with status %d", WEXITSTATUS(d->status));
    else if (WIFSIGNALED(d->status))
        vec_format(d->why, sizeof d->why, "the driver was killed by signal %d", WTERMSIG(d->status));
}

const char *io_driver_why(const io_driver_t *d)
{
    return d->why[0] != '\0' ? d->why : "no answer";
}

io_driver_t *io_driver_start(const char *cmd, char *err, size_t cap)
{
    int to[2], from[2];
    io_driver_t *d = calloc(1, sizeof *d);
    if (d == NULL || pipe2(to, O_CLOEXEC) != 0) {
        free(d);
        vec_format(err, cap, "(driver): cannot create pipes");
        return NULL;
    }
    if (pipe2(from, O_CLOEXEC) != 0) {
        close(to[0]);
        close(to[1]);
        free(d);
        vec_format(err, cap, "(driver): cannot create pipes");
        return NULL;
    }
    fflush(NULL);
    d->pid = fork();
    if (d->pid == 0) {
        setpgid(0, 0); /* its own process group: stopping it stops whatever sh -c started */
        dup2(to[0], STDIN_FILENO);
        dup2(from[1], STDOUT_FILENO);
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    if (d->pid > 0)
        setpgid(d->pid, d->pid); /* as the child does: whichever runs first */
    close(to[0]);
    close(from[1]);
    d->in = to[1];
    d->out = from[0];
    if (d->pid < 0) {
        vec_format(err, cap, "(driver): fork failed");
        io_driver_stop(d);
        return NULL;
    }
    signal(SIGPIPE, SIG_IGN);
    return d;
}

/* A complete line already waiting before a message is sent answers nothing
 * that was asked: an extra line (docs/interop.md "Driver protocol": one
 * answer per message). */
static bool extra_line(io_driver_t *d)
{
    struct pollfd p = {.fd = d->out, .events = POLLIN};
    if (memchr(d->buf, '\n', d->len) == NULL && d->len < sizeof d->buf && poll(&p, 1, 0) == 1 &&
        (p.revents & POLLIN)) {
        ssize_t r = read(d->out, d->buf + d->len, sizeof d->buf - d->len);
        if (r > 0)
            d->len += (size_t)r;
    }
    char *nl = memchr(d->buf, '\n', d->len);
    if (nl == NULL)
        return false;
    int shown = (int)((size_t)(nl - d->buf) < 60 ? (size_t)(nl - d->buf) : 60);
    /* a line that is no JSON object is named so whenever it arrives (a banner
     * read before or after the message is sent: the same words either way) */
    json_error_t e;
    json_t *v = json_loadb(d->buf, (size_t)(nl - d->buf), 0, &e);
    bool object = json_is_object(v);
    json_decref(v);
    if (!object)
        vec_format(d->why, sizeof d->why, "the driver wrote a line that is not a JSON object: \"%.*s\"", shown, d->buf);
    else
        vec_format(d->why, sizeof d->why, "the driver wrote a line nobody asked for (one answer per message): \"%.*s\"",
                   shown, d->buf);
    return true;
}

bool io_driver_send(io_driver_t *d, json_t *msg)
{
    char *text = json_dumps(msg, JSON_COMPACT);
    json_decref(msg);
    d->why[0] = '\0';
    if (text == NULL || extra_line(d)) {
        free(text);
        return false;
    }
    size_t n = strlen(text);
    text[n] = '\n'; /* json_dumps's NUL becomes the line end */
    bool ok = true;
    for (size_t off = 0; off <= n && ok;) {
        ssize_t w = write(d->in, text + off, n + 1 - off);
        if (w < 0 && errno != EINTR)
            ok = false;
        else if (w > 0)
            off += (size_t)w;
    }
    free(text);
    if (!ok)
        note_exit(d);
    return ok;
}

int io_driver_fd(const io_driver_t *d)
{
    return d->out;
}

static json_t *take_line(io_driver_t *d, bool *bad)
{
    char *nl = memchr(d->buf, '\n', d->len);
    if (nl == NULL)
        return NULL;
    *nl = '\0';
    json_error_t e;
    json_t *v = json_loads(d->buf, 0, &e);
    size_t used = (size_t)(nl - d->buf) + 1;
    if (!json_is_object(v)) {
        json_decref(v);
        *bad = true;
        vec_format(d->why, sizeof d->why, "the driver wrote a line that is not a JSON object: \"%.60s\"", d->buf);
        memmove(d->buf, nl + 1, d->len - used);
        d->len -= used;
        return NULL;
    }
    memmove(d->buf, nl + 1, d->len - used);
    d->len -= used;
    return v;
}

bool io_driver_poll_line(io_driver_t *d, json_t **out)
{
    bool bad = false;
    *out = take_line(d, &bad);
    if (*out != NULL || bad)
        return !bad;
    if (d->len == sizeof d->buf) { /* a line longer than the protocol allows */
        vec_format(d->why, sizeof d->why, "the driver wrote a line longer than %u bytes", LINE_MAX_BYTES);
        return false;
    }
    ssize_t r = read(d->out, d->buf + d->len, sizeof d->buf - d->len);
    if (r == 0 || (r < 0 && errno != EINTR && errno != EAGAIN)) {
        note_exit(d);
        return false;
    }
    if (r > 0)
        d->len += (size_t)r;
    *out = take_line(d, &bad);
    return !bad;
}

json_t *io_driver_wait(io_driver_t *d, io_run_t *run, unsigned timeout_ms)
{
    uint64_t end = io_now_us() + (uint64_t)timeout_ms * 1000u;
    d->why[0] = '\0';
    for (;;) {
        bool bad = false;
        json_t *v = take_line(d, &bad);
        if (v != NULL || bad)
            return v;
        struct pollfd p[CONF_MAX_SERVERS + 1];
        size_t n = run->c.n_servers;
        for (size_t i = 0; i < n; i++)
            p[i] = (struct pollfd){.fd = run->servers[i].fd, .events = POLLIN};
        p[n] = (struct pollfd){.fd = d->out, .events = POLLIN};
        uint64_t now = io_now_us();
        if (now >= end) {
            vec_format(d->why, sizeof d->why, "no answer within %u ms", timeout_ms);
            return NULL;
        }
        if (poll(p, (nfds_t)n + 1, (int)((end - now) / 1000u) + 1) < 0 && errno != EINTR)
            return NULL;
        for (size_t i = 0; i < n; i++)
            if (p[i].revents & POLLIN)
                io_servers_receive(run, (int)i);
        if ((p[n].revents & (POLLIN | POLLHUP)) && (!io_driver_poll_line(d, &v) || v != NULL))
            return v;
    }
}

void io_driver_stop(io_driver_t *d)
{
    if (d == NULL)
        return;
    if (d->in >= 0)
        close(d->in);
    d->in = -1;
    int status = 0;
    /* It has its stdin closed after "close": give it 2 s to exit, then end it
     * and whatever it started (its process group: sh -c may fork the command). */
    for (int i = 0; d->pid > 0 && !d->exited && i < 200; i++) {
        if (waitpid(d->pid, &status, WNOHANG) == d->pid)
            d->exited = true;
        else
            usleep(10000);
    }
    if (d->pid > 0) {
        kill(-d->pid, SIGKILL);
        if (!d->exited) {
            kill(d->pid, SIGKILL);
            waitpid(d->pid, &status, 0);
        }
    }
    if (d->out >= 0)
        close(d->out);
    free(d);
}
