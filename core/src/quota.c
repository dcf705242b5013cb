/* SPDX-License-Identifier: MIT */
/* quota.c - the packed API-key quota word, format version 1
 * (wire_protocol.md "API-key quota word, format version 1").
 *
 * Bits (bit 0 = least significant): 0..4 rate_exp, 5..9 latency_exp,
 * 10..14 labels_exp, 15..18 buffer_exp, 19..26 dedup_units, 27..31 window_exp. */
#include "rl_credential.h"

#define RATE_EXP_SHIFT 0u
#define LATENCY_EXP_SHIFT 5u
#define LABELS_EXP_SHIFT 10u
#define BUFFER_EXP_SHIFT 15u
#define DEDUP_UNITS_SHIFT 19u
#define WINDOW_EXP_SHIFT 27u

#define COUNT_EXP_MAX 24u      /* rate_exp and latency_exp: codes above 24 are invalid */
#define DEDUP_UNITS_MIN 1u     /* only codes 1..200 are valid */
#define DEDUP_UNITS_MAX 200u
#define DEDUP_UNIT_MS 10u
#define WINDOW_EXP_FULL 31u    /* code 31 means the complete u32 window range */
#define WINDOW_FULL_MS 4294967295u

static uint32_t field(uint32_t word, unsigned shift, unsigned width) {
    return (word >> shift) & ((1u << width) - 1u);
}

int r_client_decode_quota_word(uint32_t quota_word, r_api_key_quotas_t *out_quotas, r_key_diag_t *out_diag) {
    uint32_t rate_exp = field(quota_word, RATE_EXP_SHIFT, 5);
    uint32_t latency_exp = field(quota_word, LATENCY_EXP_SHIFT, 5);
    uint32_t labels_exp = field(quota_word, LABELS_EXP_SHIFT, 5);
    uint32_t buffer_exp = field(quota_word, BUFFER_EXP_SHIFT, 4);
    uint32_t dedup_units = field(quota_word, DEDUP_UNITS_SHIFT, 8);
    uint32_t window_exp = field(quota_word, WINDOW_EXP_SHIFT, 5);

    if (out_quotas == NULL) {
        rl_key_diag_set(out_diag, R_KEY_ERR_ARGUMENT, "argument: out_quotas is NULL");
        return RCLIENT_ERR_CONFIG;
    }
    if (rate_exp > COUNT_EXP_MAX) {
        rl_key_diag_set(out_diag, R_KEY_ERR_QUOTA, "quota: rate_exp %u above 24", (unsigned)rate_exp);
        return RCLIENT_ERR_CONFIG;
    }
    if (latency_exp > COUNT_EXP_MAX) {
        rl_key_diag_set(out_diag, R_KEY_ERR_QUOTA, "quota: latency_exp %u above 24", (unsigned)latency_exp);
        return RCLIENT_ERR_CONFIG;
    }
    if (dedup_units < DEDUP_UNITS_MIN || dedup_units > DEDUP_UNITS_MAX) {
        rl_key_diag_set(out_diag, R_KEY_ERR_QUOTA, "quota: dedup_units %u outside 1..200", (unsigned)dedup_units);
        return RCLIENT_ERR_CONFIG;
    }
    out_quotas->rate_buckets_max = 1u << rate_exp;
    out_quotas->latency_services_max = 1u << latency_exp;
    out_quotas->metrics_labels_max = 1u << labels_exp;
    out_quotas->latency_buffer_size_max = 1u << buffer_exp;
    out_quotas->dedup_ttl_ms_max = dedup_units * DEDUP_UNIT_MS;
    out_quotas->rate_window_size_ms_max = (window_exp == WINDOW_EXP_FULL) ? WINDOW_FULL_MS : (1u << window_exp);
    rl_key_diag_set(out_diag, R_KEY_OK, "%s", "");
    return RCLIENT_OK;
}

/* Exponent of an exact power of two no larger than 2^max_exp, or -1. */
static int exact_exp(uint32_t value, unsigned max_exp) {
    if (value == 0 || (value & (value - 1u)) != 0) {
        return -1;
    }
    unsigned e = 0;
    while ((value >> e) != 1u) {
        e++;
    }
    return e <= max_exp ? (int)e : -1;
}

int rl_quota_encode(const r_api_key_quotas_t *quotas, uint32_t *out_word) {
    if (quotas == NULL || out_word == NULL) {
        return RCLIENT_ERR_CONFIG;
    }
    int rate_exp = exact_exp(quotas->rate_buckets_max, COUNT_EXP_MAX);
    int latency_exp = exact_exp(quotas->latency_services_max, COUNT_EXP_MAX);
    int labels_exp = exact_exp(quotas->metrics_labels_max, 31);
    int buffer_exp = exact_exp(quotas->latency_buffer_size_max, 15);
    int window_exp = (quotas->rate_window_size_ms_max == WINDOW_FULL_MS)
                         ? (int)WINDOW_EXP_FULL
                         : exact_exp(quotas->rate_window_size_ms_max, 30);
    uint32_t dedup = quotas->dedup_ttl_ms_max;
    if (rate_exp < 0 || latency_exp < 0 || labels_exp < 0 || buffer_exp < 0 || window_exp < 0 ||
        dedup % DEDUP_UNIT_MS != 0 || dedup < DEDUP_UNITS_MIN * DEDUP_UNIT_MS ||
        dedup > DEDUP_UNITS_MAX * DEDUP_UNIT_MS) {
        return RCLIENT_ERR_CONFIG;
    }
    *out_word = ((uint32_t)rate_exp << RATE_EXP_SHIFT) | ((uint32_t)latency_exp << LATENCY_EXP_SHIFT) |
                ((uint32_t)labels_exp << LABELS_EXP_SHIFT) | ((uint32_t)buffer_exp << BUFFER_EXP_SHIFT) |
                ((dedup / DEDUP_UNIT_MS) << DEDUP_UNITS_SHIFT) | ((uint32_t)window_exp << WINDOW_EXP_SHIFT);
    return RCLIENT_OK;
}
