/* SPDX-License-Identifier: MIT */
/* serve_log.c - JSON lines for serve (contract: serve_log.h). Every string
 * written is either static ASCII of this program or escaped by put_string. */
#define _POSIX_C_SOURCE 200809L
#include "serve_log.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rl_le.h"

int serve_log_open(serve_log_t *l, const char *path, uint64_t max_bytes) {
    memset(l, 0, sizeof *l);
    l->owned = strcmp(path, "-") != 0;
    if (l->owned && (l->path = strdup(path)) == NULL) {
        return -1;
    }
    l->max_bytes = l->owned ? max_bytes : 0;
    l->f = l->owned ? fopen(path, "a") : stdout;
    if (l->f == NULL) {
        int e = errno;
        free(l->path);
        l->path = NULL;
        errno = e;
        return -1;
    }
    struct stat st;
    l->waits = fstat(fileno(l->f), &st) != 0 || !S_ISREG(st.st_mode);
    return 0;
}

/* Whether a line may be written now (serve_log.h "room"). */
static bool line_begin(serve_log_t *l) {
    if (l->f == NULL) {
        return false;
    }
    if (l->room == NULL || !l->waits || l->room(l->room_ctx, fileno(l->f))) {
        return true;
    }
    l->unwritten++;
    return false;
}

void serve_log_close(serve_log_t *l) {
    if (l->f != NULL && l->owned) {
        fclose(l->f);
    } else if (l->f != NULL) {
        fflush(l->f);
    }
    l->f = NULL;
    free(l->path);
    l->path = NULL;
}

/* ---- --log-max-bytes ---------------------------------------------------------- */

/* A rotation failed: logging stops; say so at once on the alert stream
 * (the stop summary repeats it). */
static void rotation_failed(serve_log_t *l, int err, const char *step, const char *old) {
    l->rotate_errno = err;
    FILE *a = l->alert != NULL ? l->alert : stderr;
    fprintf(a, "serve: ERROR: --log %s: rotation failed (%s%s: %s): logging stopped\n", l->path, step, old,
            strerror(err));
    fflush(a);
}

/* End of a line: flush it, and rotate when the file has reached max_bytes.
 * The size is that of the file serve writes, wherever it is now: when another
 * program moved or deleted PATH (logrotate without copytruncate, mv, rm),
 * there is nothing to rename and a new PATH is begun. */
static void line_done(serve_log_t *l) {
    fflush(l->f);
    if (l->max_bytes == 0) {
        return;
    }
    off_t size = lseek(fileno(l->f), 0, SEEK_END); /* append mode: the file's size */
    if (size < 0 || (uint64_t)size < l->max_bytes) {
        return;
    }
    fclose(l->f);
    l->f = NULL;
    size_t n = strlen(l->path) + 3;
    char *old = malloc(n);
    if (old == NULL) {
        rotation_failed(l, ENOMEM, "", "no memory for the name");
        return;
    }
    snprintf(old, n, "%s.1", l->path);
    if (rename(l->path, old) != 0 && errno != ENOENT) {
        rotation_failed(l, errno, "renaming it to ", old);
    } else if ((l->f = fopen(l->path, "a")) == NULL) {
        rotation_failed(l, errno, "reopening it", "");
    } else {
        l->rotations++;
    }
    free(old);
}

static void put_string(FILE *f, const char *key, const char *s) {
    fprintf(f, ",\"%s\":\"", key);
    for (const unsigned char *p = (const unsigned char *)s; *p != '\0'; p++) {
        if (*p == '"' || *p == '\\') {
            fprintf(f, "\\%c", *p);
        } else if (*p < 0x20 || *p >= 0x7f) {
            fprintf(f, "\\u%04x", *p);
        } else {
            fputc(*p, f);
        }
    }
    fputc('"', f);
}

static void put_hex(FILE *f, const char *key, const uint8_t *p, size_t n) {
    fprintf(f, ",\"%s\":\"", key);
    for (size_t i = 0; i < n; i++) {
        fprintf(f, "%02x", p[i]);
    }
    fputc('"', f);
}

static void put_head(FILE *f, uint64_t wall_ms, const char *dir, unsigned server, uint64_t server_id) {
    fprintf(f, "{\"ts_ms\":%" PRIu64 ",\"dir\":\"%s\",\"server\":%u,\"server_id\":%" PRIu64, wall_ms, dir, server,
            server_id);
}

/* The auth TLV type at offset 40 (wire_protocol.md "Auth Header"), readable
 * in every mode: the tenant header and the auth header are never encrypted. */
static const char *auth_name(const uint8_t *d, size_t len) {
    if (len < 44) {
        return NULL;
    }
    switch (rl_load_u16(d + 40)) {
    case 0x414E: return "none";
    case 0x4143: return "cookie";
    case 0x4541: return "aes";
    default: return "unknown";
    }
}

/* What the datagram was, as far as the model got: a decoded PDU type, or for
 * a plaintext mode the type field after the auth TLV, else "datagram". */
