/* test_log.c - the serve --log line (docs/serve.md "Read the log"): every
 * line is one JSON object a JSON reader parses, and the Tenant Header key_id
 * is written as a decimal string so that 64-bit values (2^63 and up, above
 * what JSON numbers hold exactly in most readers) survive a round trip. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "serve_log.h"

/* A datagram that starts with a Tenant TLV: tag "RL" (0x4C52 little-endian),
 * length, key_id at offset 4 and unique_id at offset 12 (wire_protocol.md
 * Tenant Header). */
static void tenant_dgram(uint8_t d[40], uint64_t key_id) {
    memset(d, 0, 40);
    d[0] = 0x52;
    d[1] = 0x4C;
    for (int i = 0; i < 8; i++) {
        d[4 + i] = (uint8_t)(key_id >> (8 * i));
    }
    for (int i = 0; i < 16; i++) {
        d[12 + i] = (uint8_t)(0xA0 + i);
    }
}

/* Log one received datagram and parse the line back. */
static json_t *log_and_parse(uint64_t key_id) {
    uint8_t d[40];
    tenant_dgram(d, key_id);
    FILE *f = tmpfile();
    assert_non_null(f);
    serve_log_t l = {.f = f, .owned = false};
    serve_log_in_t e = {.wall_ms = 5, .server = 0, .server_id = 7, .peer = "127.0.0.1:5000", .dgram = d,
                        .len = sizeof d, .verdict = "drop_tenant", .model_verdict = -1, .result = NULL};
    serve_log_in(&l, &e);
    rewind(f);
    char line[2048];
    assert_non_null(fgets(line, sizeof line, f));
    fclose(f);
    json_error_t err;
    json_t *o = json_loads(line, 0, &err);
    if (o == NULL) {
        fail_msg("not JSON: %s: %s", err.text, line);
    }
    return o;
}

static void test_key_id_top_bit_set_round_trips_as_string(void **state) {
    (void)state;
    json_t *o = log_and_parse(UINT64_C(0xFFFFFFFFFFFFFFFF));
    json_t *k = json_object_get(o, "key_id");
    assert_true(json_is_string(k));
    assert_string_equal(json_string_value(k), "18446744073709551615");
    json_decref(o);
}

static void test_key_id_small_is_string_too(void **state) {
    (void)state;
    json_t *o = log_and_parse(1007);
    assert_string_equal(json_string_value(json_object_get(o, "key_id")), "1007");
    assert_string_equal(json_string_value(json_object_get(o, "unique_id")), "a0a1a2a3a4a5a6a7a8a9aaabacadaeaf");
    json_decref(o);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_key_id_top_bit_set_round_trips_as_string),
        cmocka_unit_test(test_key_id_small_is_string_too),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
