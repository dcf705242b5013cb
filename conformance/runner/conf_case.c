/* SPDX-License-Identifier: MIT */
/* conf_case.c - parse an HA decision case (conformance/README.md "Envelope",
 * "Servers", "Request", "Events"). Every object is closed: an unknown field is
 * an error naming its path, like a missing or mistyped one. */
#include "conf_case.h"

#include <string.h>

#include "vec_kinds.h"

static const conf_variant_info_t variants[CONF_VAR_COUNT] = {
    [CONF_VAR_NONE] = {"none", CONF_CLASS_VALID, false, R_AUTH_UNSPECIFIED, 0, 0, false},
    [CONF_VAR_EMPTY] = {"empty", CONF_CLASS_MALFORMED, false, R_AUTH_UNSPECIFIED, 0, 0, false},
    [CONF_VAR_TENANT_TRUNCATED] = {"tenant_truncated", CONF_CLASS_MALFORMED, false, R_AUTH_UNSPECIFIED, 0, 0, false},
    [CONF_VAR_TENANT_TYPE] = {"tenant_type", CONF_CLASS_MALFORMED, false, R_AUTH_UNSPECIFIED, 0, 0, false},
    [CONF_VAR_TENANT_PADDING] = {"tenant_padding", CONF_CLASS_MALFORMED, false, R_AUTH_UNSPECIFIED, 0, 0, false},
    [CONF_VAR_STEERING_VALUE] = {"steering_value", CONF_CLASS_MALFORMED, false, R_AUTH_UNSPECIFIED, 0, 0, false},
    [CONF_VAR_TRUNCATED] = {"truncated", CONF_CLASS_MALFORMED, true, R_AUTH_UNSPECIFIED, 0, 0, false},
    [CONF_VAR_PDU_SIZE] = {"pdu_size", CONF_CLASS_MALFORMED, true, R_AUTH_UNSPECIFIED, 0, 0, false},
    [CONF_VAR_RESERVED_NONZERO] = {"reserved_nonzero", CONF_CLASS_MALFORMED, true, R_AUTH_UNSPECIFIED, 0, 0, false},
    [CONF_VAR_WRONG_AUTH_TYPE] = {"wrong_auth_type", CONF_CLASS_AUTH, false, R_AUTH_UNSPECIFIED, 0, 0, false},
    [CONF_VAR_BAD_COOKIE] = {"bad_cookie", CONF_CLASS_AUTH, false, R_AUTH_COOKIE, 0, 0, false},
    [CONF_VAR_BAD_TAG] = {"bad_tag", CONF_CLASS_AUTH, false, R_AUTH_AES, 0, 0, false},
    [CONF_VAR_BAD_CIPHERTEXT] = {"bad_ciphertext", CONF_CLASS_AUTH, false, R_AUTH_AES, 0, 0, false},
    [CONF_VAR_WRONG_UNIQUE_ID] = {"wrong_unique_id", CONF_CLASS_CORRELATION, true, R_AUTH_UNSPECIFIED, 0, 0, false},
    [CONF_VAR_UNTRUSTED_SERVER_ID] = {"untrusted_server_id", CONF_CLASS_CORRELATION, true, R_AUTH_UNSPECIFIED, 0, 0,
                                      false},
    [CONF_VAR_WRONG_PDU_TYPE] = {"wrong_pdu_type", CONF_CLASS_CORRELATION, true, R_AUTH_UNSPECIFIED, 0, 0, false},
    [CONF_VAR_MGMT_FLAG] = {"mgmt_flag", CONF_CLASS_CORRELATION, true, R_AUTH_UNSPECIFIED, 0, 0, false},
    [CONF_VAR_REFLECTED_REQUEST] = {"reflected_request", CONF_CLASS_CORRELATION, false, R_AUTH_UNSPECIFIED, 0, 0,
                                    false},
    [CONF_VAR_RESOURCE_REPEATED] = {"resource_repeated", CONF_CLASS_MALFORMED, true, R_AUTH_UNSPECIFIED, 0, 2, true},
    [CONF_VAR_RESOURCE_OMITTED] = {"resource_omitted", CONF_CLASS_MALFORMED, true, R_AUTH_UNSPECIFIED, 0, 1, true},
    [CONF_VAR_RESOURCES_SWAPPED] = {"resources_swapped", CONF_CLASS_MALFORMED, true, R_AUTH_UNSPECIFIED, 0, 2, true},
    [CONF_VAR_GUARD_REPEATED] = {"guard_repeated", CONF_CLASS_MALFORMED, true, R_AUTH_UNSPECIFIED, 2, 0, true},
    [CONF_VAR_AUTH_NONE] = {"auth_none", CONF_CLASS_AUTH, false, R_AUTH_UNSPECIFIED, 0, 0, false},
};

