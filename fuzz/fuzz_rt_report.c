/* SPDX-License-Identifier: MIT */
/* fuzz_rt_report.c - latency report round trip (rl_encode_latency_report,
 * rl_latency_report_size, rl_auth_seal, rl_auth_open; wire_protocol.md
 * "Latency Report PDU", "Service Latency Block").
 *
 * Fuzz bytes become a structured report (auth mode, header, 0..41 service
 * blocks, an output capacity). Checks: OK / PROTOCOL (over 1200 bytes or cap)
 * / CONFIG (no reports, reserved header value) as computed here; the
 * independent decoder reads every block back; seal/open round-trip. */
#include "fuzz_rt_common.h"

#define MAX_IN 42u

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    uint8_t *copy = fuzz_dup(data, size);
    fuzz_reader_t r = fuzz_reader(copy, size);
    r_auth_type_t mode = (r_auth_type_t)(1 + fuzz_u8(&r) % 3);
    size_t cap = fuzz_read_cap(&r);
    rl_tenant_header_t hdr;
    fuzz_read_header(&r, &hdr);
    uint8_t nonce[12];
    fuzz_bytes(&r, nonce, sizeof nonce);
    uint32_t flip = fuzz_u32(&r);
    size_t n = fuzz_u8(&r) % MAX_IN;
    r_service_latency_report_t reports[MAX_IN];
    memset(reports, 0, sizeof reports);
    for (size_t i = 0; i < n; i++) {
        fuzz_bytes(&r, reports[i].latency_tracker_id, 16);
        reports[i].ttl_ms = fuzz_u32(&r);
        reports[i].max_samples = fuzz_u32(&r);
        reports[i].buffer_size = fuzz_u32(&r);
        reports[i].min_sample_threshold = fuzz_u32(&r);
        reports[i].observed_latency = fuzz_u32(&r);
    }
    free(copy);

    size_t want = 40 + fuzz_auth_size(mode) + 12 + 36 * n;
    FUZZ_CHECK(rl_latency_report_size(mode, n) == want);
    int expect = RCLIENT_OK;
    if (n == 0 || hdr.steering_feedback > 1 || hdr.tenant_mgmt_flag > 1) {
        expect = RCLIENT_ERR_CONFIG;
    } else if (want > 1200 || want > cap) {
        expect = RCLIENT_ERR_PROTOCOL;
    }
    uint8_t *buf = malloc(cap > 0 ? cap : 1);
    FUZZ_CHECK(buf != NULL);
    size_t out_len = 0xA5A5u;
    int rc = rl_encode_latency_report(buf, cap, mode, &hdr, reports, n, &out_len);
    FUZZ_CHECK(rc == expect);
    if (rc == RCLIENT_OK) {
        FUZZ_CHECK(out_len == want);
        fw_latency_report_t dec;
        FUZZ_CHECK(fw_decode_latency_report(buf, out_len, &dec) == NULL);
        fuzz_check_tenant(&dec.tenant, &hdr);
        FUZZ_CHECK(dec.auth == mode && dec.n_reports == n);
        for (size_t i = dec.auth_body_off; i < 40 + fuzz_auth_size(mode); i++) {
            FUZZ_CHECK(buf[i] == 0);
        }
        FUZZ_CHECK(memcmp(dec.reports, reports, n * sizeof reports[0]) == 0);
        fuzz_check_seal(mode, buf, out_len, nonce, flip);
    } else {
        FUZZ_CHECK(out_len == 0xA5A5u);
    }
    free(buf);
    return 0;
}
