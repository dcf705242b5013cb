/* SPDX-License-Identifier: MIT */
/* serve_flood.c - a datagram flood for the signal tests of `rl-testbed
 * serve` (run_signal.sh): sends 64-byte datagrams of zeros (a tenant TLV the
 * server cannot parse: drop_malformed, one log line each) to 127.0.0.1:PORT
 * in batches of 64 (sendmmsg) as fast as the kernel takes them, so the
 * server's socket never runs empty, until SECONDS have passed or it is
 * killed.
 *
 * usage: serve_flood PORT SECONDS
 * Prints "flood: sent N" on exit 0; 64 on a usage error, 1 on a socket error. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define BATCH 64
#define DGRAM 64

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fputs("usage: serve_flood PORT SECONDS\n", stderr);
        return 64;
    }
    int port = atoi(argv[1]);
    double seconds = atof(argv[2]);
    if (port <= 0 || port > 65535 || seconds <= 0.0) {
        fputs("serve_flood: bad PORT or SECONDS\n", stderr);
        return 64;
    }
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    if (fd < 0) {
        perror("serve_flood: socket");
        return 1;
    }
    struct sockaddr_in to;
    memset(&to, 0, sizeof to);
    to.sin_family = AF_INET;
    to.sin_port = htons((uint16_t)port);
    to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    static unsigned char buf[DGRAM];
    struct iovec iov[BATCH];
    struct mmsghdr msg[BATCH];
    memset(msg, 0, sizeof msg);
    for (int i = 0; i < BATCH; i++) {
        iov[i] = (struct iovec){buf, DGRAM};
        msg[i].msg_hdr.msg_name = &to;
        msg[i].msg_hdr.msg_namelen = sizeof to;
        msg[i].msg_hdr.msg_iov = &iov[i];
        msg[i].msg_hdr.msg_iovlen = 1;
    }
    unsigned long long sent = 0;
    double end = now_s() + seconds;
    while (now_s() < end) {
        int k = sendmmsg(fd, msg, BATCH, 0);
        if (k > 0) {
            sent += (unsigned long long)k;
        }
    }
    close(fd);
    printf("flood: sent %llu\n", sent);
    return 0;
}
