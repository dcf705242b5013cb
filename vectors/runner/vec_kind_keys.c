/* SPDX-License-Identifier: MIT */
/* vec_kind_keys.c - adapters for credentials: api_key, secret_key and
 * quota_word (wire_protocol.md "Bech32 Credential Formats", "API-key quota
 * word, format version 1", "Credential Validation Rules"). */
#include <stdio.h>
#include <string.h>

#include <openssl/crypto.h>

#include "rl_credential.h"
#include "vec_kinds.h"

static const char *auth_name(r_auth_type_t type)
{
    switch (type) {
    case R_AUTH_NONE: return "none";
    case R_AUTH_COOKIE: return "cookie";
    case R_AUTH_AES: return "aes";
    case R_AUTH_UNSPECIFIED: break;
    }
    return "(unspecified)";
}

bool vec_parse_api_key(const json_t *input, const vj_path_t *path, r_auth_key_info_t *info, vec_run_t *run)
{
    const char *key = NULL;
    size_t key_len = 0;
    if (!vj_string(input, path, "key", &key, &key_len, &run->err)) {
        run->status = VEC_RUN_BAD_INPUT;
        return false;
    }
    r_key_diag_t diag;
    memset(&diag, 0, sizeof diag);
    /* key_len 0 means NUL-terminated, which for "" is still the empty key. */
    int rc = r_client_parse_auth_key_diag(key, key_len, info, &diag);
    if (rc != RCLIENT_OK) {
        diag.message[sizeof diag.message - 1] = '\0';
        vec_run_reject(run, vec_key_error_class(diag.reason), "%s", diag.message);
        run->stage = "key"; /* refused before the kind's own step (vec_norm.h) */
        return false;
    }
    return true;
}

static json_t *api_key_result(const r_auth_key_info_t *info)
{
    char dns[64];
    char word[16];
    if (r_client_format_default_tenant_dns(info->key_id, dns, sizeof dns) != RCLIENT_OK)
        return NULL;
    snprintf(word, sizeof word, "0x%08x", (unsigned)info->quota_word);
    json_t *out = json_pack("{s:s, s:o, s:s, s:o, s:s}", "auth", auth_name(info->type), "key_id",
                            vec_json_dec_u64(info->key_id), "quota_word", word, "quotas",
                            vec_json_quotas(&info->quotas), "default_dns_name", dns);
    /* The schema's secret_hex is absent for rl-none. */
    if (out != NULL && info->has_secret &&
        json_object_set_new(out, "secret_hex", vec_json_hex(info->secret, R_CLIENT_SECRET_LEN)) != 0) {
        json_decref(out);
        return NULL;
    }
    return out;
}

void vec_kind_api_key(const json_t *input, const vj_path_t *path, vec_run_t *run)
{
    r_auth_key_info_t info;
    memset(&info, 0, sizeof info);
    if (vec_parse_api_key(input, path, &info, run))
        vec_run_accept(run, api_key_result(&info));
    OPENSSL_cleanse(&info, sizeof info);
}

void vec_kind_secret_key(const json_t *input, const vj_path_t *path, vec_run_t *run)
{
    const char *key = NULL;
    size_t key_len = 0;
    if (!vj_string(input, path, "key", &key, &key_len, &run->err)) {
        run->status = VEC_RUN_BAD_INPUT;
        return;
    }
    uint8_t secret[R_CLIENT_SECRET_LEN];
    r_key_diag_t diag;
    memset(&diag, 0, sizeof diag);
    int rc = rl_credential_parse_secret(key, key_len, secret, &diag);
    if (rc != RCLIENT_OK) {
        diag.message[sizeof diag.message - 1] = '\0';
        vec_run_reject(run, vec_key_error_class(diag.reason), "%s", diag.message);
    } else {
        vec_run_accept(run, json_pack("{s:o}", "secret_hex", vec_json_hex(secret, sizeof secret)));
    }
    OPENSSL_cleanse(secret, sizeof secret);
}

/* "0x" and exactly 8 lowercase hex digits, as the schema writes quota_word. */
static bool parse_word(const json_t *input, const vj_path_t *path, uint32_t *out, vj_err_t *e)
{
    vj_path_t p = vj_path_key(path, "word");
    const json_t *v = json_object_get(input, "word");
    const char *s = json_string_value(v);
    char why[64];
    if (s == NULL || json_string_length(v) != 10 || s[0] != '0' || s[1] != 'x' ||
        !vj_hex_text_ok(s + 2, 8, why, sizeof why)) {
        char got[96];
        return vj_fail(e, &p, "expected \"0x\" and 8 lowercase hex digits, got %s",
                       vj_describe(v, got, sizeof got));
    }
    uint32_t w = 0;
    for (size_t i = 2; i < 10; i++)
        w = w << 4 | (uint32_t)(s[i] <= '9' ? s[i] - '0' : s[i] - 'a' + 10);
    *out = w;
    return true;
}

void vec_kind_quota_word(const json_t *input, const vj_path_t *path, vec_run_t *run)
{
    uint32_t word = 0;
    if (!parse_word(input, path, &word, &run->err)) {
        run->status = VEC_RUN_BAD_INPUT;
        return;
    }
    r_api_key_quotas_t quotas;
    r_key_diag_t diag;
    memset(&diag, 0, sizeof diag);
    int rc = r_client_decode_quota_word(word, &quotas, &diag);
    if (rc != RCLIENT_OK) {
        diag.message[sizeof diag.message - 1] = '\0';
        vec_run_reject(run, vec_key_error_class(diag.reason), "%s", diag.message);
        return;
    }
    vec_run_accept(run, json_pack("{s:o}", "quotas", vec_json_quotas(&quotas)));
}
