/* SPDX-License-Identifier: MIT */
/* io_servers.c - the loopback servers of one interop run (docs/interop.md
 * "Servers"): per case server a UDP socket on 127.0.0.1 or ::1 (serve_net.c),
 * the reference server model (sim_server.h, as `rl-testbed serve` runs it)
 * deciding every datagram, the kernel's receive timestamp of each, and the
 * scripted datagrams the case sends back. */
#define _GNU_SOURCE
#include <poll.h>
#include <string.h>
#include <time.h>

#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include <openssl/crypto.h>
#include <openssl/rand.h>

#include "io_int.h"
#include "rl_auth.h"
#include "rl_le.h"
#include "rl_wire.h"
#include "serve_net.h"
#include "vec_json.h"

#define START_2025_S 1735689600ull
#define KEY_RUN 8u /* bytes of the secret in a row that count as key material */

uint64_t io_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

/* Server i's model under id: the reference server model as serve runs it. */
static bool new_model(io_run_t *run, size_t i, uint64_t id)
{
    io_server_t *s = &run->servers[i];
    sim_server_params_t p = {0};
    p.server_start_s = START_2025_S + (id >> 23);
    p.listener_id = (uint8_t)(id >> 15);
    p.node_id = (uint16_t)(id & 0x7FFFu);
    p.backend = 2;
    uint64_t seed = 0;
    sim_rng_t rng;
    if (RAND_bytes((unsigned char *)&seed, sizeof seed) != 1)
        return false;
    sim_rng_seed(&rng, seed, SIM_STREAM_SERVER, i);
    sim_server_free(s->model);
    s->model = sim_server_new(&p, &rng);
    s->last_len = 0;
    if (s->model == NULL || sim_server_id(s->model) != id || sim_server_add_tenant(s->model, run->c.key) != 0)
        return false;
    sim_server_set_udp_port(s->model, s->port);
    return true;
}

bool io_servers_start(io_run_t *run, char *err, size_t cap)
{
    for (size_t i = 0; i < run->c.n_servers; i++) {
        io_server_t *s = &run->servers[i];
        uint64_t id = (int)i == run->ic->restart ? run->ic->restart_before_id : run->c.server_ids[i];
        s->fd = serve_net_open(run->v6 ? "::1" : "127.0.0.1", &s->port);
        int on = 1;
        if (s->fd < 0 || setsockopt(s->fd, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof on) != 0 ||
            !new_model(run, i, id)) {
            vec_format(err, cap, "(servers): server %s could not start on %s", run->c.server_names[i],
                       run->v6 ? "::1" : "127.0.0.1");
            return false;
        }
    }
    return true;
}

bool io_servers_restart(io_run_t *run, int i, char *err, size_t cap)
{
    if (!new_model(run, (size_t)i, run->c.server_ids[i])) {
        vec_format(err, cap, "(servers): server %s could not restart", run->c.server_names[i]);
        return false;
    }
    return true;
}

void io_servers_stop(io_run_t *run)
{
    io_dns_stop(run);
    if (run->dns_conf[0] != '\0')
        unlink(run->dns_conf);
    run->dns_conf[0] = '\0';
    for (size_t i = 0; i < run->c.n_servers; i++) {
        if (run->servers[i].fd >= 0)
            close(run->servers[i].fd);
        run->servers[i].fd = -1;
        sim_server_free(run->servers[i].model);
        run->servers[i].model = NULL;
    }
}

/* A run of KEY_RUN secret bytes anywhere but the cookie TLV body, where a
 * cookie key carries its cookie by design (wire_protocol.md "Cookie
 * Authentication"). */
static bool has_key_bytes(const io_run_t *run, const uint8_t *d, size_t len)
{
    const r_auth_key_info_t *k = &run->host->key;
    size_t skip_from = RL_TENANT_TLV_SIZE + RL_TLV_HDR_SIZE, skip_to = skip_from + R_CLIENT_SECRET_LEN;
    if (!k->has_secret)
        return false;
    for (size_t at = 0; at + KEY_RUN <= len; at++) {
        if (k->type == R_AUTH_COOKIE && at + KEY_RUN > skip_from && at < skip_to)
            continue;
        for (size_t s = 0; s + KEY_RUN <= R_CLIENT_SECRET_LEN; s++)
            if (memcmp(d + at, k->secret + s, KEY_RUN) == 0)
                return true;
    }
    return false;
}

