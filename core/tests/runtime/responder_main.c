/* rt_responder - the loopback responder as a program, for measurements of
 * `rl-testbed check --load` until `rl-testbed serve` is at hand:
 *   rt_responder [--servers N] [--ipv6] [--auth none|cookie|aes]
 * prints the key and one "--server ID@HOST:PORT" line per server, then serves
 * until SIGINT/SIGTERM. */
#include <arpa/inet.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "responder.h"
#include "test_keys.h"

static volatile sig_atomic_t stop;
static void on_signal(int sig) {
    (void)sig;
    stop = 1;
}

int main(int argc, char **argv) {
    responder_cfg_t cfg = {.n_servers = 1};
    r_auth_type_t type = R_AUTH_COOKIE;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--servers") == 0 && i + 1 < argc) {
            cfg.n_servers = (size_t)strtoul(argv[++i], NULL, 10);
        } else if (strcmp(argv[i], "--ipv6") == 0) {
            cfg.ipv6 = true;
        } else if (strcmp(argv[i], "--auth") == 0 && i + 1 < argc) {
            const char *m = argv[++i];
            type = strcmp(m, "none") == 0 ? R_AUTH_NONE : strcmp(m, "aes") == 0 ? R_AUTH_AES : R_AUTH_COOKIE;
        } else {
            fprintf(stderr, "usage: rt_responder [--servers N] [--ipv6] [--auth none|cookie|aes]\n");
            return 2;
        }
    }
    char key[160];
    if (test_make_key_quota(type, 4242, TEST_QUOTA_2000, key, sizeof key) != 0) {
        return 1;
    }
    cfg.credential = key;
    responder_t *r = responder_start(&cfg);
    if (r == NULL) {
        return 1;
    }
    printf("key %s\n", key);
    for (size_t i = 0; i < cfg.n_servers; i++) {
        r_server_endpoint_t ep = responder_endpoint(r, i);
        char host[64];
        inet_ntop(ep.addr.family == R_ADDR_INET ? AF_INET : AF_INET6, ep.addr.addr, host, sizeof host);
        printf(ep.addr.family == R_ADDR_INET ? "--server %" PRIu64 "@%s:%u\n" : "--server %" PRIu64 "@[%s]:%u\n",
               ep.server_id, host, (unsigned)ep.addr.port);
    }
    fflush(stdout);
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    while (!stop) {
        pause();
    }
    responder_stop(r);
    return 0;
}
