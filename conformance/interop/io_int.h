/* SPDX-License-Identifier: MIT */
/* io_int.h - the interop engine's internal types (docs/interop.md): a loaded
 * case, the loopback servers and their records, the driver process, the
 * judged rows. */
#ifndef IO_INT_H
#define IO_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/socket.h>

#include <jansson.h>

#include "conf_case.h"
#include "conf_host.h"
#include "interop.h"
#include "sim_server.h"

#define IO_UNIT_MS 100u     /* U of every case over the network (docs/interop.md "Time") */
#define IO_EARLY_MS 10u     /* timing checks: this much before the spec's time is accepted ... */
#define IO_LATE_PERCENT 40u /* ... and this share of U after it */
#define IO_TOL_TEXT "10 ms/+40% of" /* the two above, for the report */
#define IO_SCRIPT_SLACK_MS 5u /* a scripted datagram sent later than this after its time: the testbed was late */
#define IO_MAX_RX 512u       /* datagrams recorded per run */
#define IO_MAX_TX 256u       /* datagrams the servers sent per run */
#define IO_MAX_ROWS 16u
#define IO_DETAIL_MAX 240u

/* Scripted datagrams of the interop cases' own "interop_events" (docs/interop.md "Cases"). */
typedef enum {
    IO_EV_CONF = 0,        /* a case event (response or invalid variant) built as conformance does */
    IO_EV_MODEL = 1,       /* a plain response: the server model's own answer */
    IO_EV_DOWNGRADED = 2   /* a valid response re-framed with auth none under a cookie or AES key */
} io_ev_kind_t;

typedef struct {
    uint64_t at_ms;        /* scaled, after t0 */
    int server;
    io_ev_kind_t kind;
    const conf_event_t *ev; /* IO_EV_CONF; for the others a response event of the server */
} io_event_t;

/* A loaded case, its auth mode not yet bound when any_auth. */
typedef struct {
    char path[512];
    conf_case_t c;
    bool any_auth;
    bool default_request;  /* the default request: block names are known */
    unsigned factor;       /* U / the case's unit_ms */
    char skip[160];        /* why the case cannot be played over a network; "" = playable */
    conf_event_t extra[CONF_MAX_EVENTS]; /* interop_events, as response events of their server */
    io_ev_kind_t extra_kind[CONF_MAX_EVENTS];
    size_t n_extra;
    bool dns;              /* "discovery": "dns": the client discovers the servers (docs/interop.md "DNS") */
    char dns_target[CONF_MAX_SERVERS][40]; /* per server its SRV target's first label; "" = s-<server_id> */
    int restart;           /* "restart": this server runs a warm-up check under restart_before_id, then
                              restarts with its case server_id (docs/interop.md "Restarts"); -1 none */
    uint64_t restart_before_id;
    int join;              /* "join": this server is published in DNS only after a warm-up check
                              (docs/interop.md "Restarts"); -1 none */
} io_case_t;

typedef enum { IO_PDU_OTHER = 0, IO_PDU_REQUEST, IO_PDU_REPORT } io_pdu_t;

/* One datagram a server received. */
typedef struct {
    uint64_t at_us;        /* kernel receive time, Unix epoch */
    int server;
    size_t len;
    io_pdu_t pdu;
    bool opened;           /* the servers' copy of the key authenticated it */
    uint8_t uid[16];
    uint64_t time_stamp;   /* tenant TLV, ms */
    uint32_t ttl_ms;       /* Rate Request dedup_ttl_ms */
    sim_server_verdict_t verdict;
    char why[96];          /* the model's reason for a drop */
    bool key_bytes;        /* carries a run of the key's secret (docs/interop.md "key_material") */
    uint16_t src_port;     /* the client's source port (docs/interop.md "steering") */
    const char *kind;      /* set by the judge: initial, replay, completion, report, ... */
    const char *verdict_text; /* set by the judge: ok, or the check it broke */
} io_rx_t;

/* One datagram a server sent. */
typedef struct {
    uint64_t at_us;
    uint64_t due_us;       /* when the script wanted it sent (its time, or its server's first request); 0 unknown */
    int server;
    bool valid;            /* a valid response (allow or deny) */
    char what[32];         /* "response", "invalid:bad_tag", "downgraded", ... */
} io_tx_t;

typedef struct {
    int fd;
    uint16_t port;
    sim_server_t *model;
    struct sockaddr_storage peer;
    socklen_t peer_len;
    bool has_peer;
    uint8_t last[1200];    /* the model's latest response */
    size_t last_len;
} io_server_t;

