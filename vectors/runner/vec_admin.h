/* SPDX-License-Identifier: MIT */
/* vec_admin.h - shared pieces of the administrative vector kinds
 * (vectors/tools/README.md "Administrative kinds"). */
#ifndef VEC_ADMIN_H
#define VEC_ADMIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "r_admin.h"
#include "vec_kinds.h"

/* The input of one admin test: either a sealed datagram (packet) with the
 * admin key, or a plaintext PDU alone (pdu). */
typedef struct {
    bool plain;               /* input pdu_hex */
    uint8_t *bytes;           /* packet or PDU, exact-size heap copy */
    size_t len;
    r_admin_key_t *key;       /* packet only */
} vec_admin_in_t;

/* Read admin_key + packet_hex, or pdu_hex. False with run set (BAD_INPUT, or
 * REJECTED with the rl-secret's class). */
bool vec_admin_read(const json_t *input, const vj_path_t *path, vec_admin_in_t *in, vec_run_t *run);
/* Cleanse and free. */
void vec_admin_free(vec_admin_in_t *in);

/* The schema class of an r_admin rejection. */
const char *vec_admin_class(r_admin_reason_t reason);
/* Reject run with the class of diag. */
void vec_admin_reject(vec_run_t *run, const r_admin_diag_t *diag);

/* The PDU of a plaintext input must be one whole PDU (pdu_size == length):
 * the frame checks this for a packet. False with run rejected. */
bool vec_admin_plain_size(const vec_admin_in_t *in, vec_run_t *run);

/* Header fields of a request (key_id, unique_id_hex, time_stamp_ms) into obj. */
bool vec_admin_header_json(json_t *obj, const r_admin_header_t *h);

void vec_kind_admin_tenant_mutation(const json_t *input, const vj_path_t *path, vec_run_t *run);
void vec_kind_admin_status_query(const json_t *input, const vj_path_t *path, vec_run_t *run);
void vec_kind_admin_metrics_query(const json_t *input, const vj_path_t *path, vec_run_t *run);
void vec_kind_admin_tenant_ack(const json_t *input, const vj_path_t *path, vec_run_t *run);
void vec_kind_admin_status_response(const json_t *input, const vj_path_t *path, vec_run_t *run);
void vec_kind_admin_metrics_response(const json_t *input, const vj_path_t *path, vec_run_t *run);

extern const char *const vec_admin_tenant_mutation_fields[];
extern const char *const vec_admin_status_query_fields[];
extern const char *const vec_admin_metrics_query_fields[];
extern const char *const vec_admin_tenant_ack_fields[];
extern const char *const vec_admin_status_response_fields[];
extern const char *const vec_admin_metrics_response_fields[];

#endif /* VEC_ADMIN_H */
