/* r_client_io.h - host hooks of the sans-IO client core (api.md "Layers").
 *
 * The core never reads a clock, a socket or a random source directly: the host
 * supplies them here. This header grows with the client core; the foundation
 * defines the random source used for request IDs (unique_id) and AES nonces.
 */
#ifndef R_CLIENT_IO_H
#define R_CLIENT_IO_H

#include <stddef.h>
#include <stdint.h>

#include "r_client_export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Fill buf[0..len) with cryptographically secure random bytes.
 * ctx:  the host's opaque pointer, passed back unchanged.
 * Returns 0 on success, any non-zero value on failure. On failure the core
 * fails closed: nothing is sent and the caller sees RCLIENT_ERR_AUTH.
 * A NULL hook selects the default source, OpenSSL RAND_bytes. */
typedef int (*r_random_fn)(void *ctx, uint8_t *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* R_CLIENT_IO_H */
