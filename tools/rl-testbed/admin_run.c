/* SPDX-License-Identifier: MIT */
/* admin_run.c - the `rl-testbed admin` engine: one r_admin operation
 * (r_admin.h layer 3) on a connected UDP socket, with poll() for datagrams
 * and the operation's deadlines (contract: admin.h). */
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "admin.h"

typedef struct {
    int fd;
    admin_result_t *out;
} host_t;

static uint64_t now_ms(void *ctx) {
    (void)ctx;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static int udp_send(void *ctx, const r_addr_t *to, const uint8_t *data, size_t len) {
    (void)to; /* the socket is connected to the one server */
    host_t *h = ctx;
    return send(h->fd, data, len, 0) == (ssize_t)len ? 0 : -1;
}

static void clear_records(admin_result_t *r) {
    for (size_t i = 0; i < r->n_records; i++) {
        free(r->records[i].label_bytes);
    }
    r->n_records = 0;
}

static admin_record_t *new_record(admin_result_t *r) {
    if (r->n_records == r->cap_records) {
        size_t cap = r->cap_records == 0 ? 16 : r->cap_records * 2;
        admin_record_t *fresh = realloc(r->records, cap * sizeof *fresh);
        if (fresh == NULL) {
            r->nomem = true;
            return NULL;
        }
        r->records = fresh;
        r->cap_records = cap;
    }
    admin_record_t *rec = &r->records[r->n_records++];
    memset(rec, 0, sizeof *rec);
    return rec;
}

static void keep_page(admin_result_t *r, const r_admin_metrics_response_t *page) {
    r->pages++;
    if (page->metric_family == R_METRICS_TENANT_SUMMARY) {
        if (page->page_kind == R_SUMMARY_PAGE) {
            r->summary = page->summary;
        }
        return;
    }
    for (size_t i = 0; i < page->record_count; i++) {
        admin_record_t *rec = new_record(r);
        if (rec == NULL) {
            return;
        }
        if (page->metric_family == R_METRICS_TENANT_LABEL_COUNTERS) {
            (void)r_admin_metrics_label_at(page, i, &rec->label);
            if (rec->label.label_len > 0) {
                rec->label_bytes = malloc(rec->label.label_len);
                if (rec->label_bytes == NULL) {
                    r->nomem = true;
                    r->n_records--;
                    return;
                }
                memcpy(rec->label_bytes, rec->label.label, rec->label.label_len);
            }
            rec->label.label = rec->label_bytes;
        } else {
            (void)r_admin_metrics_service_at(page, i, &rec->service);
        }
    }
}

static void on_event(r_admin_op_t *op, const r_admin_event_t *ev, void *user_data) {
    (void)op;
    host_t *h = user_data;
    admin_result_t *r = h->out;
    switch (ev->kind) {
    case R_ADMIN_EVENT_TENANT_ACK: r->ack = *ev->tenant_ack; break;
    case R_ADMIN_EVENT_STATUS: r->status_response = *ev->status_response; break;
    case R_ADMIN_EVENT_METRICS_PAGE: keep_page(r, ev->page); break;
    case R_ADMIN_EVENT_METRICS_RESTART: /* a new pass from the start: drop what the old one gave */
        clear_records(r);
        r->restarts++;
        break;
    case R_ADMIN_EVENT_DONE:
        r->status = ev->status;
        r->server_id = ev->server_id;
        r->final_page_kind = ev->final_page_kind;
        break;
    }
}

static int open_socket(const r_addr_t *a, char *err) {
    struct sockaddr_storage ss;
    socklen_t len;
    memset(&ss, 0, sizeof ss);
    if (a->family == R_ADDR_INET6) {
        struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
        s6->sin6_family = AF_INET6;
        s6->sin6_port = htons(a->port);
        memcpy(&s6->sin6_addr, a->addr, 16);
        len = sizeof *s6;
    } else {
        struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
        s4->sin_family = AF_INET;
        s4->sin_port = htons(a->port);
        memcpy(&s4->sin_addr, a->addr, 4);
        len = sizeof *s4;
    }
    int fd = socket(ss.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&ss, len) != 0) {
        snprintf(err, 256, "cannot open a UDP socket to the server: %s", strerror(errno));
        if (fd >= 0) {
            close(fd);
        }
        return -1;
    }
    return fd;
}