const conf_variant_info_t *conf_variant_info(conf_variant_t v)
{
    return (v > CONF_VAR_NONE && v < CONF_VAR_COUNT) ? &variants[v] : &variants[CONF_VAR_NONE];
}

static const char *const areas[] = {"9.3.3",  "9.3.4",      "9.3.5",   "preset",   "schedule", "trace",
                                    "datagram", "timer",    "cancel",  "send_failure", "ranking", "steering",
                                    "decision", "policy",   NULL};

static const char *const presets[] = {"default", "api_md", "strict_oldest", "oldest_preferred", "fastest_valid",
                                      NULL}; /* index = r_policy_preset_t */

bool conf_is_case_file(const json_t *root)
{
    return json_is_object(root) && vj_string_is(json_object_get(root, "schema"), CONF_SCHEMA_ID);
}

bool conf_keys_known(const json_t *obj, const vj_path_t *path, const char *const *allowed, vj_err_t *e)
{
    const char *key;
    json_t *value;
    json_object_foreach((json_t *)obj, key, value) {
        bool known = false;
        for (size_t i = 0; allowed[i] != NULL && !known; i++)
            known = strcmp(key, allowed[i]) == 0;
        if (!known) {
            vj_path_t p = vj_path_key(path, key);
            return vj_fail(e, &p, "unknown field");
        }
    }
    return true;
}

bool conf_opt_bool(const json_t *obj, const vj_path_t *base, const char *key, bool *out, vj_err_t *e)
{
    return json_object_get(obj, key) == NULL || vj_bool(obj, base, key, out, e);
}

/* obj[key] is one of the NULL-terminated names; *out its index. */
static bool one_of(const json_t *obj, const vj_path_t *base, const char *key, const char *const *names,
                   const char *what, int *out, vj_err_t *e)
{
    const char *s = NULL;
    size_t len = 0;
    char got[96];
    if (!vj_string(obj, base, key, &s, &len, e))
        return false;
    for (int i = 0; names[i] != NULL; i++) {
        if (vj_string_is(json_object_get(obj, key), names[i])) {
            *out = i;
            return true;
        }
    }
    vj_path_t p = vj_path_key(base, key);
    return vj_fail(e, &p, "expected %s, got %s", what, vj_quote(s, len, got, sizeof got));
}

/* A string copied into buf (cap bytes with the NUL), 1..cap-1 bytes, no NUL inside. */
static bool copy_string(const json_t *obj, const vj_path_t *base, const char *key, char *buf, size_t cap,
                        vj_err_t *e)
{
    const char *s = NULL;
    size_t len = 0;
    if (!vj_string(obj, base, key, &s, &len, e))
        return false;
    vj_path_t p = vj_path_key(base, key);
    if (len == 0 || len >= cap || memchr(s, '\0', len) != NULL)
        return vj_fail(e, &p, "expected a string of 1..%zu bytes without NUL, got %zu bytes", cap - 1, len);
    memcpy(buf, s, len);
    buf[len] = '\0';
    return true;
}

