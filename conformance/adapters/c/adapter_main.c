/* SPDX-License-Identifier: MIT */
/* adapter_main.c - the C reference adapter (conformance/ADAPTER.md): the
 * project's client library behind the adapter protocol, so that
 * `rl-testbed vectors --client` and `rl-testbed conformance --client` prove
 * the protocol end to end against the same files the built-in runner passes.
 *
 * Reads one JSON request per line on stdin, writes one answer per line on
 * stdout; stderr is for diagnostics only. Vector requests go to the kind
 * functions the built-in runner uses (vectors/runner/vec_kind_*.c, over
 * r_client.h); HA requests drive an r_client_t through its public API
 * (adapter_ha.c). Exit status 0 at end of input, 1 on a read error. */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapter_c.h"
#include "vec_kinds.h"
#include "vec_norm.h"

#define LINE_MAX_BYTES (1u << 20)

static json_t *hello(void)
{
    json_t *kinds = json_array();
    static const char *const names[] = {"bucket_id", "tracker_id", "api_key", "secret_key",
                                        "quota_word", "server_id",  "srv_target", "rate_request_packet",
                                        "latency_report_packet", "rate_response", "ha_schedule",
                                        "admin_tenant_mutation", "admin_tenant_ack", "admin_status_query",
                                        "admin_status_response", "admin_metrics_query", "admin_metrics_response"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        json_array_append_new(kinds, json_string(names[i]));
    return json_pack("{s:s, s:i, s:{s:s, s:s}, s:{s:o, s:b, s:{s:b, s:b, s:b, s:b, s:b, s:b, s:b, s:b, s:b}}}",
                     "protocol", "ratelimitly-adapter/1", "revision", 2, "client", "name", "rclient (C reference adapter)",
                     "version", "0.1", "capabilities", "vector_kinds", kinds, "error_classes", true, "ha", "cases",
                     true, "presets", true, "preference", true, "completion_delivery", true, "clock", true,
                     "random", true, "explicit_servers", true, "send_failures", true, "profile", true);
}

/* One vector test through the built-in kind function. */
static json_t *vector(const json_t *req)
{
    const json_t *input = json_object_get(req, "input");
    const vec_kind_t *kind = vec_kind_find(json_object_get(req, "kind"));
    if (kind == NULL || kind->run == NULL)
        return json_pack("{s:s, s:s}", "status", "unsupported", "reason", "kind not known to this build");
    if (!json_is_object(input))
        return json_pack("{s:s, s:s}", "status", "bad_input", "reason", "input: expected an object");
    vec_run_t run;
    memset(&run, 0, sizeof run);
    vj_path_t path = vj_path("input");
    kind->run(input, &path, &run);
    if (run.status == VEC_RUN_BAD_INPUT && run.err.range)
        vec_run_reject(&run, "range", "%s", run.err.msg);
    switch (run.status) {
    case VEC_RUN_ACCEPTED: return json_pack("{s:s, s:o}", "status", "accepted", "output", run.actual);
    case VEC_RUN_REJECTED:
        /* the step refused at (ADAPTER.md "Steps"): a kind function names an earlier one, else its own */
        return json_pack("{s:s, s:s?, s:s, s:s}", "status", "rejected", "error", run.error_class, "reason", run.reason,
                         "stage", run.stage != NULL ? run.stage : vec_kind_final_step(kind->name));
    case VEC_RUN_UNSUPPORTED: return json_pack("{s:s, s:s}", "status", "unsupported", "reason", run.reason);
    default: return json_pack("{s:s, s:s}", "status", "bad_input", "reason", run.err.msg);
    }
}

static json_t *dispatch(adapter_ha_t *ha, const json_t *req)
{
    const json_t *op = json_object_get(req, "op");
    if (vj_string_is(op, "hello"))
        return hello();
    if (vj_string_is(op, "vector"))
        return vector(req);
    json_t *ans = adapter_ha_dispatch(ha, req);
    return ans != NULL ? ans : json_pack("{s:s}", "protocol_error", "unknown op");
}

int main(void)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    adapter_ha_t *ha = adapter_ha_new();
    if (ha == NULL) {
        fputs("rl_adapter_c: out of memory\n", stderr);
        return 1;
    }
    while ((n = getline(&line, &cap, stdin)) > 0) {
        json_error_t jerr;
        json_t *req = json_loadb(line, (size_t)n, 0, &jerr);
        json_t *ans = req != NULL && json_is_object(req) ? dispatch(ha, req)
                                                         : json_pack("{s:s}", "protocol_error", "request is not a JSON object");
        json_t *id = json_object_get(req, "id");
        json_object_set(ans, "id", id != NULL ? id : json_null());
        char *text = json_dumps(ans, JSON_COMPACT | JSON_ENSURE_ASCII);
        if (text == NULL || strlen(text) >= LINE_MAX_BYTES) {
            /* the testbed reads at most 1 MiB a line */
            free(text);
            json_t *small = json_pack("{s:O, s:s}", "id", id != NULL ? id : json_null(), "protocol_error", "answer too long");
            text = json_dumps(small, JSON_COMPACT);
            json_decref(small);
        }
        printf("%s\n", text != NULL ? text : "{}");
        fflush(stdout);
        free(text);
        json_decref(ans);
        json_decref(req);
    }
    free(line);
    adapter_ha_free(ha);
    return ferror(stdin) ? 1 : 0;
}