/* One run of a case: mode and family bound, servers, records. */
typedef struct {
    const io_case_t *ic;
    conf_case_t c;          /* the bound copy */
    const char *mode;       /* "none", "cookie", "aes" */
    bool v6;
    unsigned unit_ms;
    conf_host_t *host;      /* the servers' side of conformance/runner (keys, response building) */
    io_server_t servers[CONF_MAX_SERVERS];
    io_rx_t rx[IO_MAX_RX];
    size_t n_rx;
    io_tx_t tx[IO_MAX_TX];
    size_t n_tx;
    uint64_t t0_us;         /* first Rate Request received; 0 until then */
    uint64_t check_us;      /* the check was sent to the driver */
    uint64_t report_us;     /* the report was sent; 0 = none */
    bool decided;
    char decision[16];      /* allowed, denied, failed, or "" */
    int selected;           /* server index, -1 none, -2 an id no server has */
    bool selected_known;    /* the driver named a server */
    uint64_t decided_us;
    char driver_error[160]; /* the driver failed or answered an error */
    char unsupported[160];  /* the driver answered create with "unsupported": the run is skipped */
    bool echo;              /* the warm-up check: every server answers each request at once */
    bool restarted;         /* the restart server runs under its case server_id */
    char warmup[120];       /* what the warm-up check decided, for the report */
    int dns_pid;            /* the run's dnsmasq; 0 none */
    uint16_t dns_port;
    char dns_conf[64];      /* its configuration file */
    char report_error[120];
} io_run_t;

typedef struct {
    const char *name;
    const char *severity;   /* security, decision, interop, convention */
    const char *spec;       /* document and section */
    bool timing;            /* judged on time: rerun once before failing */
    bool pass;
    char detail[IO_DETAIL_MAX];
} io_row_t;

typedef struct {
    io_row_t rows[IO_MAX_ROWS];
    size_t n;
} io_rows_t;

/* io_case.c */
bool io_case_load(const char *path, io_case_t *ic, char *err, size_t cap);
/* The scheduled datagrams of a bound run, sorted by time; returns the count. */
size_t io_case_events(const io_run_t *run, io_event_t *out, size_t cap);
/* H of the case policy at U (r-client.md 9.3.1); round k's start after t0 in ms. */
uint64_t io_policy_h_ms(const r_request_policy_t *p);
uint64_t io_round_start_ms(const r_request_policy_t *p, uint32_t k);

/* io_servers.c */
bool io_servers_start(io_run_t *run, char *err, size_t cap);
void io_servers_stop(io_run_t *run);
/* Receive everything queued on server i (record, model, captures). */
void io_servers_receive(io_run_t *run, int i);
/* Receive on every server for ms (recorded like any other datagram). */
void io_servers_receive_all(io_run_t *run, unsigned ms);
/* Send the scripted datagram ev now. */
void io_servers_send(io_run_t *run, const io_event_t *ev);
/* The restart of server i: a fresh model (no state, no request seen) under
 * its case server_id, on the same port (r-client.md 9.1: the SRV port routes). */
bool io_servers_restart(io_run_t *run, int i, char *err, size_t cap);
uint64_t io_now_us(void);

/* io_dns.c: the run's dnsmasq (docs/interop.md "DNS"): SRV/A/AAAA records of
 * its servers on a free loopback port, answering before it returns. */
#define IO_DNS_NAME "rl-interop.test"
bool io_dns_start(io_run_t *run, char *err, size_t cap);
void io_dns_stop(io_run_t *run);
/* The records rewritten (after a restart), dnsmasq restarted on its port. */
bool io_dns_restart(io_run_t *run, char *err, size_t cap);
/* The SRV target's first label of server i: the case's, or s-<server_id>. */
void io_dns_label(const io_run_t *run, size_t i, char *out, size_t cap);
/* Whether server i's responses carry the server_id its SRV target names. */
bool io_dns_trusted(const io_run_t *run, size_t i);

/* io_driver.c: the driver process, one JSON object per line each way. */
typedef struct io_driver io_driver_t;
io_driver_t *io_driver_start(const char *cmd, char *err, size_t cap);
bool io_driver_send(io_driver_t *d, json_t *msg); /* steals msg */
int io_driver_fd(const io_driver_t *d);
/* Read what is available; *out gets one complete answer or NULL. False when
 * the driver closed its output or sent a line that is not JSON. */
bool io_driver_poll_line(io_driver_t *d, json_t **out);
/* Wait up to timeout_ms for one answer while serving the run's servers. */
json_t *io_driver_wait(io_driver_t *d, io_run_t *run, unsigned timeout_ms);
void io_driver_stop(io_driver_t *d);
/* Why the last wait or poll got no answer: "no answer within N ms", "the driver
 * exited with status N", "the driver wrote a line that is not a JSON object:
 * ...". */
#define IO_DRIVER_WHY_MAX 128u
const char *io_driver_why(const io_driver_t *d);

/* io_judge.c */
void io_judge(io_run_t *run, io_rows_t *rows);
/* Whether a timing row failed: a stall of the machine (of the driver or of the
 * testbed's own servers) moves every later datagram and can change the
 * selection too, so such a run is rerun once before it fails (project). */
bool io_rows_timing_affected(const io_rows_t *rows);
/* Whether the testbed itself sent a scripted datagram more than
 * IO_SCRIPT_SLACK_MS after its time (a loaded machine): the run does not judge
 * the client fairly. True with why ("A's response 14.5 ms late") for the first. */
bool io_script_late(const io_run_t *run, char *why, size_t cap);

/* io_play.c: one run of a case; false with err when it could not be set up. */
bool io_play(io_run_t *run, const char *driver, char *err, size_t cap);

/* io_output.c: the timeline and the JSON results. */
void io_print_timeline(FILE *f, const io_run_t *run);
json_t *io_run_json(const io_run_t *run, const io_rows_t *rows, bool rerun, const char *result);

#endif /* IO_INT_H */