bool conf_server_ref(const json_t *obj, const vj_path_t *base, const char *key, const conf_case_t *c, int *out,
                     vj_err_t *e)
{
    const char *s = NULL;
    size_t len = 0;
    char got[96];
    if (!vj_string(obj, base, key, &s, &len, e))
        return false;
    for (size_t i = 0; i < c->n_servers; i++) {
        if (vj_string_is(json_object_get(obj, key), c->server_names[i])) {
            *out = (int)i;
            return true;
        }
    }
    vj_path_t p = vj_path_key(base, key);
    return vj_fail(e, &p, "unknown server %s", vj_quote(s, len, got, sizeof got));
}

static bool id_ok(const char *s)
{
    for (; *s != '\0'; s++) {
        if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_'))
            return false;
    }
    return true;
}

/* A non-empty array of strings. */
static bool string_array(const json_t *root, const vj_path_t *base, const char *key, bool required, vj_err_t *e)
{
    const json_t *arr = NULL;
    size_t n = 0;
    const char *s = NULL;
    size_t len = 0;
    if (!required && json_object_get(root, key) == NULL)
        return true;
    if (!vj_array(root, base, key, &arr, &n, e))
        return false;
    vj_path_t p = vj_path_key(base, key);
    if (required && n == 0)
        return vj_fail(e, &p, "expected at least one entry, got an empty array");
    for (size_t i = 0; i < n; i++) {
        vj_path_t q = vj_path_index(&p, i);
        if (!vj_v_string(json_array_get(arr, i), &q, &s, &len, e))
            return false;
    }
    return true;
}

static bool parse_header(const json_t *root, conf_case_t *c, vj_err_t *e)
{
    static const char *const keys[] = {"schema", "id",      "area",    "title",         "spec",   "flags",
                                       "key",    "auth",    "policy",  "preset",        "servers", "request",
                                       "timers", "events",  "expect",  "send_failures", NULL};
    static const char *const auths[] = {"none", "cookie", "aes", "any", NULL};
    static const char *const timer_modes[] = {"auto", "manual", NULL};
    const vj_path_t none = {""};
    const char *s = NULL;
    size_t len = 0;
    int idx = 0;
    if (!conf_keys_known(root, &none, keys, e) || !copy_string(root, &none, "id", c->id, sizeof c->id, e))
        return false;
    if (!id_ok(c->id))
        return vj_fail(e, &(vj_path_t){"id"}, "expected only a-z, 0-9 and _, got \"%s\"", c->id);
    if (!one_of(root, &none, "area", areas, "a known area (see conformance/README.md)", &idx, e))
        return false;
    vec_format(c->area, sizeof c->area, "%s", areas[idx]);
    if (!vj_string(root, &none, "title", &s, &len, e) || !string_array(root, &none, "spec", true, e) ||
        !string_array(root, &none, "flags", false, e))
        return false;
    const json_t *arr = json_object_get(root, "spec");
    for (size_t i = 0; i < json_array_size(arr); i++) {
        size_t used = strlen(c->spec);
        vec_format(c->spec + used, sizeof c->spec - used, "%s%s", i > 0 ? "; " : "",
                   json_string_value(json_array_get(arr, i)));
    }
    arr = json_object_get(root, "flags");
    for (size_t i = 0; i < json_array_size(arr); i++) {
        c->c_api = c->c_api || vj_string_is(json_array_get(arr, i), "c_api");
        c->convention = c->convention || vj_string_is(json_array_get(arr, i), "convention");
    }
    if (!one_of(root, &none, "auth", auths, "\"none\", \"cookie\", \"aes\" or \"any\"", &idx, e))
        return false;
    /* "any": the runner substitutes each mode's fixed key (README "Auth modes"). */
    c->any_auth = idx == 3;
    if (c->any_auth && json_object_get(root, "key") != NULL)
        return vj_fail(e, &(vj_path_t){"key"},
                       "must be absent with \"auth\": \"any\" (each mode's fixed key is used)");
    if (!c->any_auth && !copy_string(root, &none, "key", c->key, sizeof c->key, e))
        return false;
    c->auth = c->any_auth ? R_AUTH_UNSPECIFIED : (r_auth_type_t)(R_AUTH_NONE + idx);
    if (json_object_get(root, "timers") != NULL) {
        if (!one_of(root, &none, "timers", timer_modes, "\"auto\" or \"manual\"", &idx, e))
            return false;
        c->manual_timers = idx == 1;
    }
    return true;
}

