/* SPDX-License-Identifier: MIT */
/* workflow.c - the optional admission workflow over the public core API
 * (api.md "Combined Admission Workflow"). */
#include <string.h>

#include "r_client_workflow.h"
#include "rl_client.h"

#define EXAMPLE_NAME "rl-c-client-example"

void r_client_admission_config_defaults(r_admission_config_t *cfg) {
    if (cfg == NULL) {
        return;
    }
    memset(cfg, 0, sizeof *cfg);
    cfg->bucket_name = EXAMPLE_NAME;
    cfg->window_size_ms = 1000;
    cfg->rate_limit = 100;
    cfg->tokens = 1;
    cfg->latency_tracker_name = EXAMPLE_NAME;
    cfg->threshold_ms = 100;
    cfg->ttl_ms = 10000;
    cfg->max_samples = 100;
    cfg->buffer_size = 32;
    cfg->min_sample_threshold = 5;
    cfg->metrics_label = EXAMPLE_NAME;
}

static r_admission_reason_t reason_of(bool rate_ok, bool latency_ok) {
    if (rate_ok && latency_ok) return R_ADMISSION_ALLOWED;
    if (!rate_ok && !latency_ok) return R_ADMISSION_DENIED_BOTH;
    return rate_ok ? R_ADMISSION_DENIED_LATENCY : R_ADMISSION_DENIED_RATE;
}

/* The admission sends one resource and one guard; the client accepts only a
 * response that answers the request block by block, so entry 0 of each result
 * array is this admission's (docs/spec-notes.md "Rate responses"). */
static void on_result(r_client_req_t *req, const r_rate_limit_result_t *result, void *user_data) {
    (void)req;
    r_admission_request_t *adm = user_data;
    r_admission_outcome_t o;
    memset(&o, 0, sizeof o);
    o.status = result->status;
    o.threshold_ms = adm->guard.threshold_ms;
    if (result->status == RCLIENT_OK) {
        /* status OK: resource_count and guard_count are the request's, 1 each */
        bool rate_ok = result->resources[0].tokens_deficit == 0;
        bool latency_ok = result->guards[0].passed;
        o.tokens_deficit = result->resources[0].tokens_deficit;
        o.actual_rate = result->resources[0].actual_rate;
        o.current_latency_ms = result->guards[0].current_latency_ms;
        o.reason = reason_of(rate_ok, latency_ok);
        o.allowed = o.reason == R_ADMISSION_ALLOWED && result->success;
        o.server_id = result->server_id;
    } else {
        o.reason = R_ADMISSION_FAILED;
    }
    adm->outcome = o;
    adm->state = R_ADMISSION_DONE;
    adm->req = NULL;
    if (adm->cb != NULL) {
        adm->cb(adm, &adm->outcome, adm->user_data);
    }
}

/* The client was destroyed with this admission in flight: no callback will
 * come, so the admission ends CANCELLED and forgets the request handle. */
static void on_abandon(void *user_data) {
    r_admission_request_t *adm = user_data;
    adm->req = NULL;
    adm->state = R_ADMISSION_CANCELLED;
}

static size_t name_len(const char *name, size_t len) {
    return name == NULL ? 0 : (len != 0 ? len : strlen(name));
}

int r_client_admission_start(r_client_t *client, const r_admission_config_t *cfg, r_admission_request_t *adm,
                             r_admission_cb cb, void *user_data) {
    if (client == NULL || cfg == NULL || adm == NULL || cb == NULL || adm->state == R_ADMISSION_PENDING ||
        cfg->bucket_name == NULL || cfg->latency_tracker_name == NULL) {
        return RCLIENT_ERR_CONFIG;
    }
    r_admission_request_t a;
    memset(&a, 0, sizeof a);
    a.resource.window_size_ms = cfg->window_size_ms;
    a.resource.rate_limit = cfg->rate_limit;
    a.resource.tokens_requested = cfg->tokens;
    a.guard.threshold_ms = cfg->threshold_ms;
    a.guard.ttl_ms = cfg->ttl_ms;
    a.guard.max_samples = cfg->max_samples;
    a.guard.buffer_size = cfg->buffer_size;
    a.guard.min_sample_threshold = cfg->min_sample_threshold;
    int rc = r_client_derive_bucket_id(cfg->bucket_name, name_len(cfg->bucket_name, cfg->bucket_name_len),
                                       cfg->window_size_ms, cfg->rate_limit, a.resource.bucket_id);
    if (rc == RCLIENT_OK) {
        rc = r_client_derive_latency_tracker_id(
            cfg->latency_tracker_name, name_len(cfg->latency_tracker_name, cfg->latency_tracker_name_len),
            cfg->ttl_ms, cfg->max_samples, cfg->buffer_size, cfg->min_sample_threshold, a.guard.latency_tracker_id);
    }
    if (rc != RCLIENT_OK) {
        return rc;
    }
    a.client = client;
    a.metrics_label = cfg->metrics_label;
    a.cb = cb;
    a.user_data = user_data;
    a.state = R_ADMISSION_PENDING;
    *adm = a;
    r_client_req_t *req = NULL;
    rc = r_client_check_rate_limit_async_borrowed(client, &adm->resource, 1, &adm->guard, 1, adm->metrics_label, 0,
                                                  on_result, adm, &req);
    if (rc != RCLIENT_OK) {
        memset(adm, 0, sizeof *adm);
        return rc;
    }
    adm->req = req;
    rl_request_set_abandon(req, on_abandon);
    return RCLIENT_OK;
}

uint64_t r_client_admission_deadline_ms(const r_admission_request_t *adm) {
    if (adm == NULL || adm->state != R_ADMISSION_PENDING || adm->req == NULL) {
        return 0;
    }
    return r_client_request_deadline_ms(adm->client, adm->req);
}

int r_client_admission_on_timeout(r_admission_request_t *adm, uint64_t now_ms) {
    if (adm == NULL) {
        return RCLIENT_ERR_CONFIG;
    }
    if (adm->state != R_ADMISSION_PENDING || adm->req == NULL) {
        return RCLIENT_OK;
    }
    return r_client_on_timeout(adm->client, adm->req, now_ms);
}

void r_client_admission_cancel(r_admission_request_t *adm) {
    if (adm == NULL || adm->state != R_ADMISSION_PENDING) {
        return;
    }
    if (adm->req != NULL) {
        r_client_cancel_request(adm->client, adm->req);
    }
    adm->req = NULL;
    adm->state = R_ADMISSION_CANCELLED;
}

int r_client_admission_report_latency(r_admission_request_t *adm, uint32_t observed_latency_ms) {
    if (adm == NULL || adm->state != R_ADMISSION_DONE || !adm->outcome.allowed || adm->reported) {
        return RCLIENT_ERR_CONFIG;
    }
    r_service_latency_report_t report = {
        .ttl_ms = adm->guard.ttl_ms,
        .max_samples = adm->guard.max_samples,
        .buffer_size = adm->guard.buffer_size,
        .min_sample_threshold = adm->guard.min_sample_threshold,
        .observed_latency = observed_latency_ms,
    };
    memcpy(report.latency_tracker_id, adm->guard.latency_tracker_id, R_CLIENT_ID_LEN);
    int rc = r_client_report_latency(adm->client, &report, 1);
    if (rc == RCLIENT_OK) {
        adm->reported = true;
    }
    return rc;
}
