/* SPDX-License-Identifier: MIT */
/* adapter_proc.h - the testbed's side of the adapter protocol
 * (conformance/ADAPTER.md): start the maintainer's program, exchange JSON
 * lines over its stdin/stdout, bound every answer by a timeout, and keep its
 * stderr to show when it fails.
 *
 * Every request is one JSON object on one line with "id": n, the message
 * number (1 for hello, then counting up); every answer is one line carrying
 * the same id. A wrong answer is named by message number and field. Once the
 * adapter is dead (crashed, hung past the timeout, or broken output) every
 * later call fails at once with the same reason, so a bad adapter never hangs
 * the testbed and never takes more than one timeout. */
#ifndef ADAPTER_PROC_H
#define ADAPTER_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include <jansson.h>

#include "vec_json.h"

#define RL_ADAPTER_PROTOCOL "ratelimitly-adapter/1"
/* The minor revision of the protocol the testbed speaks: 2 adds "stage" on
 * rejections and the declarations of conformance/ADAPTER.md "What's new in
 * revision 2"; an adapter of revision 1 still runs unchanged. */
#define RL_ADAPTER_REVISION 2
#define RL_ADAPTER_DEFAULT_TIMEOUT_MS 10000
/* The wait for the answer to hello, which includes the adapter's start-up (an
 * interpreter, a JIT, a large library): the larger of the per-answer timeout
 * and this, so a slow start on a busy machine is not taken for a hang. */
#define RL_ADAPTER_HELLO_TIMEOUT_MS 30000
#define RL_ADAPTER_LINE_MAX (1u << 20) /* longest answer line accepted, bytes */

typedef struct rl_adapter {
    pid_t pid;
    int to_fd, from_fd;  /* its stdin, its stdout */
    int err_fd;          /* temporary file that receives its stderr */
    int timeout_ms;      /* per answer */
    unsigned long next_id;
    bool dead;
    char dead_reason[VEC_MSG_MAX];
    char *buf;           /* partial line read from its stdout */
    size_t buf_len;
    json_t *hello;       /* the hello answer (owned), NULL before hello */
    char name[64], version[32];
} rl_adapter_t;

/* Start `sh -c cmd` with its stdin and stdout as pipes and its stderr in a
 * temporary file, then do the hello exchange. Returns false with err set
 * (process not started, or a hello that is missing, late or wrong; the
 * adapter's stderr tail is appended) ; a started adapter is stopped again.
 * timeout_ms bounds each answer after hello (>= 1); hello waits the larger
 * of timeout_ms and RL_ADAPTER_HELLO_TIMEOUT_MS. */
bool rl_adapter_start(rl_adapter_t *a, const char *cmd, int timeout_ms, char *err, size_t cap);

/* Close its stdin, wait up to the timeout for it to exit, then kill it. */
void rl_adapter_stop(rl_adapter_t *a);

/* Send req (an object; "id" is added, the reference is borrowed) and read
 * the answer. On success *out is the answer (owned by the caller), its "id"
 * checked. On failure err says "adapter message N (<op>): ..." and the
 * adapter is marked dead when the failure leaves the stream unusable
 * (timeout, exit, unparsable line, wrong id). */
bool rl_adapter_call(rl_adapter_t *a, json_t *req, json_t **out, char *err, size_t cap);

/* One answer line, without its newline (len bytes, any content), to message
 * number id (op: its "op", for the message). RL_ANSWER_OK: *out is the
 * answer object (owned by the caller), its "id" checked. Otherwise *out is
 * NULL and msg says "adapter message N (<op>): ..." naming the field
 * ("id: expected N, got ..."), or that the line is not a JSON object (the
 * stream is then unusable: RL_ANSWER_BROKEN), or the adapter's own
 * "protocol_error" (RL_ANSWER_ERROR; the stream is still usable). Pure: no
 * I/O; rl_adapter_call uses it on every line it reads. */
typedef enum { RL_ANSWER_OK, RL_ANSWER_ERROR, RL_ANSWER_BROKEN } rl_answer_t;
rl_answer_t rl_adapter_parse_answer(const char *line, size_t len, unsigned long id, const char *op, json_t **out,
                                    char *msg, size_t cap);

/* Check a hello answer h (conformance/ADAPTER.md "hello"): protocol, client
 * name and version (copied to a->name, a->version, truncated), capabilities
 * with vector_kinds an array of strings, error_classes a boolean and ha an
 * object when present. False with err "adapter message 1 (hello): <field>:
 * <problem>". Touches nothing of a but name and version; no I/O. */
bool rl_adapter_check_hello(rl_adapter_t *a, const json_t *h, char *err, size_t cap);

/* The last up to cap-1 bytes of the adapter's stderr, NUL-terminated,
 * control characters except newline replaced; "" when it wrote nothing. */
void rl_adapter_stderr_tail(rl_adapter_t *a, char *buf, size_t cap);

/* Capabilities from hello. */
/* Check what hello declares can run (conformance/ADAPTER.md "hello"): every
 * capabilities.vector_kinds entry is a known kind, and the adapter declares
 * at least one kind or HA cases. False with err "adapter message 1 (hello):
 * <field>: <problem>" otherwise: a run of nothing, or of a misspelled kind,
 * would be a green gate with nothing tested. */
bool rl_adapter_check_capabilities(const rl_adapter_t *a, char *err, size_t cap);
/* True when hello's capabilities.vector_kinds lists kind. */
bool rl_adapter_has_kind(const rl_adapter_t *a, const char *kind);
/* capabilities.ha.<feature> is true. */
bool rl_adapter_has_ha(const rl_adapter_t *a, const char *feature);
/* capabilities.ha.<feature> when it is a boolean, else dflt (the
 * declarations of revision 2 that default to "yes": profile, c_api, cancel). */
bool rl_adapter_ha_or(const rl_adapter_t *a, const char *feature, bool dflt);
/* capabilities.<field> (an array of strings: auth_modes, key_formats) lists
 * value; true when the field is absent (everything is taken). */
bool rl_adapter_lists(const rl_adapter_t *a, const char *field, const char *value);
/* capabilities.error_classes (default true): the client reports error classes. */
bool rl_adapter_reports_classes(const rl_adapter_t *a);

#endif /* ADAPTER_PROC_H */