/* The fixed keys of "auth": "any" (conformance/README.md "Auth modes"):
 * vectors/api_key.json tcId 1, 5 and 6, quota word 0xf8f2b150. */
static const char *const fixed_keys[] = {
    [R_AUTH_NONE] = "rl-none1qyyqwps9qspsyq2sk8e0sfdp3ys",
    [R_AUTH_COOKIE] = "rl-cookie1qyrsqqqqqqqqqqqm5ye7en0ufew2xszal4cvzymq4upczpkfa67au5z2fv2vjju92agtruhc9ag94n",
    [R_AUTH_AES] = "rl-aes1qyyqqqqqqqqqqqyhtpw26t7u4rs2csj0kc7u7veejzf62ygpl5j67xs3kla745vv3egtruhch7sxr7",
};

const char *conf_case_bind_mode(conf_case_t *c, r_auth_type_t mode)
{
    static const char *const names[] = {[R_AUTH_NONE] = "none", [R_AUTH_COOKIE] = "cookie", [R_AUTH_AES] = "aes"};
    vec_format(c->key, sizeof c->key, "%s", fixed_keys[mode]);
    c->auth = mode;
    return names[mode];
}

static bool parse_policy(const json_t *root, conf_case_t *c, vj_err_t *e)
{
    static const char *const pkeys[] = {"unit_ms", "replay_count", "replay_gap", "preference", "final_receive_units",
                                        "final_preference_units", "completion_delivery", NULL};
    static const char *const skeys[] = {"kind", "initial_units", "max_units", "linear_step_units",
                                        "exponential_factor", NULL};
    const vj_path_t none = {""};
    const json_t *obj = NULL;
    int idx = 0;
    if (!vj_object(root, &none, "policy", &obj, e))
        return false;
    vj_path_t p = vj_path("policy");
    vj_path_t gap = vj_path_key(&p, "replay_gap"), pref = vj_path_key(&p, "preference");
    if (!conf_keys_known(obj, &p, pkeys, e) || !vec_read_policy(obj, &p, &c->policy, e) ||
        !conf_keys_known(json_object_get(obj, "replay_gap"), &gap, skeys, e) ||
        !conf_keys_known(json_object_get(obj, "preference"), &pref, skeys, e))
        return false;
    if (json_object_get(root, "preset") == NULL)
        return true;
    if (!one_of(root, &none, "preset", presets, "a preset name (default, api_md, strict_oldest, "
                                                "oldest_preferred, fastest_valid)", &idx, e))
        return false;
    c->has_preset = true;
    c->preset = (r_policy_preset_t)idx;
    return true;
}

static bool parse_server(const json_t *s, const vj_path_t *p, conf_case_t *c, size_t i, vj_err_t *e)
{
    static const char *const keys[] = {"name", "server_id", "start_s_since_2025", "listener_id", "node_id", NULL};
    uint64_t start = 0;
    uint8_t listener = 0;
    uint16_t node = 0;
    if (!vj_v_object(s, p, e) || !conf_keys_known(s, p, keys, e) ||
        !copy_string(s, p, "name", c->server_names[i], CONF_NAME_MAX, e))
        return false;
    if (json_object_get(s, "server_id") != NULL) {
        if (json_object_get(s, "start_s_since_2025") != NULL || json_object_get(s, "listener_id") != NULL ||
            json_object_get(s, "node_id") != NULL)
            return vj_fail(e, p, "expected server_id or start_s_since_2025/listener_id/node_id, got both");
        return vj_dec_u64(s, p, "server_id", &c->server_ids[i], e);
    }
    vj_path_t q = vj_path_key(p, "start_s_since_2025");
    if (!vj_v_uint(json_object_get(s, "start_s_since_2025"), &q, 0, (1ull << 41) - 1u, &start, e) ||
        !vj_u8_max(s, p, "listener_id", 255, &listener, e))
        return false;
    q = vj_path_key(p, "node_id");
    uint64_t n = 0;
    if (!vj_v_uint(json_object_get(s, "node_id"), &q, 0, 0x7FFF, &n, e))
        return false;
    node = (uint16_t)n;
    c->server_ids[i] = start << 23 | (uint64_t)listener << 15 | node;
    return true;
}

