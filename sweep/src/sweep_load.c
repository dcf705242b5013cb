/* SPDX-License-Identifier: MIT */
/* sweep_load.c - the sweep file loader (docs/sweep.md "Sweep file"): strict
 * like the trace loader (unknown fields, duplicate keys, wrong types and
 * out-of-range values are errors naming the file and the JSON path). It
 * expands grids into configurations and trace "vary" axes into variants; it
 * reads no trace file (sweep_prepare does). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sweep.h"
#include "sim_trace_int.h"

static const char *const top_keys[] = {"schema", "name", "description", "configurations", "grids", "traces",
                                       "seeds", "baseline", NULL};
static const char *const config_keys[] = {"name", "preset", "unit_ms", "replay_count", "replay_gap", "preference",
                                          "final_receive_units", "final_preference_units", "completion_delivery",
                                          NULL};
static const char *const grid_keys[] = {"name", "base", "axes", NULL};
static const char *const axis_keys[] = {"field", "label", "values", NULL};
static const char *const trace_keys[] = {"path", "name", "vary", NULL};
static const char *const range_keys[] = {"first", "count", NULL};

/* Grid axis fields and the JSON type of their values. */
typedef enum { AX_U32, AX_BOOL, AX_PRESET, AX_KIND } axis_type_t;
static const struct {
    const char *field;
    axis_type_t type;
} grid_fields[] = {
    {"preset", AX_PRESET},
    {"unit_ms", AX_U32},
    {"replay_count", AX_U32},
    {"final_receive_units", AX_U32},
    {"final_preference_units", AX_U32},
    {"completion_delivery", AX_BOOL},
    {"replay_gap.kind", AX_KIND},
    {"replay_gap.initial_units", AX_U32},
    {"replay_gap.max_units", AX_U32},
    {"replay_gap.linear_step_units", AX_U32},
    {"replay_gap.exponential_factor", AX_U32},
    {"preference.kind", AX_KIND},
    {"preference.initial_units", AX_U32},
    {"preference.max_units", AX_U32},
    {"preference.linear_step_units", AX_U32},
    {"preference.exponential_factor", AX_U32},
};
#define N_GRID_FIELDS (sizeof grid_fields / sizeof grid_fields[0])
static const char *const preset_names[] = {"default", "api_md", "strict_oldest", "oldest_preferred", "fastest_valid"};
static const char *const kind_names[] = {"fixed", "linear", "exponential"};

#define MAX_AXES 8u
#define MAX_VARY 4u
#define MAX_VALUES 64u
#define LABEL_MAX 16u

const char *sweep_schedule_kind_name(r_ha_schedule_kind_t k) {
    return (unsigned)k < 3 ? kind_names[k] : "?";
}

