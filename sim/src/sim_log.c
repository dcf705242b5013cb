/* SPDX-License-Identifier: MIT */
/* sim_log.c - the event log: every record is a fixed 40-byte little-endian
 * block u64 at | u64 kind | u64 a | u64 b | u64 c folded into one SHA-256
 * (OpenSSL EVP), and optionally printed as "<at_us> <kind> <a> <b> <c>".
 *
 * Records are staged in a buffer and hashed in batches: SHA-256 is a stream
 * hash, so the digest equals hashing each record on its own, at a fraction of
 * the per-call cost. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "sim_engine.h"

#define RECORD_LEN 40u
#define BATCH_RECORDS 102u /* 4080 bytes per hash call */

struct sim_log {
    EVP_MD_CTX *md;
    FILE *text;
    uint64_t count;
    sim_log_observer_fn observer;
    void *observer_ctx;
    size_t staged; /* bytes in batch */
    uint8_t batch[RECORD_LEN * BATCH_RECORDS];
};

sim_log_t *sim_log_new(FILE *text) {
    sim_log_t *log = calloc(1, sizeof *log);
    if (log == NULL) {
        return NULL;
    }
    log->md = EVP_MD_CTX_new();
    if (log->md == NULL || EVP_DigestInit_ex(log->md, EVP_sha256(), NULL) != 1) {
        EVP_MD_CTX_free(log->md);
        free(log);
        return NULL;
    }
    log->text = text;
    return log;
}

void sim_log_free(sim_log_t *log) {
    if (log == NULL) {
        return;
    }
    EVP_MD_CTX_free(log->md);
    free(log);
}

static const char *kind_name(sim_log_kind_t kind) {
    static const char *const names[] = {NULL,    "submit", "send",  "drop",   "deliver", "server",
                                        "decision", "dns", "fault", "report", "steering",
                                        "xmit",  "shape",  "sreq",  "srep",   "rshape"};
    if ((unsigned)kind >= sizeof names / sizeof names[0] || names[kind] == NULL) {
        return "unknown";
    }
    return names[kind];
}

static void store_u64le(uint8_t *p, uint64_t v) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(p, &v, 8); /* the host order is the record's: one store */
#else
    for (int i = 0; i < 8; i++) {
        p[i] = (uint8_t)(v >> (8 * i));
    }
#endif
}

/* A digest update of a live SHA-256 context on in-memory data cannot fail;
 * the return value carries nothing to act on here. */
static void flush_batch(sim_log_t *log) {
    if (log->staged != 0) {
        (void)EVP_DigestUpdate(log->md, log->batch, log->staged);
        log->staged = 0;
    }
}

void sim_log_record(sim_log_t *log, sim_time_t at, sim_log_kind_t kind, uint64_t a, uint64_t b, uint64_t c) {
    if (log == NULL) {
        return;
    }
    uint8_t *p = log->batch + log->staged;
    store_u64le(p, at);
    store_u64le(p + 8, (uint64_t)kind);
    store_u64le(p + 16, a);
    store_u64le(p + 24, b);
    store_u64le(p + 32, c);
    log->staged += RECORD_LEN;
    if (log->staged == sizeof log->batch) {
        flush_batch(log);
    }
    log->count++;
    if (log->text != NULL) {
        fprintf(log->text, "%" PRIu64 " %s %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", at, kind_name(kind), a, b, c);
    }
    if (log->observer != NULL && kind != SIM_LOG_SEND && kind != SIM_LOG_DELIVER) {
        log->observer(log->observer_ctx, at, (int)kind, a, b, c, NULL, 0);
    }
}

void sim_log_record_bytes(sim_log_t *log, sim_time_t at, sim_log_kind_t kind, uint64_t a, uint64_t b, uint64_t c,
                          const uint8_t *data, size_t len) {
    sim_log_record(log, at, kind, a, b, c);
    if (log != NULL && log->observer != NULL && (kind == SIM_LOG_SEND || kind == SIM_LOG_DELIVER)) {
        log->observer(log->observer_ctx, at, (int)kind, a, b, c, data, len);
    }
}

void sim_log_set_observer(sim_log_t *log, sim_log_observer_fn fn, void *ctx) {
    if (log != NULL) {
        log->observer = fn;
        log->observer_ctx = ctx;
    }
}

uint64_t sim_log_count(const sim_log_t *log) { return log != NULL ? log->count : 0; }

/* Finalises a copy of the context with the staged bytes, so the log goes on. */
void sim_log_digest(const sim_log_t *log, char out[65]) {
    static const char hex[] = "0123456789abcdef";
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int md_len = 0;
    out[0] = '\0';
    if (log == NULL) {
        return;
    }
    EVP_MD_CTX *copy = EVP_MD_CTX_new();
    if (copy == NULL || EVP_MD_CTX_copy_ex(copy, log->md) != 1 ||
        EVP_DigestUpdate(copy, log->batch, log->staged) != 1 || EVP_DigestFinal_ex(copy, md, &md_len) != 1 ||
        md_len != 32) {
        EVP_MD_CTX_free(copy);
        return;
    }
    EVP_MD_CTX_free(copy);
    for (unsigned int i = 0; i < md_len; i++) {
        out[2 * i] = hex[md[i] >> 4];
        out[2 * i + 1] = hex[md[i] & 15];
    }
    out[64] = '\0';
}