/* Header fields, and the PDU after opening with the servers' copy of the key. */
static void decode(io_run_t *run, io_rx_t *r, const uint8_t *d, size_t len)
{
    uint8_t buf[R_CLIENT_MAX_DATAGRAM];
    const char *why = "ok";
    size_t pdu = RL_TENANT_TLV_SIZE + rl_auth_tlv_size(run->host->key.type);
    if (len < RL_TENANT_TLV_SIZE || len > sizeof buf)
        return;
    memcpy(r->uid, d + RL_TENANT_OFF_UNIQUE_ID, sizeof r->uid);
    r->time_stamp = rl_load_u64(d + RL_TENANT_OFF_TIME_STAMP);
    memcpy(buf, d, len);
    r->opened = len >= pdu + RL_PDU_HDR_SIZE && rl_auth_open(&run->host->server_auth, buf, len, &why) == RCLIENT_OK;
    if (!r->opened)
        return;
    uint16_t type = rl_load_u16(buf + pdu);
    if (type == RL_PDU_RATE_REQUEST && len >= pdu + RL_RATE_PDU_FIXED) {
        r->pdu = IO_PDU_REQUEST;
        r->ttl_ms = rl_load_u32(buf + pdu + 4);
    } else if (type == RL_PDU_LATENCY_REPORT) {
        r->pdu = IO_PDU_REPORT;
    }
}

/* Keep a received Rate Request where the conformance response builder finds
 * it (conf_host_build answers the server's latest copy). */
static void capture(io_run_t *run, int server, const uint8_t *d, size_t len, uint64_t at_us)
{
    conf_host_t *h = run->host;
    if (h->n_cap == CONF_MAX_SENDS) {
        h->cap_overflow = true;
        return;
    }
    conf_capture_t *c = &h->cap[h->n_cap++];
    c->s = (conf_send_t){.at = (at_us - run->t0_us) / 1000u, .server = server, .kind = CONF_SEND_INITIAL, .ok = true};
    memcpy(c->data, d, len);
    c->len = len;
}

static void record(io_run_t *run, int i, const uint8_t *d, size_t len, uint64_t at_us, uint16_t src_port)
{
    io_server_t *s = &run->servers[i];
    uint8_t out[R_CLIENT_MAX_DATAGRAM];
    size_t out_len = 0;
    sim_server_result_t res;
    sim_server_batch_begin(s->model);
    sim_server_verdict_t v = sim_server_handle(s->model, at_us / 1000u, d, len, out, sizeof out, &out_len, &res);
    if (run->n_rx == IO_MAX_RX)
        return;
    io_rx_t *r = &run->rx[run->n_rx++];
    memset(r, 0, sizeof *r);
    r->at_us = at_us;
    r->server = i;
    r->len = len;
    r->src_port = src_port;
    r->verdict = v;
    sim_server_reason_text(&res.why, r->why, sizeof r->why);
    r->key_bytes = has_key_bytes(run, d, len);
    decode(run, r, d, len);
    /* t0: the submission, as the first Rate Request's time_stamp says when it
     * lies between the check and its arrival (the client's deadlines count
     * from it), else that arrival; a client whose datagrams are not Rate
     * Requests at all gets t0 from its first datagram after the check */
    if (run->t0_us == 0 && (r->pdu == IO_PDU_REQUEST || (run->check_us != 0 && at_us >= run->check_us))) {
        uint64_t ts_us = r->time_stamp * 1000u;
        bool plausible = r->pdu == IO_PDU_REQUEST && ts_us + 1000u >= run->check_us && ts_us <= at_us;
        run->t0_us = plausible ? ts_us : at_us;
    }
    if (r->pdu == IO_PDU_REQUEST)
        capture(run, i, d, len, at_us);
    if (out_len > 0 && out_len <= sizeof s->last) {
        memcpy(s->last, out, out_len);
        s->last_len = out_len;
    }
    if (run->echo && out_len > 0) /* the warm-up check: serve as `rl-testbed serve` does */
        (void)sendto(s->fd, out, out_len, 0, (const struct sockaddr *)&s->peer, s->peer_len);
}

void io_servers_receive(io_run_t *run, int i)
{
    io_server_t *s = &run->servers[i];
    for (int n = 0; n < 64; n++) {
        uint8_t d[R_CLIENT_MAX_DATAGRAM + 1];
        char ctl[CMSG_SPACE(sizeof(struct timespec))];
        struct sockaddr_storage peer;
        struct iovec iov = {.iov_base = d, .iov_len = sizeof d};
        struct msghdr m = {.msg_name = &peer, .msg_namelen = sizeof peer, .msg_iov = &iov, .msg_iovlen = 1,
                           .msg_control = ctl, .msg_controllen = sizeof ctl};
        ssize_t len = recvmsg(s->fd, &m, MSG_DONTWAIT);
        if (len < 0)
            return;
        uint64_t at_us = io_now_us();
        for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c != NULL; c = CMSG_NXTHDR(&m, c))
            if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
                struct timespec ts;
                memcpy(&ts, CMSG_DATA(c), sizeof ts);
                at_us = (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
            }
        memcpy(&s->peer, &peer, sizeof peer);
        s->peer_len = m.msg_namelen;
        s->has_peer = true;
        uint16_t port = peer.ss_family == AF_INET6 ? ntohs(((struct sockaddr_in6 *)&peer)->sin6_port)
                                                   : ntohs(((struct sockaddr_in *)&peer)->sin_port);
        record(run, i, d, (size_t)len, at_us, port);
        OPENSSL_cleanse(d, (size_t)len);
    }
}

