/* SPDX-License-Identifier: MIT */
/* responder.c - see responder.h. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "responder.h"

typedef struct {
    int fd;
    sim_server_t *srv;
    r_server_endpoint_t ep;
    uint64_t received;
    uint16_t last_port;
    bool silent;
} rsrv_t;

struct responder {
    size_t n;
    rsrv_t s[RESPONDER_MAX];
    int stop_pipe[2];
    pthread_t thread;
    pthread_mutex_t lock;
    bool started;
};

static uint64_t wall_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void serve_one(responder_t *r, rsrv_t *s) {
    uint8_t in[1500], out[1500];
    struct sockaddr_storage from;
    for (;;) {
        socklen_t fl = sizeof from;
        ssize_t n = recvfrom(s->fd, in, sizeof in, MSG_DONTWAIT, (struct sockaddr *)&from, &fl);
        if (n < 0) {
            return;
        }
        size_t out_len = 0;
        pthread_mutex_lock(&r->lock);
        s->received++;
        s->last_port = ntohs(from.ss_family == AF_INET ? ((struct sockaddr_in *)&from)->sin_port
                                                       : ((struct sockaddr_in6 *)&from)->sin6_port);
        bool silent = s->silent;
        (void)sim_server_handle(s->srv, wall_ms(), in, (size_t)n, out, sizeof out, &out_len, NULL);
        pthread_mutex_unlock(&r->lock);
        if (out_len > 0 && !silent) {
            (void)sendto(s->fd, out, out_len, 0, (struct sockaddr *)&from, fl);
        }
    }
}

static void *run(void *arg) {
    responder_t *r = arg;
    struct pollfd pfd[RESPONDER_MAX + 1];
    for (;;) {
        for (size_t i = 0; i < r->n; i++) {
            pfd[i].fd = r->s[i].fd;
            pfd[i].events = POLLIN;
        }
        pfd[r->n].fd = r->stop_pipe[0];
        pfd[r->n].events = POLLIN;
        if (poll(pfd, r->n + 1, -1) < 0 && errno != EINTR) {
            return NULL;
        }
        if (pfd[r->n].revents != 0) {
            return NULL;
        }
        for (size_t i = 0; i < r->n; i++) {
            if (pfd[i].revents & POLLIN) {
                serve_one(r, &r->s[i]);
            }
        }
    }
}

static int bind_loopback(bool ipv6, r_addr_t *addr) {
    int fd = socket(ipv6 ? AF_INET6 : AF_INET, SOCK_DGRAM, 0);
    if (fd < 0) {
        return -1;
    }
    struct sockaddr_storage ss;
    memset(&ss, 0, sizeof ss);
    socklen_t sl;
    memset(addr, 0, sizeof *addr);
    if (ipv6) {
        struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
        s6->sin6_family = AF_INET6;
        s6->sin6_addr = in6addr_loopback;
        sl = sizeof *s6;
        addr->family = R_ADDR_INET6;
        memcpy(addr->addr, &in6addr_loopback, 16);
    } else {
        struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
        s4->sin_family = AF_INET;
        s4->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        sl = sizeof *s4;
        addr->family = R_ADDR_INET;
        addr->addr[0] = 127;
        addr->addr[3] = 1;
    }
    if (bind(fd, (struct sockaddr *)&ss, sl) != 0 || getsockname(fd, (struct sockaddr *)&ss, &sl) != 0) {
        close(fd);
        return -1;
    }
    addr->port = ntohs(ipv6 ? ((struct sockaddr_in6 *)&ss)->sin6_port : ((struct sockaddr_in *)&ss)->sin_port);
    return fd;
}

responder_t *responder_start(const responder_cfg_t *cfg) {
    if (cfg->n_servers == 0 || cfg->n_servers > RESPONDER_MAX) {
        return NULL;
    }
    responder_t *r = calloc(1, sizeof *r);
    if (r == NULL || pipe(r->stop_pipe) != 0) {
        free(r);
        return NULL;
    }
    pthread_mutex_init(&r->lock, NULL);
    uint64_t now_s = wall_ms() / 1000u;
    for (size_t i = 0; i < cfg->n_servers; i++) {
        rsrv_t *s = &r->s[i];
        r->n++;
        s->fd = bind_loopback(cfg->ipv6, &s->ep.addr);
        sim_server_params_t p;
        memset(&p, 0, sizeof p);
        p.server_start_s = now_s - 3600u * (cfg->n_servers - i); /* server 0 started first: the oldest */
        p.listener_id = (uint8_t)i;
        p.node_id = (uint16_t)(cfg->node_base + 1 + i);
        p.steer_mode = cfg->steer;
        sim_rng_t rng;
        sim_rng_seed(&rng, 1, SIM_STREAM_SERVER, i);
        s->srv = sim_server_new(&p, &rng);
        if (s->fd < 0 || s->srv == NULL || sim_server_add_tenant(s->srv, cfg->credential) != 0) {
            fprintf(stderr, "responder: cannot start server %zu\n", i);
            responder_stop(r);
            return NULL;
        }
        s->ep.server_id = sim_server_id(s->srv);
    }
    if (pthread_create(&r->thread, NULL, run, r) != 0) {
        responder_stop(r);
        return NULL;
    }
    r->started = true;
    return r;
}

void responder_stop(responder_t *r) {
    if (r == NULL) {
        return;
    }
    if (r->started) {
        ssize_t w = write(r->stop_pipe[1], "x", 1);
        (void)w;
        pthread_join(r->thread, NULL);
    }
    for (size_t i = 0; i < r->n; i++) {
        if (r->s[i].fd >= 0) {
            close(r->s[i].fd);
        }
        sim_server_free(r->s[i].srv);
    }
    close(r->stop_pipe[0]);
    close(r->stop_pipe[1]);
    pthread_mutex_destroy(&r->lock);
    free(r);
}

r_server_endpoint_t responder_endpoint(const responder_t *r, size_t i) {
    return r->s[i].ep;
}

uint64_t responder_received(responder_t *r, size_t i) {
    pthread_mutex_lock(&r->lock);
    uint64_t v = r->s[i].received;
    pthread_mutex_unlock(&r->lock);
    return v;
}

uint16_t responder_last_source_port(responder_t *r, size_t i) {
    pthread_mutex_lock(&r->lock);
    uint16_t v = r->s[i].last_port;
    pthread_mutex_unlock(&r->lock);
    return v;
}

void responder_set_steer(responder_t *r, sim_steer_mode_t mode) {
    pthread_mutex_lock(&r->lock);
    for (size_t i = 0; i < r->n; i++) {
        sim_server_set_steering(r->s[i].srv, mode, 0.0);
    }
    pthread_mutex_unlock(&r->lock);
}

void responder_set_silent(responder_t *r, size_t i, bool silent) {
    pthread_mutex_lock(&r->lock);
    r->s[i].silent = silent;
    pthread_mutex_unlock(&r->lock);
}