static bool name_ok(const char *s) {
    if (s[0] == '\0') return false;
    for (; *s; s++) {
        bool ok = (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_' ||
                  *s == '.' || *s == '-' || *s == '=';
        if (!ok) return false;
    }
    return true;
}

/* obj[key] as a name (1 .. cap-1 bytes of the name alphabet). 0 absent, 1 set, -1 error. */
static int read_name(tj_ctx_t *c, const json_t *obj, const tj_path_t *p, const char *key, char *buf, size_t cap) {
    int r = tj_str(c, obj, p, key, false, buf, cap);
    if (r == 1 && !name_ok(buf)) {
        tj_path_t q;
        tj_key(&q, p, key);
        return tj_fail(c, &q, "\"%s\": use only letters, digits, '_', '.', '-' and '='", buf);
    }
    return r;
}

/* A grid point's or variant's name part: a scalar as JSON text, strings bare. */
static void scalar_text(const json_t *v, char *buf, size_t cap) {
    if (json_is_string(v)) snprintf(buf, cap, "%s", json_string_value(v));
    else if (json_is_integer(v)) snprintf(buf, cap, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
    else if (json_is_true(v)) snprintf(buf, cap, "true");
    else if (json_is_false(v)) snprintf(buf, cap, "false");
    else if (json_is_real(v)) snprintf(buf, cap, "%.9g", json_real_value(v));
    else snprintf(buf, cap, "null");
}

/* Append "-<label><value>" to name; fails when the result is too long or not a name. */
static int name_append(tj_ctx_t *c, const tj_path_t *p, char *name, const char *label, const json_t *v) {
    char val[96];
    scalar_text(v, val, sizeof val);
    size_t n = strlen(name);
    int w = snprintf(name + n, SWEEP_NAME_MAX - n, "-%s%s", label, val);
    if (w < 0 || (size_t)w >= SWEEP_NAME_MAX - n) {
        return tj_fail(c, p, "generated name \"%s-%s%s\" is longer than 63 bytes", name, label, val);
    }
    if (!name_ok(name)) {
        return tj_fail(c, p, "generated name \"%s\": value \"%s\" has characters outside letters, digits, '_', '.', '-', '='",
                       name, val);
    }
    return 0;
}

/* ---- configurations --------------------------------------------------------------- */

static int add_config(tj_ctx_t *c, sweep_t *sw, const tj_path_t *p, const char *name, const char *origin,
                      const json_t *policy_obj) {
    for (size_t i = 0; i < sw->n_configs; i++) {
        if (strcmp(sw->configs[i].name, name) == 0) {
            return tj_fail(c, p, "duplicate configuration name \"%s\" (also %s)", name, sw->configs[i].origin);
        }
    }
    if (sw->n_configs >= SWEEP_MAX_CONFIGS) {
        return tj_fail(c, p, "more than %u configurations", SWEEP_MAX_CONFIGS);
    }
    sweep_config_t *cf = &sw->configs[sw->n_configs];
    memset(cf, 0, sizeof *cf);
    snprintf(cf->name, sizeof cf->name, "%s", name);
    snprintf(cf->origin, sizeof cf->origin, "%s", origin);
    r_client_default_request_policy(&cf->policy);
    if (st_parse_policy(c, policy_obj, p, &cf->policy) != 0) {
        return -1;
    }
    sw->n_configs++;
    return 0;
}

static int parse_configs(tj_ctx_t *c, const json_t *root, sweep_t *sw) {
    json_t *arr = NULL;
    tj_path_t p0;
    tj_key(&p0, NULL, "configurations");
    if (tj_array(c, root, NULL, "configurations", SWEEP_MAX_CONFIGS, &arr) < 0) return -1;
    size_t i;
    json_t *e;
    json_array_foreach(arr, i, e) {
        tj_path_t p;
        tj_idx(&p, &p0, i);
        char origin[160];
        snprintf(origin, sizeof origin, "configurations[%zu]", i);
        if (json_is_string(e)) {
            const char *s = json_string_value(e);
            if (add_config(c, sw, &p, s, origin, e) != 0) return -1; /* a preset name */
            continue;
        }
        char name[SWEEP_NAME_MAX];
        if (tj_object(c, e, &p, config_keys) != 0 || tj_require(c, e, &p, "name") != 0 ||
            read_name(c, e, &p, "name", name, sizeof name) < 0) {
            return -1;
        }
        json_t *pol = json_deep_copy(e);
        if (pol == NULL) return tj_fail(c, &p, "out of memory");
        json_object_del(pol, "name");
        int r = add_config(c, sw, &p, name, origin, pol);
        json_decref(pol);
        if (r != 0) return -1;
    }
    return 0;
}

/* Set base[field] (a dotted path of at most two keys) to v, creating the schedule object. */
static int set_field(json_t *base, const char *field, json_t *v) {
    const char *dot = strchr(field, '.');
    if (dot == NULL) return json_object_set(base, field, v);
    char outer[32];
    snprintf(outer, sizeof outer, "%.*s", (int)(dot - field), field);
    json_t *o = json_object_get(base, outer);
    if (!json_is_object(o)) {
        o = json_object();
        if (o == NULL || json_object_set_new(base, outer, o) != 0) return -1;
    }
    return json_object_set(o, dot + 1, v);
}

static int check_axis_value(tj_ctx_t *c, const tj_path_t *p, axis_type_t t, const json_t *v) {
    switch (t) {
    case AX_U32:
        if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > (json_int_t)UINT32_MAX) {
            return tj_fail(c, p, "expected an integer 0..4294967295");
        }
        return 0;
    case AX_BOOL:
        return json_is_boolean(v) ? 0 : tj_fail(c, p, "expected true or false");
    case AX_PRESET:
    case AX_KIND: {
        const char *const *names = t == AX_PRESET ? preset_names : kind_names;
        size_t n = t == AX_PRESET ? 5 : 3;
        for (size_t i = 0; json_is_string(v) && i < n; i++) {
            if (strcmp(json_string_value(v), names[i]) == 0) return 0;
        }
        return t == AX_PRESET ? tj_fail(c, p, "expected one of default, api_md, strict_oldest, oldest_preferred, fastest_valid")
                              : tj_fail(c, p, "expected one of fixed, linear, exponential");
    }
    }
    return -1;
}

/* An axis: field (from allowed, or any path when allowed is NULL), label, values. */
typedef struct {
    char field[128];
    char label[LABEL_MAX];
    json_t *values; /* borrowed */
} axis_t;

static int valid_trace_path(const char *s);

static int parse_axis(tj_ctx_t *c, const json_t *e, const tj_path_t *p, bool grid, axis_t *ax) {
    json_t *vals = NULL;
    if (tj_object(c, e, p, axis_keys) != 0 || tj_require(c, e, p, "field") != 0 ||
        tj_require(c, e, p, "values") != 0 || tj_str(c, e, p, "field", false, ax->field, sizeof ax->field) < 0 ||
        tj_array(c, e, p, "values", MAX_VALUES, &vals) < 0) {
        return -1;
    }
    tj_path_t fp, vp;
    tj_key(&fp, p, "field");
    tj_key(&vp, p, "values");
    int type = -1;
    if (grid) {
        for (size_t i = 0; i < N_GRID_FIELDS; i++) {
            if (strcmp(grid_fields[i].field, ax->field) == 0) type = (int)grid_fields[i].type;
        }
        if (type < 0) {
            return tj_fail(c, &fp, "\"%s\" is not a policy field (expected preset, unit_ms, replay_count, "
                                   "final_receive_units, final_preference_units, completion_delivery, or "
                                   "replay_gap./preference. kind, initial_units, max_units, linear_step_units, "
                                   "exponential_factor)", ax->field);
        }
    } else if (valid_trace_path(ax->field) != 0) {
        return tj_fail(c, &fp, "\"%s\": expected a path of keys and [index] (e.g. links.default.loss.loss_p)",
                       ax->field);
    }
    size_t fl = strlen(ax->field);
    ax->label[0] = '\0';
    if (fl < sizeof ax->label) memcpy(ax->label, ax->field, fl + 1);
    int lr = read_name(c, e, p, "label", ax->label, sizeof ax->label);
    if (lr < 0) return -1;
    if (lr == 0 && ax->label[0] == '\0') {
        return tj_fail(c, &fp, "\"%s\" is too long for a name part: give a label (at most 15 bytes)", ax->field);
    }
    if (lr == 0 && !name_ok(ax->label)) {
        return tj_fail(c, &fp, "\"%s\" cannot be a name part: give a label", ax->field);
    }
    if (json_array_size(vals) == 0) return tj_fail(c, &vp, "expected at least one value");
    size_t i;
    json_t *v;
    json_array_foreach(vals, i, v) {
        tj_path_t q;
        tj_idx(&q, &vp, i);
        if (grid) {
            if (check_axis_value(c, &q, (axis_type_t)type, v) != 0) return -1;
        } else if (!(json_is_string(v) || json_is_number(v) || json_is_boolean(v))) {
            return tj_fail(c, &q, "expected a number, a string or a boolean");
        }
        for (size_t j = 0; j < i; j++) {
            if (json_equal(v, json_array_get(vals, j))) return tj_fail(c, &q, "duplicate value (also values[%zu])", j);
        }
    }
    ax->values = vals;
    return 0;
}

static size_t product(const axis_t *ax, size_t n) {
    size_t k = 1;
    for (size_t i = 0; i < n; i++) k *= json_array_size(ax[i].values);
    return k;
}

/* Point k of the product, first axis slowest: index of each axis's value. */
static void point_index(const axis_t *ax, size_t n, size_t k, size_t *idx) {
    for (size_t i = n; i-- > 0;) {
        size_t m = json_array_size(ax[i].values);
        idx[i] = k % m;
        k /= m;
    }
}

static int parse_grid(tj_ctx_t *c, const json_t *g, const tj_path_t *p, size_t gi, sweep_t *sw) {
    char gname[SWEEP_NAME_MAX];
    json_t *axes = NULL;
    if (tj_object(c, g, p, grid_keys) != 0 || tj_require(c, g, p, "name") != 0 ||
        read_name(c, g, p, "name", gname, sizeof gname) < 0 || tj_require(c, g, p, "axes") != 0 ||
        tj_array(c, g, p, "axes", MAX_AXES, &axes) < 0) {
        return -1;
    }
    tj_path_t bp, ap;
    tj_key(&bp, p, "base");
    tj_key(&ap, p, "axes");
    const json_t *base = json_object_get(g, "base");
    if (base != NULL) {
        if (tj_object(c, base, &bp, config_keys + 1) != 0) return -1;
        r_request_policy_t probe;
        r_client_default_request_policy(&probe);
        if (st_parse_policy(c, base, &bp, &probe) != 0) return -1;
    }
    size_t na = json_array_size(axes);
    if (na == 0) return tj_fail(c, &ap, "expected at least one axis");
    axis_t ax[MAX_AXES];
    for (size_t i = 0; i < na; i++) {
        tj_path_t q;
        tj_idx(&q, &ap, i);
        if (parse_axis(c, json_array_get(axes, i), &q, true, &ax[i]) != 0) return -1;
        for (size_t j = 0; j < i; j++) {
            if (strcmp(ax[i].field, ax[j].field) == 0) {
                tj_path_t fq;
                tj_key(&fq, &q, "field");
                return tj_fail(c, &fq, "\"%s\" already varied by axes[%zu]", ax[i].field, j);
            }
        }
    }
    size_t total = product(ax, na);
    if (total > SWEEP_MAX_CONFIGS || sw->n_configs + total > SWEEP_MAX_CONFIGS) {
        return tj_fail(c, &ap, "the grid has %zu points: more than %u configurations in all", total,
                       SWEEP_MAX_CONFIGS);
    }
    for (size_t k = 0; k < total; k++) {
        size_t idx[MAX_AXES];
        point_index(ax, na, k, idx);
        char name[SWEEP_NAME_MAX];
        snprintf(name, sizeof name, "%s", gname);
        json_t *pt = base != NULL ? json_deep_copy(base) : json_object();
        if (pt == NULL) return tj_fail(c, p, "out of memory");
        int bad = 0;
        for (size_t i = 0; i < na && bad == 0; i++) {
            tj_path_t q;
            tj_idx(&q, &ap, i);
            json_t *v = json_array_get(ax[i].values, idx[i]);
            bad = name_append(c, &q, name, ax[i].label, v) != 0 || set_field(pt, ax[i].field, v) != 0;
        }
        if (bad) {
            json_decref(pt);
            return tj_fail(c, p, "out of memory");
        }
        tj_path_t pp;
        snprintf(pp.s, sizeof pp.s, "grids[%zu](%.63s)", gi, name);
        char origin[160];
        snprintf(origin, sizeof origin, "grids[%zu]", gi); /* the messages add " (NAME)" */
        int r = add_config(c, sw, &pp, name, origin, pt);
        json_decref(pt);
        if (r != 0) return -1;
    }
    return 0;
}

static int parse_grids(tj_ctx_t *c, const json_t *root, sweep_t *sw) {
    json_t *arr = NULL;
    tj_path_t p0;
    tj_key(&p0, NULL, "grids");
    if (tj_array(c, root, NULL, "grids", 256, &arr) < 0) return -1;
    size_t i;
    json_t *g;
    json_array_foreach(arr, i, g) {
        tj_path_t p;
        tj_idx(&p, &p0, i);
        if (parse_grid(c, g, &p, i, sw) != 0) return -1;
    }
    return 0;
}

/* ---- traces ------------------------------------------------------------------------ */

/* key(.key|[n])* with keys of [A-Za-z0-9_]. */
static int valid_trace_path(const char *s) {
    bool need_key = true;
    while (*s) {
        if (need_key) {
            const char *k = s;
            while ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_') s++;
            if (s == k) return -1;
            need_key = false;
        } else if (*s == '.') {
            s++;
            need_key = true;
        } else if (*s == '[') {
            s++;
            const char *d = s;
            while (*s >= '0' && *s <= '9') s++;
            if (s == d || s - d > 6 || *s != ']') return -1;
            s++;
        } else {
            return -1;
        }
    }
    return need_key ? -1 : 0;
}

static char *join_path(const char *base_dir, const char *rel) {
    size_t n = strlen(rel) + (base_dir != NULL ? strlen(base_dir) : 0) + 2;
    char *s = malloc(n);
    if (s == NULL) return NULL;
    if (rel[0] == '/' || base_dir == NULL || base_dir[0] == '\0') snprintf(s, n, "%s", rel);
    else snprintf(s, n, "%s/%s", base_dir, rel);
    return s;
}

static int add_trace(tj_ctx_t *c, sweep_t *sw, const tj_path_t *p, size_t entry, const char *name,
                     const char *origin, const char *rel, const char *base_dir, json_t *sets, bool from_trace) {
    if (sw->n_traces >= SWEEP_MAX_VARIANTS) {
        return tj_fail(c, p, "more than %u traces after variant expansion", SWEEP_MAX_VARIANTS);
    }
    sweep_trace_t *t = &sw->traces[sw->n_traces];
    memset(t, 0, sizeof *t);
    snprintf(t->name, sizeof t->name, "%s", name);
    snprintf(t->origin, sizeof t->origin, "%s", origin);
    t->entry = entry;
    t->name_from_trace = from_trace;
    t->path = join_path(base_dir, rel);
    t->rel_path = strdup(rel);
    t->sets_json = sets != NULL ? json_dumps(sets, JSON_COMPACT | JSON_PRESERVE_ORDER) : strdup("{}");
    sw->n_traces++;
    if (t->path == NULL || t->rel_path == NULL || t->sets_json == NULL) return tj_fail(c, p, "out of memory");
    return 0;
}

static int parse_trace_entry(tj_ctx_t *c, const json_t *e, const tj_path_t *p, size_t ei, const char *base_dir,
                             sweep_t *sw) {
    char origin[160];
    snprintf(origin, sizeof origin, "traces[%zu]", ei);
    if (json_is_string(e)) {
        if (json_string_length(e) == 0) return tj_fail(c, p, "expected a trace file path");
        return add_trace(c, sw, p, ei, "", origin, json_string_value(e), base_dir, NULL, true);
    }
    char path[4096], name[SWEEP_NAME_MAX] = "";
    json_t *vary = NULL;
    if (tj_object(c, e, p, trace_keys) != 0 || tj_require(c, e, p, "path") != 0 ||
        tj_str(c, e, p, "path", false, path, sizeof path) < 0 || read_name(c, e, p, "name", name, sizeof name) < 0 ||
        tj_array(c, e, p, "vary", MAX_VARY, &vary) < 0) {
        return -1;
    }
    size_t nv = json_array_size(vary);
    if (nv == 0) return add_trace(c, sw, p, ei, name, origin, path, base_dir, NULL, name[0] == '\0');
    tj_path_t vp;
    tj_key(&vp, p, "vary");
    axis_t ax[MAX_VARY];
    for (size_t i = 0; i < nv; i++) {
        tj_path_t q;
        tj_idx(&q, &vp, i);
        if (parse_axis(c, json_array_get(vary, i), &q, false, &ax[i]) != 0) return -1;
        for (size_t j = 0; j < i; j++) {
            if (strcmp(ax[i].field, ax[j].field) == 0) {
                tj_path_t fq;
                tj_key(&fq, &q, "field");
                return tj_fail(c, &fq, "\"%s\" already varied by vary[%zu]", ax[i].field, j);
            }
        }
    }
    size_t total = product(ax, nv);
    if (sw->n_traces + total > SWEEP_MAX_VARIANTS) {
        return tj_fail(c, &vp, "%zu variants: more than %u traces in all", total, SWEEP_MAX_VARIANTS);
    }
    for (size_t k = 0; k < total; k++) {
        size_t idx[MAX_VARY];
        point_index(ax, nv, k, idx);
        /* the entry's name, or (sweep_prepare) the trace's own, then the suffix */
        const char *vname = name;
        char suffix[SWEEP_NAME_MAX] = "";
        json_t *sets = json_object();
        if (sets == NULL) return tj_fail(c, p, "out of memory");
        int bad = 0;
        for (size_t i = 0; i < nv && bad == 0; i++) {
            tj_path_t q;
            tj_idx(&q, &vp, i);
            json_t *v = json_array_get(ax[i].values, idx[i]);
            bad = name_append(c, &q, suffix, ax[i].label, v) != 0 || json_object_set(sets, ax[i].field, v) != 0;
        }
        if (!bad) {
            char full[SWEEP_NAME_MAX * 2];
            snprintf(full, sizeof full, "%s%s", vname, suffix);
            char vorigin[160];
            snprintf(vorigin, sizeof vorigin, "traces[%zu] variant %s", ei, suffix + 1);
            bad = add_trace(c, sw, p, ei, full, vorigin, path, base_dir, sets, name[0] == '\0') != 0;
        }
        json_decref(sets);
        if (bad) return -1;
    }
    return 0;
}

static int parse_traces(tj_ctx_t *c, const json_t *root, const char *base_dir, sweep_t *sw) {
    json_t *arr = NULL;
    tj_path_t p0;
    tj_key(&p0, NULL, "traces");
    if (tj_require(c, root, NULL, "traces") != 0 || tj_array(c, root, NULL, "traces", SWEEP_MAX_TRACES, &arr) < 0) {
        return -1;
    }
    if (json_array_size(arr) == 0) return tj_fail(c, &p0, "expected at least one trace");
    sw->traces = calloc(SWEEP_MAX_VARIANTS, sizeof *sw->traces);
    if (sw->traces == NULL) return tj_fail(c, &p0, "out of memory");
    size_t i;
    json_t *e;
    json_array_foreach(arr, i, e) {
        tj_path_t p;
        tj_idx(&p, &p0, i);
        if (parse_trace_entry(c, e, &p, i, base_dir, sw) != 0) return -1;
    }
    sw->n_entries = json_array_size(arr);
    return 0;
}

/* ---- seeds ------------------------------------------------------------------------- */

static int seed_value(tj_ctx_t *c, const json_t *v, const tj_path_t *p, uint64_t *out) {
    if (json_is_integer(v) && json_integer_value(v) >= 0) {
        *out = (uint64_t)json_integer_value(v);
        return 0;
    }
    if (json_is_string(v)) {
        const char *s = json_string_value(v);
        size_t n = strlen(s);
        if (n >= 3 && n <= 18 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && strspn(s + 2, "0123456789abcdefABCDEF") == n - 2) {
            *out = strtoull(s + 2, NULL, 16);
            return 0;
        }
    }
    return tj_fail(c, p, "expected a seed: an integer 0..9223372036854775807 or a \"0x...\" string of 1 to 16 hex digits");
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static int parse_seeds(tj_ctx_t *c, const json_t *root, sweep_t *sw) {
    tj_path_t p;
    tj_key(&p, NULL, "seeds");
    if (tj_require(c, root, NULL, "seeds") != 0) return -1;
    const json_t *v = json_object_get(root, "seeds");
    if (json_is_object(v)) {
        if (tj_object(c, v, &p, range_keys) != 0 || tj_require(c, v, &p, "first") != 0 ||
            tj_require(c, v, &p, "count") != 0) {
            return -1;
        }
        tj_path_t fp;
        tj_key(&fp, &p, "first");
        uint64_t first = 0, count = 0;
        if (seed_value(c, json_object_get(v, "first"), &fp, &first) != 0 ||
            tj_u64(c, v, &p, "count", 1, SWEEP_MAX_SEEDS, &count) < 0) {
            return -1;
        }
        if (first + (count - 1) < first) {
            tj_path_t cp;
            tj_key(&cp, &p, "count");
            return tj_fail(c, &cp, "the range passes 18446744073709551615");
        }
        sw->seeds = malloc(count * sizeof *sw->seeds);
        if (sw->seeds == NULL) return tj_fail(c, &p, "out of memory");
        for (uint64_t i = 0; i < count; i++) sw->seeds[i] = first + i;
        sw->n_seeds = count;
        return 0;
    }
    if (!json_is_array(v)) return tj_fail(c, &p, "expected an array of seeds or {\"first\", \"count\"}");
    size_t n = json_array_size(v);
    if (n == 0 || n > SWEEP_MAX_SEEDS) return tj_fail(c, &p, "expected 1 .. %u seeds", SWEEP_MAX_SEEDS);
    sw->seeds = malloc(n * sizeof *sw->seeds);
    uint64_t *sorted = malloc(n * sizeof *sorted);
    if (sw->seeds == NULL || sorted == NULL) {
        free(sorted);
        return tj_fail(c, &p, "out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        tj_path_t q;
        tj_idx(&q, &p, i);
        if (seed_value(c, json_array_get(v, i), &q, &sw->seeds[i]) != 0) {
            free(sorted);
            return -1;
        }
        sorted[i] = sw->seeds[i];
    }
    sw->n_seeds = n;
    qsort(sorted, n, sizeof *sorted, cmp_u64);
    for (size_t i = 1; i < n; i++) {
        if (sorted[i] == sorted[i - 1]) {
            uint64_t dup = sorted[i];
            free(sorted);
            return tj_fail(c, &p, "duplicate seed %" PRIu64, dup);
        }
    }
    free(sorted);
    return 0;
}

/* ---- top level --------------------------------------------------------------------- */

static void base_name(const char *path, char *out, size_t cap) {
    const char *b = strrchr(path, '/');
    b = b != NULL ? b + 1 : path;
    size_t n = strlen(b);
    if (n > 5 && strcmp(b + n - 5, ".json") == 0) n -= 5;
    snprintf(out, cap, "%.*s", (int)n, b);
}

static int parse_root(tj_ctx_t *c, const json_t *root, const char *base_dir, sweep_t *sw) {
    if (!json_is_object(root)) return tj_fail(c, NULL, "expected a JSON object at the top level");
    char schema[64];
    if (tj_object(c, root, NULL, top_keys) != 0 || tj_require(c, root, NULL, "schema") != 0 ||
        tj_str(c, root, NULL, "schema", false, schema, sizeof schema) < 0) {
        return -1;
    }
    tj_path_t sp;
    tj_key(&sp, NULL, "schema");
    if (strcmp(schema, SWEEP_SCHEMA) != 0) return tj_fail(c, &sp, "expected \"%s\"", SWEEP_SCHEMA);
    base_name(c->file, sw->name, sizeof sw->name);
    if (read_name(c, root, NULL, "name", sw->name, sizeof sw->name) < 0 ||
        tj_str(c, root, NULL, "description", true, sw->description, sizeof sw->description) < 0) {
        return -1;
    }
    if (json_object_get(root, "name") == NULL && !name_ok(sw->name)) {
        tj_path_t np;
        tj_key(&np, NULL, "name");
        return tj_fail(c, &np, "the file name \"%s\" is not a name: give one", sw->name);
    }
    sw->configs = calloc(SWEEP_MAX_CONFIGS, sizeof *sw->configs);
    if (sw->configs == NULL) return tj_fail(c, NULL, "out of memory");
    if (parse_configs(c, root, sw) != 0 || parse_grids(c, root, sw) != 0 ||
        parse_traces(c, root, base_dir, sw) != 0 || parse_seeds(c, root, sw) != 0) {
        return -1;
    }
    if (sw->n_configs == 0) {
        tj_path_t cp;
        tj_key(&cp, NULL, "configurations");
        return tj_fail(c, &cp, "no configurations: give configurations or grids");
    }
    char baseline[SWEEP_NAME_MAX] = "default";
    if (read_name(c, root, NULL, "baseline", baseline, sizeof baseline) < 0) return -1;
    for (sw->baseline = 0; sw->baseline < sw->n_configs; sw->baseline++) {
        if (strcmp(sw->configs[sw->baseline].name, baseline) == 0) break;
    }
    if (sw->baseline == sw->n_configs) {
        tj_path_t bp;
        tj_key(&bp, NULL, "baseline");
        return tj_fail(c, &bp, "no configuration named \"%s\"%s", baseline,
                       json_object_get(root, "baseline") == NULL
                           ? " (the default baseline): add the default preset as a configuration or name a baseline"
                           : "");
    }
    size_t units = sw->n_configs * sw->n_traces;
    if (units > SWEEP_MAX_UNITS || units * sw->n_seeds > SWEEP_MAX_UNITS) {
        return tj_fail(c, NULL, "%zu configurations x %zu traces x %zu seeds is more than %u units", sw->n_configs,
                       sw->n_traces, sw->n_seeds, SWEEP_MAX_UNITS);
    }
    sw->canonical = json_dumps(root, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENSURE_ASCII);
    if (sw->canonical == NULL) return tj_fail(c, NULL, "out of memory");
    return 0;
}

int sweep_parse(const char *text, size_t len, const char *name_for_errors, const char *base_dir, sweep_t *out,
                char *err, size_t err_cap) {
    memset(out, 0, sizeof *out);
    const char *file = name_for_errors != NULL ? name_for_errors : "(sweep)";
    snprintf(out->file, sizeof out->file, "%s", file);
    tj_ctx_t c = {out->file, err, err_cap, false, NULL};
    if (len > SWEEP_MAX_FILE_BYTES) return tj_fail(&c, NULL, "larger than %u bytes", SWEEP_MAX_FILE_BYTES);
    json_error_t je;
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    if (root == NULL) return tj_fail(&c, NULL, "line %d column %d: %s", je.line, je.column, je.text);
    int r = parse_root(&c, root, base_dir, out);
    json_decref(root);
    if (r != 0) {
        char keep[sizeof out->file];
        memcpy(keep, out->file, sizeof keep);
        sweep_free(out);
        memcpy(out->file, keep, sizeof keep);
        return -1;
    }
    return 0;
}

int sweep_load(const char *path, sweep_t *out, char *err, size_t err_cap) {
    memset(out, 0, sizeof *out);
    tj_ctx_t c = {path, err, err_cap, false, NULL};
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) return tj_fail(&c, NULL, "not a regular file");
    FILE *f = fopen(path, "rb");
    if (f == NULL) return tj_fail(&c, NULL, "cannot open: %s", strerror(errno));
    char *buf = malloc(SWEEP_MAX_FILE_BYTES + 1);
    if (buf == NULL) {
        fclose(f);
        return tj_fail(&c, NULL, "out of memory");
    }
    size_t len = fread(buf, 1, SWEEP_MAX_FILE_BYTES + 1, f);
    bool bad = ferror(f) != 0;
    fclose(f);
    if (bad) {
        free(buf);
        return tj_fail(&c, NULL, "read error");
    }
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash != NULL) *slash = '\0';
    else dir[0] = '\0';
    int r = sweep_parse(buf, len, path, slash == NULL ? "" : (dir[0] == '\0' ? "/" : dir), out, err, err_cap);
    free(buf);
    return r;
}

size_t sweep_units(const sweep_t *sw) {
    return sw->n_configs * sw->n_traces * sw->n_seeds;
}

void sweep_unit_split(const sweep_t *sw, size_t u, size_t *c, size_t *t, size_t *s) {
    *s = u % sw->n_seeds;
    *t = (u / sw->n_seeds) % sw->n_traces;
    *c = u / sw->n_seeds / sw->n_traces;
}

void sweep_free(sweep_t *sw) {
    if (sw == NULL) return;
    for (size_t i = 0; sw->traces != NULL && i < sw->n_traces; i++) {
        free(sw->traces[i].path);
        free(sw->traces[i].rel_path);
        free(sw->traces[i].sets_json);
        if (sw->traces[i].loaded) sim_config_free(&sw->traces[i].cfg);
    }
    free(sw->traces);
    free(sw->configs);
    free(sw->seeds);
    free(sw->canonical);
    memset(sw, 0, sizeof *sw);
}
