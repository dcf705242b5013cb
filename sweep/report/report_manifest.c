/* SPDX-License-Identifier: MIT */
/* report_manifest.c - what the report takes from a sweep's manifest.json
 * (docs/sweep.md "Output directory"): each configuration's policy fields
 * (for U, N, the horizon H and the derived dedup TTL) and each trace's
 * variant settings (its Bernoulli loss_p). A manifest is optional: without it
 * the policy columns are empty and loss rates come from trace names. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "report_int.h"

static bool get_u32(json_t *o, const char *key, uint32_t *v)
{
    json_t *j = json_object_get(o, key);
    if (!json_is_integer(j) || json_integer_value(j) < 0 || json_integer_value(j) > (json_int_t)UINT32_MAX)
        return false;
    *v = (uint32_t)json_integer_value(j);
    return true;
}

static bool read_schedule(json_t *o, r_ha_schedule_t *s)
{
    const char *kind = json_string_value(json_object_get(o, "kind"));
    if (!json_is_object(o) || kind == NULL)
        return false;
    if (strcmp(kind, "fixed") == 0)
        s->kind = R_HA_SCHEDULE_FIXED;
    else if (strcmp(kind, "linear") == 0)
        s->kind = R_HA_SCHEDULE_LINEAR;
    else if (strcmp(kind, "exponential") == 0)
        s->kind = R_HA_SCHEDULE_EXPONENTIAL;
    else
        return false;
    uint32_t step = 0, factor = 0;
    if (!get_u32(o, "initial_units", &s->initial_units) || !get_u32(o, "max_units", &s->max_units) ||
        !get_u32(o, "linear_step_units", &step) || !get_u32(o, "exponential_factor", &factor))
        return false;
    if (s->kind == R_HA_SCHEDULE_LINEAR)
        s->growth.linear_step_units = step;
    else
        s->growth.exponential_factor = factor;
    return true;
}

static bool read_policy(json_t *o, r_request_policy_t *p)
{
    json_t *c = json_object_get(o, "completion_delivery");
    if (!json_is_object(o) || !json_is_boolean(c))
        return false;
    p->completion_delivery = json_is_true(c);
    return get_u32(o, "unit_ms", &p->unit_ms) && get_u32(o, "replay_count", &p->replay_count) &&
           read_schedule(json_object_get(o, "replay_gap"), &p->replay_gap) &&
           read_schedule(json_object_get(o, "preference"), &p->preference) &&
           get_u32(o, "final_receive_units", &p->final_receive_units) &&
           get_u32(o, "final_preference_units", &p->final_preference_units);
}

static int apply_configs(json_t *arr, rep_data_t *d, const char *path, char *err, size_t cap)
{
    size_t i;
    json_t *e;
    json_array_foreach(arr, i, e) {
        size_t c = rep_find_config(d, json_string_value(json_object_get(e, "name")));
        if (c == d->n_configs)
            continue; /* a configuration the summary does not have */
        rep_config_t *rc = &d->configs[c];
        r_policy_schedule_t sched;
        const char *why = NULL;
        if (!read_policy(json_object_get(e, "policy"), &rc->policy))
            return rep_fail(err, cap, "%s: configurations[%zu].policy: expected the policy fields of docs/sweep.md", path,
                        i);
        if (r_client_policy_schedule(&rc->policy, UINT32_MAX, &sched, &why) != RCLIENT_OK)
            return rep_fail(err, cap, "%s: configurations[%zu].policy: %s", path, i, why != NULL ? why : "invalid");
        rc->has_policy = true;
        rc->horizon_ms = sched.ttl_ms;
    }
    return 0;
}

static int apply_traces(json_t *arr, rep_data_t *d, const char *path, char *err, size_t cap)
{
    size_t i;
    json_t *e;
    json_array_foreach(arr, i, e) {
        size_t t = rep_find_trace(d, json_string_value(json_object_get(e, "name")));
        if (t == d->n_traces)
            continue;
        json_t *p = json_object_get(json_object_get(e, "set"), "links.default.loss.loss_p");
        if (p == NULL)
            continue;
        double v = json_number_value(p);
        if (!json_is_number(p) || !(v >= 0.0 && v <= 1.0))
            return rep_fail(err, cap, "%s: traces[%zu].set: links.default.loss.loss_p: expected a probability", path, i);
        d->traces[t].has_loss = true;
        d->traces[t].loss_p = v;
    }
    return 0;
}

bool rep_loss_from_name(const char *name, double *p)
{
    const char *s = strstr(name, "-loss_p");
    while (s != NULL) {
        const char *num = s + 7;
        char *end = NULL;
        errno = 0;
        double v = strtod(num, &end);
        if (end != num && (*end == '\0' || *end == '-') && errno == 0 && v >= 0.0 && v <= 1.0 &&
            num[0] >= '0' && num[0] <= '9') {
            *p = v;
            return true;
        }
        s = strstr(s + 1, "-loss_p");
    }
    return false;
}

int rep_manifest_apply(const char *text, size_t len, const char *path, rep_data_t *d, char *err, size_t cap)
{
    for (size_t t = 0; t < d->n_traces; t++)
        d->traces[t].has_loss = rep_loss_from_name(d->traces[t].name, &d->traces[t].loss_p);
    if (text == NULL)
        return 0;
    json_error_t je;
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    if (root == NULL)
        return rep_fail(err, cap, "%s: line %d column %d: %s", path, je.line, je.column, je.text);
    int rc = 0;
    json_t *configs = json_object_get(root, "configurations");
    json_t *traces = json_object_get(root, "traces");
    if (!json_is_object(root))
        rc = rep_fail(err, cap, "%s: expected a JSON object", path);
    else if (configs != NULL && !json_is_array(configs))
        rc = rep_fail(err, cap, "%s: configurations: expected an array", path);
    else if (traces != NULL && !json_is_array(traces))
        rc = rep_fail(err, cap, "%s: traces: expected an array", path);
    const char *desc = json_string_value(json_object_get(root, "description"));
    if (rc == 0 && desc != NULL)
        (void)snprintf(d->description, sizeof d->description, "%s", desc);
    if (rc == 0 && configs != NULL)
        rc = apply_configs(configs, d, path, err, cap);
    if (rc == 0 && traces != NULL)
        rc = apply_traces(traces, d, path, err, cap);
    json_decref(root);
    return rc;
}
