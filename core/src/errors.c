/* SPDX-License-Identifier: MIT */
/* errors.c - names of the public error codes (api.md "Error Codes"). */
#include "r_client.h"

const char *r_client_strerror(int err) {
    switch (err) {
    case RCLIENT_OK: return "RCLIENT_OK";
    case RCLIENT_ERR_TIMEOUT: return "RCLIENT_ERR_TIMEOUT";
    case RCLIENT_ERR_DNS: return "RCLIENT_ERR_DNS";
    case RCLIENT_ERR_IO: return "RCLIENT_ERR_IO";
    case RCLIENT_ERR_PROTOCOL: return "RCLIENT_ERR_PROTOCOL";
    case RCLIENT_ERR_AUTH: return "RCLIENT_ERR_AUTH";
    case RCLIENT_ERR_CONFIG: return "RCLIENT_ERR_CONFIG";
    case RCLIENT_ERR_NOMEM: return "RCLIENT_ERR_NOMEM";
    default: return "RCLIENT_ERR_UNKNOWN";
    }
}
