/* SPDX-License-Identifier: MIT */
/* r_client_runtime.h - the public runtime (api.md "Public runtime", "Choosing
 * an integration layer"): the core client plus owned, nonblocking IPv4/IPv6
 * UDP sockets, synchronous SRV then A/AAAA discovery (c-ares), portable
 * clocks, relative deadline helpers, environment options and the source-port
 * rebind of r-client.md 6.1.
 *
 * It is a separate library, librclient_runtime (CMake target
 * rclient::rclient_runtime, pkg-config rclient_runtime), on top of librclient:
 * the core stays sans-IO and free of c-ares, and hosts with their own sockets
 * and resolver link only the core (docs/api-guide.md "The public runtime").
 *
 * What the host still owns: readiness watchers (poll/epoll on the sockets
 * below), deadline timers (r_runtime_request_delay_ms and friends), the
 * protected work and the logging policy. Like the core client, a runtime has
 * no locks: confine it to one thread or event loop and serialize every call
 * (api.md "Threading and reentrancy"). POSIX only (Linux, the BSDs, macOS).
 *
 * Contracts that differ from the core client:
 * - DNS discovery is synchronous: r_runtime_client_create, a due refresh and
 *   any submit or report that finds no server block the calling thread for
 *   at most dns_timeout_ms per lookup, all tries included (one SRV lookup,
 *   then one A/AAAA lookup per member; api.md "DNS Refresh"). Once servers
 *   are known, a failed refresh keeps them and is retried only after a
 *   backoff (dns_refresh.forced_refresh_min_interval_ms, doubled per
 *   consecutive failure up to the refresh interval; a refresh that leaves a
 *   member without a fresh address counts as one): a DNS outage does not
 *   block every submit (r-client.md 6.1, 9.4). SRV TTLs are read from the
 *   answer and cap the refresh interval (a TTL of 0 counts as 1 s).
 * - Packet-local ingress noise is discarded (api.md "Error Codes"):
 *   RCLIENT_ERR_PROTOCOL and RCLIENT_ERR_AUTH from r_client_on_datagram are
 *   counted in r_runtime_stats_t and never returned.
 * - A trusted response with keep_port = false makes the runtime replace its
 *   sockets outside the receive path (r-client.md 6.1, 6.3 rule 6).
 */
#ifndef R_CLIENT_RUNTIME_H
#define R_CLIENT_RUNTIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "r_client.h"
#include "r_client_workflow.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A socket the runtime owns: a POSIX file descriptor. */
typedef int r_runtime_socket_t;
#define R_RUNTIME_INVALID_SOCKET (-1)

/* Host notification of socket registration (r-client.md 6.1 "A replacement
 * socket should be opened and registered before the old socket is closed").
 * Called with added = true for every socket the runtime opens (at create and
 * for a rebind's replacement, before the old socket stops being used) and
 * with added = false just before the runtime closes one. Return 0 when the
 * host registered it (for example with epoll_ctl); non-zero refuses the
 * socket: at create this fails creation (RCLIENT_ERR_IO), in a rebind it
 * aborts the rebind and the old socket is kept. The return value of a
 * removal is ignored. Must not call back into the runtime. */
typedef int (*r_runtime_socket_cb)(void *user, r_runtime_socket_t socket, bool added);

/* Runtime configuration. A zero-initialised struct plus auth_key is valid.
 * Every pointer is borrowed for r_runtime_client_create only (the runtime and
 * the core copy what they keep). */