static const char *what_of(const serve_log_in_t *e) {
    const sim_server_result_t *r = e->result;
    if (r != NULL) {
        switch (r->admin_pdu) {
        case 0x544D: return "tenant_mutation";
        case 0x5153: return "status_query";
        case 0x514D: return "metrics_query";
        default: break;
        }
    }
    if (e->len >= 40 && rl_load_u16(e->dgram) == 0x4C52 && e->dgram[37] == 1) {
        return "admin"; /* tenant_mgmt_flag = 1, not decrypted (no key, or a tag that does not verify) */
    }
    if (r != NULL && r->is_request) {
        return "rate_request";
    }
    switch (e->model_verdict) {
    case SIM_SRV_REPORT:
    case SIM_SRV_DROP_STALE:
    case SIM_SRV_DROP_QUOTA:
    case SIM_SRV_DROP_MISMATCH: return "latency_report"; /* decoded, and not a rate request */
    default: break;
    }
    const char *auth = auth_name(e->dgram, e->len);
    if (auth != NULL && (strcmp(auth, "none") == 0 || strcmp(auth, "cookie") == 0)) {
        size_t off = 40u + rl_load_u16(e->dgram + 42);
        if (off + 2 <= e->len) {
            switch (rl_load_u16(e->dgram + off)) {
            case 0x5452: return "rate_request";
            case 0x524C: return "latency_report";
            case 0x5252: return "rate_response";
            default: break;
            }
        }
    }
    return "datagram";
}

void serve_log_in(serve_log_t *l, const serve_log_in_t *e) {
    if (!line_begin(l)) {
        return;
    }
    FILE *f = l->f;
    put_head(f, e->wall_ms, "in", e->server, e->server_id);
    put_string(f, "peer", e->peer);
    fprintf(f, ",\"len\":%zu", e->len);
    put_string(f, "what", what_of(e));
    const char *auth = auth_name(e->dgram, e->len);
    if (auth != NULL) {
        put_string(f, "auth", auth);
    }
    if (e->len >= 40 && rl_load_u16(e->dgram) == 0x4C52) { /* a tenant TLV: key_id, unique_id at fixed offsets */
        fprintf(f, ",\"key_id\":\"%" PRIu64 "\"", rl_load_u64(e->dgram + 4)); /* a string: 64-bit values exceed what JSON readers hold exactly */
        put_hex(f, "unique_id", e->dgram + 12, 16);
    }
    put_string(f, "verdict", e->verdict);
    const sim_server_result_t *r = e->result;
    if (r != NULL && (e->model_verdict == SIM_SRV_ANSWERED || e->model_verdict == SIM_SRV_REPLAYED)) {
        fprintf(f, ",\"allowed\":%s", r->allowed ? "true" : "false");
        if (e->model_verdict == SIM_SRV_ANSWERED) {
            fprintf(f, ",\"tokens_granted\":%" PRIu32, r->tokens_granted);
        }
    }
    if (r != NULL && r->admin_pdu == 0x544D && (r->admin_op == 0x03 || r->admin_op == 0x05)) {
        put_string(f, "operation", r->admin_op == 0x03 ? "add" : "remove");
    }
    if (r != NULL && r->why.where != NULL) {
        char text[256];
        sim_server_reason_text(&r->why, text, sizeof text);
        put_string(f, "reason", text);
    }
    fputs("}\n", f);
    line_done(l);
}

void serve_log_out(serve_log_t *l, const serve_log_out_t *e) {
    if (!line_begin(l)) {
        return;
    }
    FILE *f = l->f;
    put_head(f, e->wall_ms, "out", e->server, e->server_id);
    put_string(f, "peer", e->peer);
    fprintf(f, ",\"len\":%zu", e->len);
    put_string(f, "what", e->what);
    if (e->note != NULL) {
        put_string(f, "note", e->note);
    }
    if (e->len >= 28) {
        put_hex(f, "unique_id", e->dgram + 12, 16);
    }
    put_string(f, "verdict", e->verdict);
    fprintf(f, ",\"allowed\":%s,\"delay_ms\":%" PRIu32, e->allowed ? "true" : "false", e->delay_ms);
    if (e->lost) {
        fputs(",\"lost\":true", f);
    }
    fputs("}\n", f);
    line_done(l);
}

void serve_log_restart(serve_log_t *l, uint64_t wall_ms, unsigned server, uint64_t old_id, uint64_t new_id,
                       const char *cause) {
    if (!line_begin(l)) {
        return;
    }
    put_head(l->f, wall_ms, "event", server, new_id);
    fprintf(l->f, ",\"event\":\"restart\",\"old_server_id\":%" PRIu64, old_id);
    put_string(l->f, "cause", cause);
    fputs("}\n", l->f);
    line_done(l);
}

void serve_log_dedup_evicted(serve_log_t *l, const serve_log_evict_t *e) {
    if (e->began) {
        FILE *a = l->alert != NULL ? l->alert : stderr;
        fprintf(a,
                "serve: ERROR server %u: dedup cache full (capacity %" PRIu32 "): live entries evicted inside their "
                "window (key_id %" PRIu64 "), replay of duplicates not guaranteed until their windows end "
                "(Status degraded_reason_code 1; %" PRIu64 " evicted so far)\n",
                e->server, e->capacity, e->evicted_key_id, e->evicted_total);
        fflush(a);
    }
    if (!line_begin(l)) {
        return;
    }
    put_head(l->f, e->wall_ms, "event", e->server, e->server_id);
    fprintf(l->f,
            ",\"event\":\"dedup_evicted\",\"level\":\"ERROR\",\"evicted\":%" PRIu32 ",\"evicted_key_id\":\"%" PRIu64
            "\",\"evicted_total\":%" PRIu64 ",\"dedup_capacity\":%" PRIu32 "}\n",
            e->evicted, e->evicted_key_id, e->evicted_total, e->capacity);
    line_done(l);
}
