/* SPDX-License-Identifier: MIT */
/* report_flood.c - a latency-report load for the memory test of
 * `rl-testbed serve` (run_tracker_memory.sh): the client core through its
 * public API (r_client_report_latency) on a real IPv4 UDP socket.
 *
 * usage: report_flood --reports N --trackers T --ttl MS --max-samples M
 *                     --buffer B --min-samples S CREDENTIAL SERVER_ID@ADDR:PORT
 * Sends N service latency blocks, PER_DATAGRAM to a datagram, over the T
 * trackers "flood-0" .. "flood-<T-1>" (round robin), every tracker with the
 * given settings; observed_latency counts up from 1. Pauses 1 ms after every
 * BURST datagrams so the server's receive buffer does not overflow. ADDR is
 * IPv4. Prints "sent D datagrams, N reports"; exit 0, 1 on a send failure,
 * 64 on usage. */
#define _POSIX_C_SOURCE 200809L
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "r_client.h"

#define PER_DATAGRAM 16u
#define BURST 32u

typedef struct {
    int fd;
} flood_t;

static int flood_send(void *ctx, const r_addr_t *to, const uint8_t *data, size_t len) {
    flood_t *f = ctx;
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons(to->port);
    memcpy(&a.sin_addr, to->addr, 4);
    return sendto(f->fd, data, len, 0, (struct sockaddr *)&a, sizeof a) == (ssize_t)len ? 0 : -1;
}

static uint64_t flood_now_ms(void *ctx) {
    (void)ctx;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static int usage(void) {
    fputs("usage: report_flood --reports N --trackers T --ttl MS --max-samples M --buffer B --min-samples S\n"
          "                    CREDENTIAL SERVER_ID@ADDR:PORT\n",
          stderr);
    return 64;
}

static int parse_server(const char *spec, r_server_endpoint_t *out) {
    unsigned long long id;
    char addr[64];
    unsigned port;
    if (sscanf(spec, "%llu@%63[^:]:%u", &id, addr, &port) != 3 || port == 0 || port > 65535) {
        return -1;
    }
    memset(out, 0, sizeof *out);
    out->server_id = id;
    out->addr.family = R_ADDR_INET;
    out->addr.port = (uint16_t)port;
    return inet_pton(AF_INET, addr, out->addr.addr) == 1 ? 0 : -1;
}

int main(int argc, char **argv) {
    unsigned long v[6] = {0, 0, 0, 0, 0, 0};
    static const char *const names[6] = {"--reports", "--trackers", "--ttl", "--max-samples", "--buffer",
                                         "--min-samples"};
    int i = 1;
    for (; i + 1 < argc && strncmp(argv[i], "--", 2) == 0; i += 2) {
        int k = 0;
        while (k < 6 && strcmp(argv[i], names[k]) != 0) {
            k++;
        }
        if (k == 6) {
            return usage();
        }
        char *end = NULL;
        v[k] = strtoul(argv[i + 1], &end, 10);
        if (*end != '\0') {
            return usage();
        }
    }
    r_server_endpoint_t server;
    if (argc - i != 2 || v[0] == 0 || v[1] == 0 || parse_server(argv[i + 1], &server) != 0) {
        return usage();
    }
    size_t n_trackers = v[1];
    r_service_latency_report_t *t = calloc(n_trackers, sizeof *t);
    flood_t f = {socket(AF_INET, SOCK_DGRAM, 0)};
    if (t == NULL || f.fd < 0) {
        fputs("report_flood: setup failed\n", stderr);
        return 1;
    }
    for (size_t k = 0; k < n_trackers; k++) {
        char name[32];
        snprintf(name, sizeof name, "flood-%zu", k);
        t[k].ttl_ms = (uint32_t)v[2];
        t[k].max_samples = (uint32_t)v[3];
        t[k].buffer_size = (uint32_t)v[4];
        t[k].min_sample_threshold = (uint32_t)v[5];
        r_client_derive_latency_tracker_id(name, strlen(name), t[k].ttl_ms, t[k].max_samples, t[k].buffer_size,
                                           t[k].min_sample_threshold, t[k].latency_tracker_id);
    }
    r_client_config_t cfg = {0};
    cfg.tenant.auth.secret = argv[i];
    cfg.servers = &server;
    cfg.server_count = 1;
    r_io_ops_t io = {.ctx = &f, .udp_send = flood_send, .now_ms = flood_now_ms};
    r_client_t *client = NULL;
    int rc = r_client_create(&cfg, &io, NULL, &client);
    if (rc != RCLIENT_OK) {
        fprintf(stderr, "report_flood: %s\n", r_client_strerror(rc));
        return 1;
    }
    unsigned long sent = 0, datagrams = 0;
    size_t next = 0;
    uint32_t value = 1;
    while (sent < v[0]) {
        r_service_latency_report_t batch[PER_DATAGRAM];
        size_t n = v[0] - sent < PER_DATAGRAM ? (size_t)(v[0] - sent) : PER_DATAGRAM;
        for (size_t k = 0; k < n; k++) {
            batch[k] = t[next];
            batch[k].observed_latency = value++;
            next = (next + 1) % n_trackers;
        }
        rc = r_client_report_latency(client, batch, n);
        if (rc != RCLIENT_OK) {
            fprintf(stderr, "report_flood: report failed: %s\n", r_client_strerror(rc));
            break;
        }
        sent += n;
        if (++datagrams % BURST == 0) {
            nanosleep(&(struct timespec){0, 1000000}, NULL);
        }
    }
    printf("sent %lu datagrams, %lu reports\n", datagrams, sent);
    r_client_destroy(client);
    close(f.fd);
    free(t);
    return rc == RCLIENT_OK ? 0 : 1;
}
