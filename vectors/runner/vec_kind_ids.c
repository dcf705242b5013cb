/* SPDX-License-Identifier: MIT */
/* vec_kind_ids.c - adapters for content-defined IDs and server identity:
 * bucket_id, tracker_id (wire_protocol.md "Content-defined resource identity",
 * "Content-defined latency-tracker identity"), server_id (wire_protocol.md
 * "Structured server_id Format") and srv_target (r-client.md 3.1). */
#include <stdlib.h>

#include "vec_kinds.h"

static void accept_id(vec_run_t *run, int rc, const char *fn, const uint8_t id[R_CLIENT_ID_LEN])
{
    if (rc != RCLIENT_OK) {
        /* Only a name over 4 GiB or a hash failure gets here. */
        vec_run_reject(run, "range", "%s: %s", fn, r_client_strerror(rc));
        return;
    }
    vec_run_accept(run, json_pack("{s:o}", "id_hex", vec_json_hex(id, R_CLIENT_ID_LEN)));
}

void vec_kind_bucket_id(const json_t *input, const vj_path_t *path, vec_run_t *run)
{
    uint8_t *name = NULL;
    size_t name_len = 0;
    uint32_t window_size_ms = 0, rate_limit = 0;
    if (!vj_name(input, path, &name, &name_len, &run->err) ||
        !vj_u32(input, path, "window_size_ms", &window_size_ms, &run->err) ||
        !vj_u32(input, path, "rate_limit", &rate_limit, &run->err)) {
        run->status = VEC_RUN_BAD_INPUT;
        free(name);
        return;
    }
    uint8_t id[R_CLIENT_ID_LEN];
    int rc = r_client_derive_bucket_id(name, name_len, window_size_ms, rate_limit, id);
    free(name);
    accept_id(run, rc, "r_client_derive_bucket_id", id);
}

void vec_kind_tracker_id(const json_t *input, const vj_path_t *path, vec_run_t *run)
{
    uint8_t *name = NULL;
    size_t name_len = 0;
    uint32_t ttl_ms = 0, max_samples = 0, buffer_size = 0, min_sample_threshold = 0;
    if (!vj_name(input, path, &name, &name_len, &run->err) ||
        !vj_u32(input, path, "ttl_ms", &ttl_ms, &run->err) ||
        !vj_u32(input, path, "max_samples", &max_samples, &run->err) ||
        !vj_u32(input, path, "buffer_size", &buffer_size, &run->err) ||
        !vj_u32(input, path, "min_sample_threshold", &min_sample_threshold, &run->err)) {
        run->status = VEC_RUN_BAD_INPUT;
        free(name);
        return;
    }
    uint8_t id[R_CLIENT_ID_LEN];
    int rc = r_client_derive_latency_tracker_id(name, name_len, ttl_ms, max_samples, buffer_size,
                                                min_sample_threshold, id);
    free(name);
    accept_id(run, rc, "r_client_derive_latency_tracker_id", id);
}

void vec_kind_server_id(const json_t *input, const vj_path_t *path, vec_run_t *run)
{
    uint64_t server_id = 0;
    if (!vj_dec_u64(input, path, "server_id", &server_id, &run->err)) {
        run->status = VEC_RUN_BAD_INPUT;
        return;
    }
    /* Every 64-bit value splits into fields; the decoder cannot reject. */
    r_server_id_parts_t parts = r_client_decode_server_id(server_id);
    vec_run_accept(run, json_pack("{s:o, s:I, s:I}", "server_start_s", vec_json_dec_u64(parts.server_start_s),
                                  "listener_id", (json_int_t)parts.listener_id, "node_id",
                                  (json_int_t)parts.node_id));
}

void vec_kind_srv_target(const json_t *input, const vj_path_t *path, vec_run_t *run)
{
    const char *target = NULL;
    size_t target_len = 0;
    if (!vj_string(input, path, "target", &target, &target_len, &run->err)) {
        run->status = VEC_RUN_BAD_INPUT;
        return;
    }
    uint64_t server_id = 0;
    /* target_len 0 means NUL-terminated; an empty string is then still empty. */
    int rc = r_client_parse_srv_target(target, target_len, &server_id);
    if (rc != RCLIENT_OK) {
        /* Schema: a target that is not a conforming member is class range. */
        vec_run_reject(run, "range", "r_client_parse_srv_target: %s", r_client_strerror(rc));
        return;
    }
    vec_run_accept(run, json_pack("{s:o}", "server_id", vec_json_dec_u64(server_id)));
}
