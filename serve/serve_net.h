/* SPDX-License-Identifier: MIT */
/* serve_net.h - the UDP sockets of serve: bound to one numeric address,
 * nonblocking, close-on-exec, IPv6 sockets IPv6-only (so 127.0.0.1 and ::1
 * are two sockets on one port), a 1 MiB receive buffer for bursts. */
#ifndef SERVE_NET_H
#define SERVE_NET_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/* Bind a UDP socket to the numeric address text and *port (0 = ephemeral);
 * *port receives the bound port. Returns the descriptor, or -1 with errno
 * set (EINVAL for text that is not a numeric address). */
int serve_net_open(const char *text, uint16_t *port);

/* "127.0.0.1:5000" or "[::1]:5000" for a received peer address. */
void serve_net_peer_text(const struct sockaddr_storage *ss, char *buf, size_t cap);

#endif /* SERVE_NET_H */
