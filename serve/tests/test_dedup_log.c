/* SPDX-License-Identifier: MIT */
/* test_dedup_log.c - serve's ERROR log of dedup evictions (wire_protocol.md
 * Degraded-State Behavior: "the server MUST emit ERROR logs"; docs/serve.md
 * "Read the log"): a datagram whose answer evicts live dedup entries writes
 * a "dedup_evicted" ERROR event in --log, and the first of an episode a text
 * ERROR line whether or not --log is on. */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <jansson.h>

#include "serve_datagram.h"
#include "sim_server_test_util.h"

typedef struct {
    tu_fix_t *f;
    serve_log_t log;
    char *buf, *alert_buf;
    size_t buf_len, alert_len;
} fx_t;

static void fx_open(fx_t *x, bool with_log) {
    memset(x, 0, sizeof *x);
    r_api_key_quotas_t q = tu_default_quotas();
    sim_server_params_t p = tu_params();
    p.dedup_capacity = 4;
    x->f = tu_fix_new(R_AUTH_NONE, &q, &p);
    x->f->ttl = 300;
    x->log.f = with_log ? open_memstream(&x->buf, &x->buf_len) : NULL;
    x->log.alert = open_memstream(&x->alert_buf, &x->alert_len);
    assert_non_null(x->log.alert);
}

static void fx_close(fx_t *x) {
    if (x->log.f != NULL) {
        fclose(x->log.f);
    }
    fclose(x->log.alert);
    free(x->buf);
    free(x->alert_buf);
    tu_fix_free(x->f);
}

/* Request #n composed and handled at now through serve's datagram path. */
static sim_server_verdict_t fx_send(fx_t *x, uint64_t now, uint32_t n) {
    r_resource_request_t r = tu_resource("api", 10000, 100, 1);
    uint8_t buf[1200], uid[16], out[1200];
    tu_uid(uid, n);
    size_t len = tu_request(&x->f->k, buf, uid, now, x->f->ttl, NULL, 0, &r, 1, NULL);
    size_t out_len = 0;
    sim_server_result_t res;
    serve_log_in_t e = {0};
    e.wall_ms = now;
    e.server = 2;
    e.peer = "127.0.0.1:5000";
    return serve_handle_datagram(x->f->s, now, buf, len, out, sizeof out, &out_len, &res, &x->log, &e);
}

static size_t count_lines(const char *s, const char *needle) {
    size_t n = 0;
    for (const char *p = s; p != NULL && (p = strstr(p, needle)) != NULL; p++) {
        n++;
    }
    return n;
}

static void test_eviction_logged_as_error_event(void **state) {
    (void)state;
    fx_t x;
    fx_open(&x, true);
    for (uint32_t i = 0; i < 6; i++) {
        assert_int_equal(fx_send(&x, TU_T0 + i, i + 1), SIM_SRV_ANSWERED);
    }
    fflush(x.log.f);
    fflush(x.log.alert);
    /* Two evictions (#1 and #2, inside their 300 ms windows): two events. */
    assert_int_equal(count_lines(x.buf, "\"event\":\"dedup_evicted\""), 2);
    const char *last = strstr(strstr(x.buf, "\"event\":\"dedup_evicted\"") + 1, "\"event\":\"dedup_evicted\"");
    while (last > x.buf && last[-1] != '\n') {
        last--;
    }
    json_error_t err;
    json_t *o = json_loadb(last, strcspn(last, "\n"), 0, &err);
    assert_non_null(o);
    assert_string_equal(json_string_value(json_object_get(o, "dir")), "event");
    assert_string_equal(json_string_value(json_object_get(o, "level")), "ERROR");
    assert_int_equal(json_integer_value(json_object_get(o, "server")), 2);
    assert_int_equal(json_integer_value(json_object_get(o, "evicted")), 1);
    assert_string_equal(json_string_value(json_object_get(o, "evicted_key_id")), "4660"); /* 0x1234 */
    assert_int_equal(json_integer_value(json_object_get(o, "evicted_total")), 2);
    assert_int_equal(json_integer_value(json_object_get(o, "dedup_capacity")), 4);
    assert_int_equal(json_integer_value(json_object_get(o, "ts_ms")), (json_int_t)(TU_T0 + 5));
    json_decref(o);
    /* One text ERROR line: the episode began with the first eviction. */
    assert_int_equal(count_lines(x.alert_buf, "serve: ERROR server 2: dedup cache full (capacity 4)"), 1);
    assert_int_equal(count_lines(x.alert_buf, "\n"), 1);
    fx_close(&x);
}

static void test_eviction_error_line_without_log(void **state) {
    (void)state;
    fx_t x;
    fx_open(&x, false);
    for (uint32_t i = 0; i < 5; i++) {
        assert_int_equal(fx_send(&x, TU_T0 + i, i + 1), SIM_SRV_ANSWERED);
    }
    fflush(x.log.alert);
    assert_non_null(strstr(x.alert_buf, "serve: ERROR server 2: dedup cache full (capacity 4): live entries evicted"));
    fx_close(&x);
}

static void test_no_eviction_no_error(void **state) {
    (void)state;
    fx_t x;
    fx_open(&x, true);
    for (uint32_t i = 0; i < 4; i++) { /* fits */
        assert_int_equal(fx_send(&x, TU_T0 + i, i + 1), SIM_SRV_ANSWERED);
    }
    assert_int_equal(fx_send(&x, TU_T0 + 300, 5), SIM_SRV_ANSWERED); /* #1's window is over: no eviction */
    fflush(x.log.f);
    fflush(x.log.alert);
    assert_int_equal(count_lines(x.buf, "dedup_evicted"), 0);
    assert_int_equal(x.alert_len, 0);
    fx_close(&x);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_eviction_logged_as_error_event),
        cmocka_unit_test(test_eviction_error_line_without_log),
        cmocka_unit_test(test_no_eviction_no_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