void io_servers_receive_all(io_run_t *run, unsigned ms)
{
    uint64_t end = io_now_us() + (uint64_t)ms * 1000u;
    for (uint64_t now = io_now_us(); now < end; now = io_now_us()) {
        struct pollfd p[CONF_MAX_SERVERS];
        for (size_t i = 0; i < run->c.n_servers; i++)
            p[i] = (struct pollfd){.fd = run->servers[i].fd, .events = POLLIN};
        if (poll(p, (nfds_t)run->c.n_servers, (int)((end - now) / 1000u) + 1) <= 0)
            continue;
        for (size_t i = 0; i < run->c.n_servers; i++)
            if (p[i].revents & POLLIN)
                io_servers_receive(run, (int)i);
    }
}

/* A valid response re-framed as auth none (wire_protocol.md "No
 * Authentication"): tenant TLV, a 4-byte none TLV, the plaintext PDU. */
static bool downgrade(io_run_t *run, uint8_t *d, size_t *len)
{
    const char *why = "ok";
    size_t auth = rl_auth_tlv_size(run->host->key.type);
    if (run->host->key.type == R_AUTH_NONE || rl_auth_open(&run->host->server_auth, d, *len, &why) != RCLIENT_OK)
        return false;
    memmove(d + RL_TENANT_TLV_SIZE + RL_AUTH_NONE_TLV_SIZE, d + RL_TENANT_TLV_SIZE + auth,
            *len - RL_TENANT_TLV_SIZE - auth);
    *len = *len - auth + RL_AUTH_NONE_TLV_SIZE;
    rl_store_u16(d + RL_TENANT_TLV_SIZE, RL_TLV_AUTH_NONE);
    rl_store_u16(d + RL_TENANT_TLV_SIZE + 2, RL_AUTH_NONE_TLV_SIZE);
    return true;
}

void io_servers_send(io_run_t *run, const io_event_t *ev)
{
    io_server_t *s = &run->servers[ev->server];
    uint8_t d[R_CLIENT_MAX_DATAGRAM];
    size_t len = 0;
    char err[160];
    bool ok = false;
    if (run->n_tx == IO_MAX_TX || !s->has_peer)
        return; /* nothing to answer: the client sent this server nothing */
    io_tx_t *t = &run->tx[run->n_tx];
    memset(t, 0, sizeof *t);
    t->server = ev->server;
    run->host->now = CONF_T0_MS + (io_now_us() - run->t0_us) / 1000u;
    if (ev->kind == IO_EV_MODEL) {
        ok = s->last_len > 0;
        memcpy(d, s->last, s->last_len);
        len = s->last_len;
        t->valid = ok;
        vec_format(t->what, sizeof t->what, "response");
    } else {
        ok = conf_host_build(run->host, ev->ev, d, &len, err, sizeof err);
        t->valid = ok && ev->ev->kind == CONF_EV_RESPONSE && ev->kind == IO_EV_CONF;
        if (ev->kind == IO_EV_DOWNGRADED) {
            ok = ok && downgrade(run, d, &len);
            vec_format(t->what, sizeof t->what, "downgraded");
        } else if (ev->ev->kind == CONF_EV_INVALID) {
            vec_format(t->what, sizeof t->what, "invalid:%s", conf_variant_info(ev->ev->variant)->name);
        } else {
            vec_format(t->what, sizeof t->what, "response");
        }
    }
    if (!ok)
        return;
    if (t->valid && !io_dns_trusted(run, (size_t)ev->server)) {
        /* its server_id is not the one its SRV target names (a restarted
         * server, DNS not yet updated): untrusted (r-client.md 3.1, 9) */
        t->valid = false;
        vec_format(t->what, sizeof t->what, "untrusted_id");
    }
    t->at_us = io_now_us(); /* before the send: no answer to it can come earlier */
    (void)sendto(s->fd, d, len, 0, (const struct sockaddr *)&s->peer, s->peer_len);
    run->n_tx++;
}