static int start(const admin_cfg_t *cfg, const r_admin_op_config_t *oc, r_admin_op_t **op, r_admin_diag_t *diag) {
    switch (cfg->command) {
    case ADMIN_TENANT_ADD: {
        r_admin_tenant_mutation_t tm = {R_TENANT_OP_ADD, cfg->dedup_ttl_ms, (const uint8_t *)cfg->name,
                                        strlen(cfg->name), cfg->credential, strlen(cfg->credential)};
        return r_admin_tenant_mutation_start(oc, cfg->tenant_id, &tm, op, diag);
    }
    case ADMIN_TENANT_REMOVE: {
        r_admin_tenant_mutation_t tm = {R_TENANT_OP_REMOVE, cfg->dedup_ttl_ms, NULL, 0, NULL, 0};
        return r_admin_tenant_mutation_start(oc, cfg->tenant_id, &tm, op, diag);
    }
    case ADMIN_STATUS: return r_admin_status_query_start(oc, op, diag);
    default: return r_admin_metrics_query_start(oc, cfg->tenant_id, cfg->family, 0, op, diag);
    }
}

int admin_run(const admin_cfg_t *cfg, admin_result_t *out, char *err) {
    memset(out, 0, sizeof *out);
    out->status = RCLIENT_ERR_TIMEOUT;
    r_admin_key_t *key = NULL;
    r_key_diag_t kd;
    memset(&kd, 0, sizeof kd);
    if (r_admin_key_create(cfg->secret, 0, &key, &kd) != RCLIENT_OK) {
        snprintf(err, 256, "the admin secret is not a valid rl-secret credential: %s", kd.message);
        return ADMIN_EXIT_FAILED;
    }
    host_t h = {open_socket(&cfg->server, err), out};
    if (h.fd < 0) {
        r_admin_key_destroy(key);
        return ADMIN_EXIT_FAILED;
    }
    r_io_ops_t io;
    memset(&io, 0, sizeof io);
    io.ctx = &h;
    io.udp_send = udp_send;
    io.now_ms = now_ms;
    r_admin_op_config_t oc;
    memset(&oc, 0, sizeof oc);
    oc.key = key;
    oc.io = &io;
    oc.server = cfg->server;
    oc.timeout_ms = cfg->timeout_ms;
    oc.resend_interval_ms = cfg->resend_ms;
    oc.cb = on_event;
    oc.user_data = &h;
    r_admin_op_t *op = NULL;
    r_admin_diag_t diag;
    memset(&diag, 0, sizeof diag);
    int rc = start(cfg, &oc, &op, &diag);
    if (rc != RCLIENT_OK) {
        snprintf(err, 256, "cannot send the request: %s (%s)", diag.message, r_client_strerror(rc));
        close(h.fd);
        r_admin_key_destroy(key);
        return ADMIN_EXIT_FAILED;
    }
    while (!r_admin_op_done(op)) {
        uint64_t now = now_ms(NULL), due = r_admin_op_deadline_ms(op);
        struct pollfd p = {h.fd, POLLIN, 0};
        int wait = due > now ? (int)(due - now < 60000u ? due - now : 60000u) : 0;
        int n = poll(&p, 1, wait);
        if (n > 0 && (p.revents & POLLIN)) {
            uint8_t buf[2048];
            ssize_t got = recv(h.fd, buf, sizeof buf, 0);
            if (got > 0) {
                (void)r_admin_op_on_datagram(op, buf, (size_t)got, NULL); /* a bad datagram is ignored */
            }
        }
        if (!r_admin_op_done(op) && now_ms(NULL) >= r_admin_op_deadline_ms(op)) {
            (void)r_admin_op_on_timeout(op, now_ms(NULL));
        }
    }
    out->sent = r_admin_op_sent_count(op);
    r_admin_op_destroy(op);
    close(h.fd);
    r_admin_key_destroy(key);
    return ADMIN_EXIT_OK;
}

void admin_result_free(admin_result_t *r) {
    clear_records(r);
    free(r->records);
    r->records = NULL;
    r->cap_records = 0;
}