typedef struct {
    const char *auth_key;          /* required: the Bech32 API key (rl-none/rl-cookie/rl-aes) */
    const char *tenant_dns_name;   /* NULL: "c-<key_id>.p0.ratelimitly.com" (api.md "Configuration") */
    const char *dns_server;        /* "IPv4:PORT" or "[IPv6]:PORT": the DNS server c-ares asks;
                                      NULL: the system resolver configuration (/etc/resolv.conf) */
    uint32_t dns_timeout_ms;       /* bound of one lookup, both tries included (a third, then two
                                      thirds of it); 0 = 1000 */
    const r_server_endpoint_t *servers; /* static membership (r-client.md 3.1 item 3); NULL/0 = DNS */
    size_t server_count;
    bool has_request_policy;       /* false: r_client_default_request_policy() */
    r_request_policy_t request_policy;
    bool profile_requests;         /* RATELIMITLY_REQUEST_PROFILE=1: one line per completed request
                                      on stderr (no credential bytes), unless profile_cb is set */
    r_request_profile_cb profile_cb; /* optional; receives every request profile (api.md) */
    void *profile_user;
    r_runtime_socket_cb socket_cb; /* optional registration hook, see above */
    void *socket_user;
    void (*log)(void *user, r_log_level_t level, const char *msg); /* optional core/runtime diagnostics */
    void *log_user;
    bool single_send;              /* true: one sendto per datagram instead of one sendmmsg per
                                      fan-out (no udp_send_batch hook); for comparison only */
    r_dns_refresh_config_t dns_refresh; /* DNS refresh pacing (r-client.md 9.4), as
                                      r_client_config_t.dns_refresh; zero fields take the defaults */
} r_runtime_options_t;

/* Environment lookup: the value of name, or NULL when unset. */
typedef const char *(*r_runtime_lookup_fn)(void *ctx, const char *name);

/* Fill *out (entirely, zeroing every other field) from the environment
 * variables (api.md "Public runtime"):
 *   RATELIMITLY_AUTH_KEY             required; must parse as an API key
 *   RATELIMITLY_TENANT               optional tenant DNS name override (non-empty)
 *   RATELIMITLY_REQUEST_UNIT_MS      optional U: a nonzero decimal integer (digits only)
 *   RATELIMITLY_REQUEST_REPLAY_COUNT optional N: decimal 0..R_CLIENT_HA_MAX_REPLAY_COUNT
 *   RATELIMITLY_REQUEST_PROFILE      optional: "1" profiles every request, "0" does not
 * Either scheduler value may be given alone; the other keeps the default. The
 * resulting policy (the default one, H = 60 ms, when neither scheduler
 * variable is set) must also pass r_client_policy_schedule() against the
 * key's dedup_ttl_ms_max, so a unit too large for the key, or a key too small
 * for the default policy, is refused here rather than at every submit. The string pointers stored in *out point into
 * the environment: valid until it is modified.
 * Returns RCLIENT_OK, or RCLIENT_ERR_CONFIG (out NULL, key missing or
 * invalid, or any value above invalid or out of range; *out untouched). */
RCLIENT_API int r_runtime_options_from_env(r_runtime_options_t *out);

/* As r_runtime_options_from_env, reading each variable through lookup(ctx,
 * name) instead of getenv (tests, or a command line that supplies the key).
 * why (may be NULL) receives a static message naming the variable and the
 * rule it broke, or NULL on success. Strings in *out are lookup's. */
RCLIENT_API int r_runtime_options_from_lookup(r_runtime_options_t *out, r_runtime_lookup_fn lookup, void *ctx,
                                              const char **why);

typedef struct r_runtime_client r_runtime_client_t;

/* Open the sockets (an IPv4 and an IPv6 one, each nonblocking, bound to the
 * wildcard address and an ephemeral port; a family the host lacks is
 * skipped), initialise c-ares and create the core client, which runs its
 * first discovery synchronously here. Discovery never fails creation: with
 * no server found, submits return RCLIENT_ERR_DNS and retry it (api.md).
 * Returns RCLIENT_OK with *out set; RCLIENT_ERR_CONFIG (NULL argument, no
 * auth_key, malformed dns_server, or an r_client_create configuration error:
 * bad credential, DNS name, static endpoint); RCLIENT_ERR_IO (no socket could
 * be opened, socket_cb refused one, or c-ares could not start);
 * RCLIENT_ERR_NOMEM. On failure nothing is left open. */
RCLIENT_API int r_runtime_client_create(const r_runtime_options_t *options, r_runtime_client_t **out);

/* Destroy the core client (in-flight requests cancelled without callbacks),
 * close every socket (socket_cb told first) and release c-ares. NULL is a
 * no-op. Not from inside a completion callback (api.md). */
RCLIENT_API void r_runtime_client_destroy(r_runtime_client_t *runtime);

/* The core client inside the runtime, for the r_client_* and workflow calls.
 * Borrowed: valid until r_runtime_client_destroy. NULL for a NULL runtime. */
RCLIENT_API r_client_t *r_runtime_client_handle(r_runtime_client_t *runtime);