static bool parse_servers(const json_t *root, conf_case_t *c, vj_err_t *e)
{
    const vj_path_t none = {""};
    const json_t *arr = NULL;
    size_t n = 0;
    if (!vj_array(root, &none, "servers", &arr, &n, e))
        return false;
    vj_path_t p = vj_path("servers");
    if (n == 0 || n > CONF_MAX_SERVERS)
        return vj_fail(e, &p, "expected 1..%u servers, got %zu", CONF_MAX_SERVERS, n);
    for (size_t i = 0; i < n; i++) {
        vj_path_t q = vj_path_index(&p, i);
        if (!parse_server(json_array_get(arr, i), &q, c, i, e))
            return false;
        for (size_t j = 0; j < i; j++) {
            if (strcmp(c->server_names[j], c->server_names[i]) == 0)
                return vj_fail(e, &q, "duplicate server name \"%s\" (also servers[%zu])", c->server_names[i], j);
            if (c->server_ids[j] == c->server_ids[i])
                return vj_fail(e, &q, "duplicate server_id (also servers[%zu])", j);
        }
    }
    c->n_servers = n;
    return true;
}

static bool parse_failures(const json_t *root, conf_case_t *c, vj_err_t *e)
{
    static const char *const keys[] = {"server", "from", "count", NULL};
    const vj_path_t none = {""};
    const json_t *arr = NULL;
    size_t n = 0;
    if (json_object_get(root, "send_failures") == NULL)
        return true;
    if (!vj_array(root, &none, "send_failures", &arr, &n, e))
        return false;
    vj_path_t p = vj_path("send_failures");
    if (n > CONF_MAX_FAILURES)
        return vj_fail(e, &p, "expected at most %u entries, got %zu", CONF_MAX_FAILURES, n);
    for (size_t i = 0; i < n; i++) {
        vj_path_t q = vj_path_index(&p, i);
        const json_t *f = json_array_get(arr, i);
        conf_failure_t *out = &c->failures[i];
        if (!vj_v_object(f, &q, e) || !conf_keys_known(f, &q, keys, e) ||
            !conf_server_ref(f, &q, "server", c, &out->server, e) || !vj_u32(f, &q, "from", &out->from, e) ||
            !vj_u32(f, &q, "count", &out->count, e))
            return false;
        if (out->count == 0) {
            vj_path_t r = vj_path_key(&q, "count");
            return vj_fail(e, &r, "expected at least 1, got 0");
        }
    }
    c->n_failures = n;
    return true;
}

/* conf_request.c and conf_events.c */
bool conf_request_parse(const json_t *root, conf_case_t *c, vj_err_t *e);
bool conf_events_parse(const json_t *root, conf_case_t *c, vj_err_t *e);

bool conf_case_parse(const json_t *root, conf_case_t *c, vj_err_t *e)
{
    memset(c, 0, sizeof *c);
    if (!vj_v_object(root, &(vj_path_t){"(root)"}, e))
        return false;
    return parse_header(root, c, e) && parse_policy(root, c, e) && parse_servers(root, c, e) &&
           conf_request_parse(root, c, e) && parse_failures(root, c, e) && conf_events_parse(root, c, e) &&
           conf_expect_parse(root, c, e);
}