/* Sockets to watch for readability: the active ones and, after a rebind, the
 * retired ones still receiving late responses (closed one policy horizon H
 * after the rebind, r_client_policy_schedule ttl_ms). The set changes only
 * inside r_runtime_client_on_readable, r_runtime_client_rebind and the
 * runtime timeout helpers: re-read it after those (or use socket_cb).
 * r_runtime_socket_at returns R_RUNTIME_INVALID_SOCKET for an index out of
 * range. Sockets stay owned by the runtime: never close them. */
RCLIENT_API size_t r_runtime_socket_count(const r_runtime_client_t *runtime);
RCLIENT_API r_runtime_socket_t r_runtime_socket_at(const r_runtime_client_t *runtime, size_t index);

/* The local port of the active socket of family (R_ADDR_INET or
 * R_ADDR_INET6). Returns RCLIENT_OK, or RCLIENT_ERR_CONFIG (NULL, unknown
 * family, or no socket of that family). */
RCLIENT_API int r_runtime_local_port(const r_runtime_client_t *runtime, r_addr_family_t family, uint16_t *out_port);

/* Drain one readable socket: receive every queued datagram (recvmmsg, up to
 * 16 a syscall; a batch of fewer than 16 ends the drain without a read to
 * find the socket empty; at most 256 per call, so one busy socket cannot
 * starve the loop) and deliver each to the core; completion callbacks run
 * from here. Packet-local PROTOCOL/AUTH noise
 * is counted and dropped. Afterwards, outside the receive path, a pending
 * rebind is attempted and expired retired sockets are closed.
 * Returns RCLIENT_OK (also for EAGAIN at once), RCLIENT_ERR_CONFIG (NULL, or
 * a socket the runtime does not own), RCLIENT_ERR_IO (a receive error other
 * than EAGAIN/EINTR/ECONNREFUSED), or RCLIENT_ERR_NOMEM from the core (the
 * first error; the rest of the batch already read is still delivered). */
RCLIENT_API int r_runtime_client_on_readable(r_runtime_client_t *runtime, r_runtime_socket_t socket);

/* Replace the source sockets now (r-client.md 6.1 Rebinding), transactionally:
 * every replacement is opened, bound and registered (socket_cb) before any old
 * socket stops being used; old sockets are retired (still read) for one
 * policy horizon H, then closed. Any failure closes the replacements and
 * keeps the old sockets. The runtime calls this itself after a trusted
 * keep_port = false response, and reports the outcome to the core with
 * r_client_rebind_complete (a failure stays RebindPending and is retried after
 * the next datagram or timeout). At most four retired sockets are kept; while
 * all four wait out their horizon a rebind is deferred.
 * Returns RCLIENT_OK, RCLIENT_ERR_CONFIG (NULL; socket_cb refused the
 * replacement), RCLIENT_ERR_IO (socket/bind failed, or deferred). */
RCLIENT_API int r_runtime_client_rebind(r_runtime_client_t *runtime);

/* Counters of the runtime's own work since create. */
typedef struct {
    uint64_t sendto_calls;       /* sendto(2) syscalls */
    uint64_t sendmmsg_calls;     /* sendmmsg(2) syscalls */
    uint64_t recvfrom_calls;     /* recvfrom(2) syscalls (none since receives are batched: recvmmsg_calls) */
    uint64_t datagrams_sent;
    uint64_t datagrams_received;
    uint64_t send_failures;      /* datagrams the kernel refused */
    uint64_t noise_protocol;     /* discarded RCLIENT_ERR_PROTOCOL ingress (malformed, AES tag) */
    uint64_t noise_auth;         /* discarded RCLIENT_ERR_AUTH ingress (auth type, cookie) */
    uint64_t rebinds;            /* completed rebinds */
    uint64_t rebind_failures;    /* failed or deferred rebind attempts (old sockets kept) */
    uint64_t recvmmsg_calls;     /* recvmmsg(2) syscalls: one per batch of up to 16 datagrams; a short batch ends the drain */
} r_runtime_stats_t;

/* Copy the counters. Returns RCLIENT_OK or RCLIENT_ERR_CONFIG (NULL). */
RCLIENT_API int r_runtime_client_stats(const r_runtime_client_t *runtime, r_runtime_stats_t *out);

/* ---- Clocks (api.md "Datagrams and Timers", "Reporting measured work") ----
 * Wall: Unix-epoch ms, the core's scheduling clock (deadlines, time_stamp);
 * never use it for durations. Monotonic: durations only (protected-work
 * latency); its epoch is unspecified. Each returns RCLIENT_OK, or
 * RCLIENT_ERR_CONFIG (NULL out) / RCLIENT_ERR_IO (the clock failed; *out
 * untouched). */
RCLIENT_API int r_runtime_wall_time_ms(uint64_t *out_ms);
RCLIENT_API int r_runtime_monotonic_time_ms(uint64_t *out_ms);
RCLIENT_API int r_runtime_monotonic_time_us(uint64_t *out_us);

/* ---- Relative deadline helpers ---------------------------------------------
 * The core returns absolute Unix-epoch deadlines; loops want a delay. */

/* Milliseconds from now_ms until deadline_ms; 0 when it is due (deadline_ms
 * <= now_ms). Pure. */
RCLIENT_API uint64_t r_runtime_delay_ms(uint64_t deadline_ms, uint64_t now_ms);

/* Delay until req's next deadline on the runtime's wall clock. req must be
 * live (its callback has not fired). Returns RCLIENT_OK, RCLIENT_ERR_CONFIG
 * (NULL), RCLIENT_ERR_IO (clock). */
RCLIENT_API int r_runtime_request_delay_ms(const r_runtime_client_t *runtime, const r_client_req_t *req,
                                           uint64_t *out_delay_ms);

/* r_client_on_timeout(req, wall now); then a pending rebind and expired
 * retired sockets are handled. A no-op before the deadline. Returns
 * RCLIENT_OK (also when req completed and was freed), RCLIENT_ERR_CONFIG
 * (NULL), RCLIENT_ERR_IO (clock). */
RCLIENT_API int r_runtime_request_on_timeout(r_runtime_client_t *runtime, r_client_req_t *req);

/* Delay until a PENDING admission's deadline. Returns RCLIENT_OK,
 * RCLIENT_ERR_CONFIG (NULL or not PENDING), RCLIENT_ERR_IO (clock). */
RCLIENT_API int r_runtime_admission_delay_ms(const r_admission_request_t *adm, uint64_t *out_delay_ms);

/* r_client_admission_on_timeout(adm, wall now), then runtime upkeep as
 * above. Returns RCLIENT_OK (also when not PENDING), RCLIENT_ERR_CONFIG
 * (NULL), RCLIENT_ERR_IO (clock). */
RCLIENT_API int r_runtime_admission_on_timeout(r_runtime_client_t *runtime, r_admission_request_t *adm);

/* r_client_admission_cancel: no callback will fire. NULL is a no-op. */
RCLIENT_API void r_runtime_admission_cancel(r_runtime_client_t *runtime, r_admission_request_t *adm);

/* Protected work: return 0 on success, any other value on failure. */
typedef int (*r_runtime_protected_work_cb)(void *user);

/* Run synchronous protected work after an allowed admission, measure it with
 * the monotonic clock and report the sample once (api.md "Combined Admission
 * Workflow"): the admission is marked executed immediately before work runs,
 * so one admission runs its work at most once. Never reports denied,
 * cancelled, failed or previously reported work.
 * adm must belong to runtime's client. out_observed_ms (may be NULL) receives
 * the measured latency (ms, saturated to UINT32_MAX) as soon as it is known,
 * before the report is sent: after a failed report, retry only
 * r_client_admission_report_latency(adm, that value), never the work.
 * Returns RCLIENT_OK (work succeeded, report sent); RCLIENT_ERR_CONFIG (NULL
 * argument, adm of another client, not DONE, not allowed, already executed or
 * already reported: work not run); RCLIENT_ERR_IO (the first clock read
 * failed: work not run and not marked; or the second failed: no report);
 * the work's own non-zero value unchanged (no report); or an error of
 * r_client_admission_report_latency (the work ran; sample in *out_observed_ms). */
RCLIENT_API int r_runtime_admission_run_and_report(r_runtime_client_t *runtime, r_admission_request_t *adm,
                                                   r_runtime_protected_work_cb work, void *user,
                                                   uint32_t *out_observed_ms);

#ifdef __cplusplus
}
#endif

#endif /* R_CLIENT_RUNTIME_H */
