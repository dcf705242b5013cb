#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write conformance/cases/*.json: the HA decision cases (schema ratelimitly-ha-case/v1,
conformance/README.md).

There is no client model here. Every expected value below was derived by hand from r-client.md
9.3 (and the sections each case cites); the comment above each case shows the derivation on its
timeline. This file only spares the cases from repeating boilerplate.

Usage: python3 conformance/tools/gen_cases.py           (rewrites conformance/cases/, removes stale files)
       python3 conformance/tools/gen_cases.py --check   (exit 1 when a committed case differs)
"""
import json
import os
import sys

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cases")

# Credentials from vectors/api_key.json (tcId 1, 5, 6, 14): quota word 0xf8f2b150
# (dedup_ttl_ms_max 300, latency_buffer_size_max 32) except AES_TTL10 (dedup_ttl_ms_max 10).
KEYS = {
    "none": "rl-none1qyyqwps9qspsyq2sk8e0sfdp3ys",
    "cookie": "rl-cookie1qyrsqqqqqqqqqqqm5ye7en0ufew2xszal4cvzymq4upczpkfa67au5z2fv2vjju92agtruhc9ag94n",
    "aes": "rl-aes1qyyqqqqqqqqqqqyhtpw26t7u4rs2csj0kc7u7veejzf62ygpl5j67xs3kla745vv3egtruhch7sxr7",
}
AES_TTL10 = "rl-aes1q84qxqqqqqqqqqyhtpw26t7u4rs2csj0kc7u7veejzf62ygpl5j67xs3kla745vv3egtzzhcnyv2k2"


def sched(kind, initial, maximum, step=0, factor=0):
    return {"kind": kind, "initial_units": initial, "max_units": maximum,
            "linear_step_units": step, "exponential_factor": factor}


def fixed(n):
    return sched("fixed", n, n)


def policy(U=20, N=1, B=None, P=None, F=1, Pf=0, C=True):
    return {"unit_ms": U, "replay_count": N, "replay_gap": B or fixed(1), "preference": P or fixed(1),
            "final_receive_units": F, "final_preference_units": Pf, "completion_delivery": C}


# The presets as r-client.md 9.3.5, api.md and r-client-ha-design.md 6 describe them.
PRESETS = {
    # U=20 N=1 B=[1,1] P=[1,1] F=1 Pf=0 C=1: rounds [0,20) [20,40), final [40,60), H=60.
    "default": policy(),
    # api.md: P(0)=B(0), P(k>=1)=0, P_final=0: exponential preference with factor 0 gives [1,0].
    "api_md": policy(P=sched("exponential", 1, 1, factor=0)),
    # P(k)=B(k), P_final=F.
    "strict_oldest": policy(Pf=1),
    # 0 < P < B: U=10 B=2 P=1 F=2 Pf=1: round 0 [0,20) pref 10; round 1 [20,40) pref 30;
    # final [40,60) pref 50; H=60.
    "oldest_preferred": policy(U=10, B=fixed(2), P=fixed(1), F=2, Pf=1),
    # P(k)=0, P_final=0.
    "fastest_valid": policy(P=fixed(0)),
}


def srv(name, start, node, listener=0):
    return {"name": name, "start_s_since_2025": start, "listener_id": listener, "node_id": node}


A, B, C = srv("A", 1000, 1), srv("B", 2000, 2), srv("C", 3000, 3)
ABC = [A, B, C]
AB = [A, B]


def init(*names):
    return [{"at": 0, "to": n, "kind": "initial"} for n in names]


def rep(t, k, *names):
    return [{"at": t, "to": n, "kind": "replay", "round": k} for n in names]


def comp(t, *names):
    return [{"at": t, "to": n, "kind": "completion"} for n in names]


def resp(t, server, **kw):
    e = {"at": t, "type": "response", "server": server}
    e.update(kw)
    return e


def bad(t, server, variant, foreign=False):
    e = {"at": t, "type": "invalid", "server": server, "variant": variant}
    if foreign:
        e["foreign_unique_id"] = True
    return e


def timer(t):
    return {"at": t, "type": "timer"}


def cancel(t):
    return {"at": t, "type": "cancel"}


OK_RESULT = {"resources": [{"tokens_deficit": 0, "actual_rate": 1}],
             "guards": [{"current_latency": 5, "passed": True}]}

CASES = []


def case(cid, area, title, spec, events, expect, auth="any", pol="default", servers=ABC, flags=None,
         key=None, preset=None, **extra):
    """pol: a preset name (the case then carries "preset") or a policy dict. auth "any" (the
    default: nothing in the case depends on the mode) carries no key; the runner runs the case
    under each mode with the fixed keys of conformance/README.md "Auth modes" (KEYS above)."""
    c = {"schema": "ratelimitly-ha-case/v1", "id": cid, "area": area, "title": title, "spec": spec}
    if flags:
        c["flags"] = flags
    if auth != "any":
        c["key"] = key or KEYS[auth]
    else:
        assert key is None, cid
    c["auth"] = auth
    if isinstance(pol, str):
        c["policy"] = PRESETS[pol]
        c["preset"] = pol
    else:
        c["policy"] = pol
    c["servers"] = servers
    for k in ("request", "timers", "send_failures"):
        if k in extra:
            c[k] = extra.pop(k)
    assert not extra, extra
    c["events"] = events
    c["expect"] = expect
    CASES.append(c)


def allowed(by, at, sends, rnd=0, phase="round", ttl=60, **kw):
    e = {"outcome": "allowed", "selected": by, "decision_at": at, "completions": 1, "ttl_ms": ttl,
         "profile": {"round": rnd, "phase": phase}}
    e.update(kw)
    e["sends"] = sends
    return e


def denied(by, at, sends, rnd=0, phase="round", ttl=60, **kw):
    e = allowed(by, at, sends, rnd, phase, ttl, **kw)
    e["outcome"] = "denied"
    return e


def failed(outcome, at, sends, rnd, phase, ttl=60, **kw):
    e = {"outcome": outcome, "selected": None, "decision_at": at, "completions": 1, "ttl_ms": ttl,
         "profile": {"round": rnd, "phase": phase}}
    e.update(kw)
    e["sends"] = sends
    return e


def no_completion(outcome, sends, ttl=60):
    e = {"outcome": outcome, "selected": None, "decision_at": None, "completions": 0, "profile": None}
    if ttl is not None:
        e["ttl_ms"] = ttl
    e["sends"] = sends
    return e


R933 = "r-client.md 9.3.3"
R934 = "r-client.md 9.3.4"
R935 = "r-client.md 9.3.5"
R63 = "r-client.md 6.3"
SILENT_D = init("A", "B", "C") + rep(20, 1, "A", "B", "C")  # default policy, no response by t=20
SILENT_OP = SILENT_D  # oldest_preferred: round 0 also ends at 20

# ---- 9.3.3 event algorithm, rule by rule ---------------------------------------------------

# OP. 2: A's datagram fails the cookie check -> ignored, A still missing. 5: B valid, not oldest,
# 5 < pref 10 -> candidate. 10: select B; completion to the missing A and C.
case("rule1_auth_failure_is_not_a_response", "9.3.3",
     "a response that fails authentication is not a response: A stays missing and B is selected",
     [R933 + " rule 1", "r-client.md 6.4 Authentication", R934],
     [bad(2, "A", "bad_cookie"), resp(5, "B")],
     allowed("B", 10, init("A", "B", "C") + comp(10, "A", "C")), auth="cookie", pol="oldest_preferred")

# D. 2: uncorrelated unique_id -> ignored. 7: A (oldest) -> selected at once; completion B, C.
case("rule1_foreign_unique_id_ignored", "9.3.3",
     "a response for another unique_id changes nothing; the oldest server's own response completes",
     [R933 + " rule 1", R933 + " rule 4"],
     [bad(2, "A", "wrong_unique_id"), resp(7, "A")],
     allowed("A", 7, init("A", "B", "C") + comp(7, "B", "C")))

MALFORMED = ["empty", "tenant_truncated", "tenant_type", "tenant_padding", "steering_value", "truncated",
             "pdu_size", "reserved_nonzero"]


def one_fault(cid, title, spec, variants, events, expect, **kw):
    """The single-fault split of a chained case (issue "one fault per test"): one case per invalid
    datagram variant, with the same valid responses and the same expectation, so the first variant
    a client wrongly accepts hides no other. events(v) gives the events with v alone. The chained
    case stays, renamed integration_..., with the flag "integration"."""
    for v in variants:
        case(cid.format(v=v), "datagram", title.format(v=v), spec, events(v), expect, **kw)

# D. Every malformed datagram claims A (would complete at once if accepted); A's valid response
# at 9 is the first usable one.
case("integration_rule2_malformed_datagrams_ignored", "datagram",
     "malformed datagrams (every framing variant) are ignored; the first valid response decides",
     [R933 + " rule 2", "r-client.md 6.2.1 Invalid or unrelated datagram"],
     [bad(1 + i, "A", v) for i, v in enumerate(MALFORMED)] + [resp(9, "A")],
     allowed("A", 9, init("A", "B", "C") + comp(9, "B", "C")), flags=["integration"])

# The same, one malformed datagram per case.
one_fault("rule2_malformed_{v}_ignored", "a malformed datagram ({v}) is ignored; the first valid response decides",
          [R933 + " rule 2", "r-client.md 6.2.1 Invalid or unrelated datagram"], MALFORMED,
          lambda v: [bad(1, "A", v), resp(9, "A")], allowed("A", 9, init("A", "B", "C") + comp(9, "B", "C")))

case("integration_rule2_malformed_datagrams_ignored_aes", "datagram",
     "AES mode: malformed datagrams, including PDU framing errors under a valid tag, are ignored",
     [R933 + " rule 2", "r-client.md 6.2.1 Invalid or unrelated datagram"],
     [bad(1 + i, "A", v) for i, v in enumerate(MALFORMED)] + [resp(9, "A")],
     allowed("A", 9, init("A", "B", "C") + comp(9, "B", "C")), auth="aes", flags=["integration"])

one_fault("rule2_malformed_{v}_ignored_aes", "AES mode: a malformed datagram ({v}) is ignored",
          [R933 + " rule 2", "r-client.md 6.2.1 Invalid or unrelated datagram"], MALFORMED,
          lambda v: [bad(1, "A", v), resp(9, "A")], allowed("A", 9, init("A", "B", "C") + comp(9, "B", "C")),
          auth="aes")

# D. A's two forged datagrams are ignored, so A stays missing. 9: B -> candidate, pref 20.
# 20: select B; completion to A and C.
case("integration_rule2_auth_failures_ignored_cookie", "datagram",
     "cookie mismatch and unknown auth type from the oldest server are ignored; it stays missing",
     [R933 + " rule 2", "r-client.md 6.4 Authentication", R934],
     [bad(1, "A", "bad_cookie"), bad(2, "A", "wrong_auth_type"), resp(9, "B")],
     allowed("B", 20, init("A", "B", "C") + comp(20, "A", "C")), auth="cookie", flags=["integration"])

one_fault("rule2_auth_{v}_ignored_cookie", "cookie: a forged datagram ({v}) from the oldest server is ignored; "
          "it stays missing", [R933 + " rule 2", "r-client.md 6.4 Authentication", R934],
          ["bad_cookie", "wrong_auth_type"], lambda v: [bad(1, "A", v), resp(9, "B")],
          allowed("B", 20, init("A", "B", "C") + comp(20, "A", "C")), auth="cookie")

# D. AES tag, ciphertext and auth-type failures from A are ignored; A's valid response at 4
# completes at once.
case("integration_rule2_auth_failures_ignored_aes", "datagram",
     "AES tag failure, tampered ciphertext and unknown auth type are ignored",
     [R933 + " rule 2", "r-client.md 6.4 Authentication"],
     [bad(1, "A", "bad_tag"), bad(2, "A", "bad_ciphertext"), bad(3, "A", "wrong_auth_type"), resp(4, "A")],
     allowed("A", 4, init("A", "B", "C") + comp(4, "B", "C")), auth="aes", flags=["integration"])

one_fault("rule2_auth_{v}_ignored_aes", "AES: a datagram failing authentication ({v}) is ignored",
          [R933 + " rule 2", "r-client.md 6.4 Authentication"], ["bad_tag", "bad_ciphertext", "wrong_auth_type"],
          lambda v: [bad(1, "A", v), resp(4, "A")], allowed("A", 4, init("A", "B", "C") + comp(4, "B", "C")),
          auth="aes")

# D, a response authenticated with auth none under a cookie or AES key (a client
# that takes "none" from any server lets an on-path attacker forge allow and deny).
for mode in ("cookie", "aes"):
    case("rule2_auth_none_ignored_" + mode, "datagram",
         mode + ": a response authenticated with auth none from the oldest server is ignored; it stays missing",
         [R933 + " rule 2", "r-client.md 6.4 Authentication", R934],
         [bad(1, "A", "auth_none"), resp(9, "B")], allowed("B", 20, init("A", "B", "C") + comp(20, "A", "C")),
         auth=mode)

# D, no authentication: a datagram with another auth type is still rejected.
case("rule2_wrong_auth_type_ignored_none", "datagram",
     "with no authentication, a datagram carrying another auth TLV type is still ignored",
     [R933 + " rule 1", "r-client.md 6.4 Authentication"],
     [bad(1, "A", "wrong_auth_type"), resp(2, "B")],
     allowed("B", 20, init("A", "B", "C") + comp(20, "A", "C")), auth="none")

# OP. 1-5: correlation failures claiming A, including an id older than every member -> ignored.
# 6: C -> candidate. 10: select C; completion A, B.
case("integration_rule2_correlation_failures_ignored", "datagram",
     "untrusted server_id (older than all), wrong PDU kind, admin flag, foreign unique_id and the "
     "reflected request are ignored",
     [R933 + " rule 2", "r-client.md 6.4 Correlation", "r-client.md 9 Trusted Identity"],
     [bad(1, "A", "untrusted_server_id"), bad(2, "A", "wrong_pdu_type"), bad(3, "A", "mgmt_flag"),
      bad(4, "A", "wrong_unique_id"), bad(5, "A", "reflected_request"), resp(6, "C")],
     allowed("C", 10, init("A", "B", "C") + comp(10, "A", "B")), pol="oldest_preferred", flags=["integration"])

# D (the default policy, which a client without a preference schedule runs too: P(0) = B(0)).
# 1: the bad datagram claims A, the oldest (accepted, it would complete at once). 6: C, not the
# oldest -> candidate. 20: preference deadline, select C; completion to A and B.
one_fault("rule2_correlation_{v}_ignored", "a datagram failing correlation ({v}) is ignored",
          [R933 + " rule 2", "r-client.md 6.4 Correlation", "r-client.md 9 Trusted Identity"],
          ["untrusted_server_id", "wrong_pdu_type", "mgmt_flag", "wrong_unique_id", "reflected_request"],
          lambda v: [bad(1, "A", v), resp(6, "C")], allowed("C", 20, init("A", "B", "C") + comp(20, "A", "B")))

# OP. 2: C candidate. 3, 6: duplicates before pref 10: no new responder, no selection.
# 10: select C; completion A, B.
case("rule2_duplicate_before_preference_changes_nothing", "9.3.3",
     "duplicate valid responses before the preference deadline neither add a responder nor select",
     [R933 + " rule 2"],
     [resp(2, "C"), resp(3, "C"), resp(6, "C")],
     allowed("C", 10, init("A", "B", "C") + comp(10, "A", "B")), pol="oldest_preferred")

# OP, manual timers (the timer at 10 is not delivered). 2: C candidate. 11: duplicate from C;
# the preference deadline (10) has elapsed, so the existing candidate is selected now.
case("rule2_duplicate_after_preference_selects_candidate", "9.3.3",
     "a duplicate arriving after the preference deadline makes the existing candidate selectable",
     [R933 + " rule 2", R933 + " rule 5"],
     [resp(2, "C"), resp(11, "C")],
     allowed("C", 11, init("A", "B", "C") + comp(11, "A", "B")), pol="oldest_preferred", timers="manual")

# OP. 2: C candidate. 5: B is older than C -> replaces it. 10: select B; completion only A.
case("rule3_older_response_replaces_candidate", "9.3.3",
     "an older server's response replaces a younger candidate",
     [R933 + " rule 3", R934],
     [resp(2, "C"), resp(5, "B")],
     allowed("B", 10, init("A", "B", "C") + comp(10, "A")), pol="oldest_preferred")

# OP. 2: B candidate. 5: C is younger -> recorded as responded, candidate stays B.
case("rule3_younger_response_keeps_candidate", "9.3.3",
     "a younger server's response is recorded but does not replace the candidate",
     [R933 + " rule 3", R934],
     [resp(2, "B"), resp(5, "C")],
     allowed("B", 10, init("A", "B", "C") + comp(10, "A")), pol="oldest_preferred")

# D. 3: A is the oldest snapshot member -> selected immediately; completion B, C.
case("rule4_oldest_selected_immediately", "9.3.3",
     "the globally oldest server's response is selected at once",
     [R933 + " rule 4", R934],
     [resp(3, "A")],
     allowed("A", 3, init("A", "B", "C") + comp(3, "B", "C"), keep_port=True, result=OK_RESULT, rebinds=0))

# OP. 2: C candidate. 6: A -> selected at once (before pref 10); completion only B.
case("rule4_oldest_after_candidate", "9.3.3",
     "the oldest server completes at once even while a younger candidate waits",
     [R933 + " rule 4", R934],
     [resp(2, "C"), resp(6, "A")],
     allowed("A", 6, init("A", "B", "C") + comp(6, "B")), pol="oldest_preferred")

# OP. 10: pref deadline without candidate: nothing. 12: C after the preference deadline -> at once.
case("rule5_response_after_preference_selected_at_once", "9.3.3",
     "a response arriving after the round's preference deadline completes at once",
     [R933 + " rule 5", R933 + " rule 6"],
     [resp(12, "C")],
     allowed("C", 12, init("A", "B", "C") + comp(12, "A", "B")), pol="oldest_preferred")

# OP, manual timers. 2: B candidate. 12: C (younger) after the preference deadline -> the current
# candidate B is selected, not C. Completion only A.
case("rule5_late_younger_response_selects_current_candidate", "9.3.3",
     "after the preference deadline a younger response selects the current (older) candidate",
     [R933 + " rule 3", R933 + " rule 5"],
     [resp(2, "B"), resp(12, "C")],
     allowed("B", 12, init("A", "B", "C") + comp(12, "A")), pol="oldest_preferred", timers="manual")

# OP. 4: B candidate. 10: preference deadline with candidate -> select B; completion A, C.
case("rule6_preference_deadline_selects_candidate", "9.3.3",
     "at the preference deadline the candidate is selected",
     [R933 + " rule 6", R934],
     [resp(4, "B")],
     allowed("B", 10, init("A", "B", "C") + comp(10, "A", "C")), pol="oldest_preferred")

# OP. 10: no candidate -> keep waiting (no send). 20: replay round 1 to all; round 1 pref 30.
# 25: C candidate. 30: select C; completion A, B.
case("rule6_no_candidate_waits_for_replay_deadline", "9.3.3",
     "without a candidate the preference deadline passes silently; the replay deadline starts round 1",
     [R933 + " rule 6", R933 + " rule 7"],
     [resp(25, "C")],
     allowed("C", 30, SILENT_OP + comp(30, "A", "B"), rnd=1), pol="oldest_preferred")

# D, AES. 20: replay to every missing server (all three), same unique_id. 22: A -> at once.
case("rule7_replay_to_missing_servers", "9.3.3",
     "a silent round ends with a replay of the same logical request to every missing server",
     [R933 + " rule 7", "r-client.md 9.3.2"],
     [resp(22, "A")],
     allowed("A", 22, SILENT_D + comp(22, "B", "C"), rnd=1))

# U=10 N=3 B=[1,1,1,1] P=[1,1,1,1] F=0: rounds start 0,10,20,30; H=40. Silent: replays at 10, 20,
# 30; at 40 the last round expires with F=0 -> timeout, round 3.
case("rule7_replays_until_budget_spent", "9.3.3",
     "replays continue round by round until replay_count is spent; with F=0 the request then fails",
     [R933 + " rule 7", R933 + " rule 8", "r-client.md 9.3.1"],
     [],
     failed("timeout", 40, init("A", "B", "C") + rep(10, 1, "A", "B", "C") + rep(20, 2, "A", "B", "C")
            + rep(30, 3, "A", "B", "C"), 3, "round", ttl=40),
     pol=policy(U=10, N=3, F=0))

# D. Silent rounds 0 and 1; 40: final receive-only interval (no send), P_final=0.
# 45: C -> selected at once; completion A, B.
case("rule8_final_interval_after_last_round", "9.3.3",
     "after the last silent round the final receive-only interval sends nothing and accepts a response",
     [R933 + " rule 8", R933 + " final receive-only interval"],
     [resp(45, "C")],
     allowed("C", 45, SILENT_D + comp(45, "A", "B"), rnd=1, phase="final"))

# D with F=0: H=40. Silent -> timeout at 40 (end of round 1). 45: a late response is ignored.
case("rule8_no_final_interval_reports_failure", "9.3.3",
     "with F=0 the request fails when the last round expires; a later response changes nothing",
     [R933 + " rule 8", "r-client.md 6.2.1 Last replay deadline without candidate"],
     [resp(45, "A")],
     failed("timeout", 40, SILENT_D, 1, "round", ttl=40),
     pol=policy(F=0, Pf=0))

# OP. 20 replay; 30 round-1 pref, no candidate; 40 final [40,60), pref 50. 42: C candidate.
# 45: B replaces C. 50: select B; completion A.
case("final_preference_keeps_candidate", "9.3.3",
     "the final interval applies the ranking rule until its preference deadline",
     [R933 + " final receive-only interval", R933 + " rule 3"],
     [resp(42, "C"), resp(45, "B")],
     allowed("B", 50, SILENT_OP + comp(50, "A"), rnd=1, phase="final"), pol="oldest_preferred")

# OP. Final pref deadline 50 passed without candidate; 52: C -> at once.
case("final_response_after_final_preference", "9.3.3",
     "in the final interval a valid response after its preference deadline is selected at once",
     [R933 + " final receive-only interval"],
     [resp(52, "C")],
     allowed("C", 52, SILENT_OP + comp(52, "A", "B"), rnd=1, phase="final"), pol="oldest_preferred")

# OP. 41: A in the final interval, before P_final -> oldest, at once.
case("final_oldest_selected_immediately", "9.3.3",
     "in the final interval the oldest server still completes at once",
     [R933 + " rule 4", R933 + " final receive-only interval"],
     [resp(41, "A")],
     allowed("A", 41, SILENT_OP + comp(41, "B", "C"), rnd=1, phase="final"), pol="oldest_preferred")

# OP. Silent throughout: 20 replay, 60 end of the final interval -> timeout.
case("final_deadline_reports_failure", "9.3.3",
     "the final interval's end deadline without a response is a transport failure",
     [R933 + " final receive-only interval", "r-client.md 6.2.1 Final deadline without candidate"],
     [],
     failed("timeout", 60, SILENT_OP, 1, "final"), pol="oldest_preferred")

# D. 20: B arrives at the same instant as the round-0 deadline. Datagrams first: 20 >= pref 20,
# so B is selected now (rule 5) and no replay is sent; completion A, C.
case("simultaneous_datagram_before_deadline", "datagram",
     "a datagram and a deadline ready at the same instant: the datagram is processed first",
     [R933 + " simultaneous receive and deadline", R933 + " rule 5"],
     [resp(20, "B")],
     allowed("B", 20, init("A", "B", "C") + comp(20, "A", "C")), flags=["convention"])

# OP. 10: C and then B arrive at exactly the preference deadline (10), before the timer. 10 >= 10:
# the preference interval has elapsed, so C is selected at once (rule 5); B arrives after the
# selection and changes nothing, but it was still missing then: completion to A and B.
case("preference_deadline_reached_at_equal_time", "datagram",
     "a response at exactly the preference deadline is after it: the first one is selected at once",
     [R933 + " rule 5", "r-client.md 9.3.1 (at or after a deadline)"],
     [resp(10, "C"), resp(10, "B")],
     allowed("C", 10, init("A", "B", "C") + comp(10, "A", "B")), pol="oldest_preferred",
     flags=["convention", "boundary"])

# D, manual timers: the round-0 deadline (20) is overdue but not delivered. 25: B arrives while the
# client is still in round 0, its preference elapsed -> B at once; no replay is ever sent.
case("overdue_deadline_datagram_first", "timer",
     "a response processed while the round-0 deadline is overdue is judged in round 0",
     [R933 + " simultaneous receive and deadline", R933 + " rule 5", R63],
     [resp(25, "B")],
     allowed("B", 25, init("A", "B", "C") + comp(25, "A", "C")), timers="manual", flags=["convention"])

# D. 3: A selected. 4, 5: B and C arrive late -> ignored, exactly one completion.
case("late_responses_after_selection_ignored", "datagram",
     "responses after the selection do not change the result or complete twice",
     [R933 + " (later responses MUST NOT change the completed result)", R63],
     [resp(3, "A"), resp(4, "B", resources=[{"tokens_deficit": 1, "actual_rate": 100}]), resp(5, "C")],
     allowed("A", 3, init("A", "B", "C") + comp(3, "B", "C"), result=OK_RESULT))

# ---- 9.3.4 completion delivery ---------------------------------------------------------------

DENY_RES = {"resources": [{"tokens_deficit": 1, "actual_rate": 100}],
            "guards": [{"current_latency": 5, "passed": True}]}

# D. 3: A denies -> selected at once; completion delivery is outcome-independent: B, C.
case("completion_delivery_for_denied_response", "9.3.4",
     "a selected deny is preceded by completion delivery just like an allow",
     [R934, R933 + " (allow and deny are equally valid)"],
     [resp(3, "A", resources=[{"tokens_deficit": 1, "actual_rate": 100}])],
     denied("A", 3, init("A", "B", "C") + comp(3, "B", "C"), result=DENY_RES), auth="cookie")

# D with C=0. 5: B candidate. 20: B selected; no completion send, no replay.
case("completion_delivery_disabled", "9.3.4",
     "with completion_delivery false nothing is sent when a response is selected",
     [R934, "r-client.md 9.3.1 C"],
     [resp(5, "B")],
     allowed("B", 20, init("A", "B", "C")), pol=policy(C=False))

# OP, two servers. 2: B candidate. 3: A -> selected; both responded: no completion send.
case("completion_delivery_nobody_missing", "9.3.4",
     "completion delivery goes only to servers still missing a valid response: none here",
     [R934],
     [resp(2, "B"), resp(3, "A")],
     allowed("A", 3, init("A", "B")), pol="oldest_preferred", servers=AB)

# D. 3: A selected; completion to B fails, C still gets its copy; the result is unchanged.
case("completion_delivery_send_failure_ignored", "9.3.4",
     "a failed completion-delivery send changes nothing and does not skip other missing servers",
     [R934 + " (fire-and-forget to every missing server)"],
     [resp(3, "A")],
     allowed("A", 3, init("A", "B", "C") + [{"at": 3, "to": "B", "kind": "completion", "ok": False}]
             + comp(3, "C")),
     send_failures=[{"server": "B", "from": 1, "count": 1}])

# D. Silent until the dedup deadline H=60. 60: C arrives exactly at the final end deadline;
# datagrams first -> selected (P_final=0 elapsed), but no completion send at t >= H.
case("completion_delivery_not_at_dedup_deadline", "9.3.4",
     "a response selected at the dedup deadline is returned without completion delivery",
     ["r-client.md 9.3.1 (no send at or after the deduplication deadline)", R934,
      R933 + " simultaneous receive and deadline"],
     [resp(60, "C")],
     allowed("C", 60, SILENT_D, rnd=1, phase="final"), flags=["convention", "boundary"])

# ---- 9.3.5 default schedule --------------------------------------------------------------------

# 5: B candidate. 8: C younger, recorded. 20: select B (P(0)=1); completion only A; no replay.
case("default_phase1_fallback_at_u", "9.3.5",
     "default schedule phase 1: the oldest valid fallback is returned at U",
     [R935 + " item 1"],
     [resp(5, "B"), resp(8, "C")],
     allowed("B", 20, init("A", "B", "C") + comp(20, "A")))

# 20: replay to all. 25: A -> at once; completion B, C.
case("default_phase2_oldest", "9.3.5",
     "default schedule phase 2: after the replay the oldest server still completes at once",
     [R935 + " item 2"],
     [resp(25, "A")],
     allowed("A", 25, SILENT_D + comp(25, "B", "C"), rnd=1))

# 20: replay. 30: B candidate, P(1)=1 -> pref 40. 40: select B; completion A, C.
case("default_phase2_fallback_at_2u", "9.3.5",
     "default schedule phase 2: a younger response in round 1 is held until 2U",
     [R935 + " item 2", R933 + " rule 6"],
     [resp(30, "B")],
     allowed("B", 40, SILENT_D + comp(40, "A", "C"), rnd=1))

# 40: final interval, P_final=0. 58: B -> first valid response, at once; completion A, C.
case("default_phase3_first_valid_response", "9.3.5",
     "default schedule phase 3: the first valid response in the final U is returned at once",
     [R935 + " item 3"],
     [resp(58, "B")],
     allowed("B", 58, SILENT_D + comp(58, "A", "C"), rnd=1, phase="final"))

# Silent: 20 replay, 40 final, 60 timeout.
case("default_phase3_timeout", "9.3.5",
     "default schedule: no response in 3U is a failure at t0 + 60 ms after two transmissions",
     [R935, "r-client.md 9.3.1 H"],
     [],
     failed("timeout", 60, SILENT_D, 1, "final"))

# ---- presets ------------------------------------------------------------------------------------

# api_md: P(0)=B(0)=1. 5: B candidate. 15: A -> at once; completion only C.
case("preset_api_md_round0_prefers_oldest", "preset",
     "api.md preset: round 0 keeps the oldest-server preference",
     ["api.md Resource-Request HA Policy", "spec README Known disagreements"],
     [resp(5, "B"), resp(15, "A")],
     allowed("A", 15, init("A", "B", "C") + comp(15, "C")), pol="api_md")

# api_md: P(1)=0 -> round 1 pref deadline 20. 25: C -> at once; completion A, B.
case("preset_api_md_round1_completes_at_once", "preset",
     "api.md preset: any valid response in round 1 completes at once",
     ["api.md Resource-Request HA Policy (k >= 1 completes immediately)"],
     [resp(25, "C")],
     allowed("C", 25, SILENT_D + comp(25, "A", "B"), rnd=1), pol="api_md")

# api_md final: P_final=0. 41: B -> at once.
case("preset_api_md_final_first_valid", "preset",
     "api.md preset: the final phase completes on the first valid response",
     ["api.md Resource-Request HA Policy"],
     [resp(41, "B")],
     allowed("B", 41, SILENT_D + comp(41, "A", "C"), rnd=1, phase="final"), pol="api_md")

# strict_oldest round 0 = default round 0: 1: B candidate. 20: B; completion A, C.
case("preset_strict_oldest_round0_waits_full_round", "preset",
     "strict-oldest: a fallback waits for the full round",
     ["r-client-ha-design.md 6 Strict-oldest"],
     [resp(1, "B")],
     allowed("B", 20, init("A", "B", "C") + comp(20, "A", "C")), pol="strict_oldest")

# strict_oldest final [40,60), P_final=F -> pref 60. 45: C candidate, 50: B replaces. 60: select B;
# 60 = H, so no completion delivery.
case("preset_strict_oldest_final_waits_for_horizon", "preset",
     "strict-oldest: the final candidate is held to the horizon, where no completion send is allowed",
     ["r-client-ha-design.md 6 Strict-oldest", R933 + " final receive-only interval",
      "r-client.md 9.3.1 (no send at or after the deduplication deadline)"],
     [resp(45, "C"), resp(50, "B")],
     allowed("B", 60, SILENT_D, rnd=1, phase="final"), pol="strict_oldest", flags=["boundary"])

# OP round 1 [20,40), pref 30. 21: C candidate. 24: B replaces. 30: select B; completion A.
case("preset_oldest_preferred_round1_candidate", "preset",
     "oldest-preferred: in round 1 the oldest response seen by the preference deadline wins",
     ["r-client-ha-design.md 6 Oldest-preferred", R933 + " rule 3", R933 + " rule 6"],
     [resp(21, "C"), resp(24, "B")],
     allowed("B", 30, SILENT_OP + comp(30, "A"), rnd=1), pol="oldest_preferred")

# fastest_valid P=0: 1: C -> preference already elapsed -> at once; completion A, B.
case("preset_fastest_valid_first_response", "preset",
     "fastest-valid: the first valid response completes at once",
     ["r-client-ha-design.md 6 Fastest-valid", R933 + " rule 5"],
     [resp(1, "C")],
     allowed("C", 1, init("A", "B", "C") + comp(1, "A", "B")), pol="fastest_valid")

# fastest_valid: round 0 silent -> replay at 20. 21: B -> at once.
case("preset_fastest_valid_round1", "preset",
     "fastest-valid: with no candidate the round still lasts B(0), then the first response wins",
     ["r-client-ha-design.md 6 Fastest-valid", R933 + " rule 7"],
     [resp(21, "B")],
     allowed("B", 21, SILENT_D + comp(21, "A", "C"), rnd=1), pol="fastest_valid")

# ---- fixed / linear / exponential schedules -----------------------------------------------------

# U=10 N=3 B=linear(1, +1, max 3)=[1,2,3,3] P=[1,1,1,1] F=2 Pf=0: rounds [0,10) [10,30) [30,60)
# [60,90), final [90,110), H=10*(1+2+3+3+2)=110.
LINEAR = policy(U=10, N=3, B=sched("linear", 1, 3, step=1), F=2)
LINEAR_SILENT = (init("A", "B", "C") + rep(10, 1, "A", "B", "C") + rep(30, 2, "A", "B", "C")
                 + rep(60, 3, "A", "B", "C"))
case("schedule_linear_silent_timeout", "schedule",
     "linear replay gaps 1,2,3,3 (capped): replays at 10, 30, 60, final to 110",
     ["r-client.md 9.3.1 linear", R933 + " rules 7 and 8"],
     [],
     failed("timeout", 110, LINEAR_SILENT, 3, "final", ttl=110), pol=LINEAR)

# Same policy. Round 3 [60,90) pref 70. 65: C candidate. 70: select C; completion A, B.
case("schedule_linear_round3_candidate", "schedule",
     "linear schedule: the preference deadline of round 3 is its start plus P(3)",
     ["r-client.md 9.3.1 linear", R933 + " rule 6"],
     [resp(65, "C")],
     allowed("C", 70, LINEAR_SILENT + comp(70, "A", "B"), rnd=3, ttl=110), pol=LINEAR)

# U=10 N=3 B=exp(1, x2, max 8)=[1,2,4,8] P=exp(1, x2, max 2)=[1,2,2,2] F=0: rounds [0,10) [10,30)
# [30,70) [70,150); pref deadlines 10, 30, 50, 90; H=150.
EXPO = policy(U=10, N=3, B=sched("exponential", 1, 8, factor=2), P=sched("exponential", 1, 2, factor=2),
              F=0)
EXPO_SILENT = (init("A", "B", "C") + rep(10, 1, "A", "B", "C") + rep(30, 2, "A", "B", "C")
               + rep(70, 3, "A", "B", "C"))
case("schedule_exponential_silent_timeout", "schedule",
     "exponential replay gaps 1,2,4,8: replays at 10, 30, 70; without F the request fails at 150",
     ["r-client.md 9.3.1 exponential", R933 + " rules 7 and 8"],
     [],
     failed("timeout", 150, EXPO_SILENT, 3, "round", ttl=150), pol=EXPO)

# Round 2 [30,70), pref 30+20=50. 40: B candidate. 50: select B; completion A, C.
case("schedule_exponential_preference_bounded", "schedule",
     "exponential backoff with a shorter preference: the candidate is returned at P(2), not at B(2)",
     ["r-client.md 9.3.1 (P(k) is independent of B(k))", R933 + " rule 6"],
     [resp(40, "B")],
     allowed("B", 50, init("A", "B", "C") + rep(10, 1, "A", "B", "C") + rep(30, 2, "A", "B", "C")
             + comp(50, "A", "C"), rnd=2, ttl=150), pol=EXPO)

# Round 2 pref 50 elapsed. 55: B -> at once.
case("schedule_exponential_response_after_preference", "schedule",
     "exponential schedule: once P(2) has elapsed the next valid response completes at once",
     ["r-client.md 9.3.1 (Once P(k) has elapsed ...)", R933 + " rule 5"],
     [resp(55, "B")],
     allowed("B", 55, init("A", "B", "C") + rep(10, 1, "A", "B", "C") + rep(30, 2, "A", "B", "C")
             + comp(55, "A", "C"), rnd=2, ttl=150), pol=EXPO)

# U=20 N=0 F=0: one round [0,20), H=20. Silent -> timeout at 20 without any replay.
case("schedule_single_round_no_final", "schedule",
     "N=0 and F=0: one transmission, failure at B(0)",
     ["r-client.md 9.3.1", R933 + " rule 8"],
     [],
     failed("timeout", 20, init("A", "B", "C"), 0, "round", ttl=20), pol=policy(N=0, F=0))

# U=10 N=0 B=5 P=0 F=0: H=50. 7: C, preference 0 elapsed -> at once.
case("schedule_zero_preference_long_round", "schedule",
     "P(0)=0 with a long round: the first response completes at once",
     ["r-client.md 9.3.1 (Preference values may be zero)", R933 + " rule 5"],
     [resp(7, "C")],
     allowed("C", 7, init("A", "B", "C") + comp(7, "A", "B"), ttl=50),
     pol=policy(U=10, N=0, B=fixed(5), P=fixed(0), F=0))

# ---- r-client-ha-design.md section 10 traces (A oldest, B newer) --------------------------------

DESIGN10 = "r-client-ha-design.md 10"
# OP. 2: A -> at once; B has not answered yet, so it gets the completion copy. 3: B ignored.
case("trace1_healthy_synchronized_servers", "trace",
     "healthy synchronized servers: A is selected as soon as its response arrives",
     [DESIGN10 + " Healthy synchronized servers", R933 + " rule 4"],
     [resp(2, "A"), resp(3, "B")],
     allowed("A", 2, init("A", "B") + comp(2, "B")), pol="oldest_preferred", servers=AB)

# OP. 1: B candidate. 9: A before pref 10 -> at once; both answered: no completion send.
case("trace2_slow_oldest_within_preference", "trace",
     "slow oldest server arriving by the preference deadline is selected",
     [DESIGN10 + " Slow oldest server"],
     [resp(1, "B"), resp(9, "A")],
     allowed("A", 9, init("A", "B")), pol="oldest_preferred", servers=AB)

# OP. 1: B candidate. 10: B selected; completion to A. 12: A's late response changes nothing.
case("trace2_slow_oldest_after_preference", "trace",
     "slow oldest server after the preference deadline: B at that deadline, A's late response ignored",
     [DESIGN10 + " Slow oldest server", R933 + " rule 6"],
     [resp(1, "B"), resp(12, "A")],
     allowed("B", 10, init("A", "B") + comp(10, "A")), pol="oldest_preferred", servers=AB)

# OP. 1: B candidate; A never answers. 10: B; completion delivery to A.
case("trace3_preferred_server_failure", "trace",
     "preferred-server failure: B at the preference deadline, then completion delivery to A",
     [DESIGN10 + " Preferred-server failure", R934],
     [resp(1, "B")],
     allowed("B", 10, init("A", "B") + comp(10, "A")), pol="oldest_preferred", servers=AB)

# Default schedule: the preference deadline is U=20.
case("trace3_preferred_server_failure_default", "trace",
     "preferred-server failure under the default schedule: B at U, completion delivery to A",
     [DESIGN10 + " Preferred-server failure", R935],
     [resp(1, "B")],
     allowed("B", 20, init("A", "B") + comp(20, "A")), servers=AB)

# ---- cancellation -------------------------------------------------------------------------------

# OP. 2: B candidate. 5: cancel -> no completion, no completion delivery. 7: A ignored.
case("cancel_with_candidate_suppresses_completion", "cancel",
     "cancelling with a held candidate suppresses completion; a later oldest response is ignored",
     ["r-client.md 6.2.1 Cancellation/close", "r-client.md 6.3 rule 5"],
     [resp(2, "B"), cancel(5), resp(7, "A")],
     no_completion("cancelled", init("A", "B", "C")), pol="oldest_preferred")

# D. Silent to the final interval; 45: cancel; 50: C ignored.
case("cancel_in_final_phase", "cancel",
     "cancelling in the final receive-only interval: nothing more is sent or delivered",
     ["r-client.md 6.2.1 FinalReceive -> Cancelled"],
     [cancel(45), resp(50, "C")],
     no_completion("cancelled", SILENT_D))

# ---- send failures -------------------------------------------------------------------------------
# r-client.md 9.3 "Delivery: make a best-effort attempt to deliver the same logical operation to
# every server in the request's membership snapshot" (it ranks above api.md's abort of the submit):
# a send that fails towards one server never skips the others, and only a transmission that reaches
# no server at all fails (docs/spec-notes.md "Send failures"). The last two cases follow api.md for
# that all-failed transmission (flag c_api).

# D. The initial send to A (the oldest) fails; B and C get it. r-client-ha-design.md 10
# "Preferred-server failure": A produces no response, B returns a valid one -> select B at the
# preference deadline. 5: B -> candidate. 20: P(0) elapsed -> B selected; completion to the missing
# A (this attempt succeeds: only A's first send fails) and C.
case("send_failure_initial_to_oldest_still_selects_b", "send_failure",
     "a failing initial send to the oldest server does not keep the request from the others; B is selected",
     ["r-client.md 9.3 (Delivery: best effort to every server in the snapshot)",
      "r-client-ha-design.md 10 (Preferred-server failure)", R933 + " rules 5 and 6"],
     [resp(5, "B")],
     allowed("B", 20, [{"at": 0, "to": "A", "kind": "initial", "ok": False}] + init("B", "C")
             + comp(20, "A", "C")),
     send_failures=[{"server": "A", "from": 0, "count": 1}])

# D. Silent round 0. 20: replay to A fails, B and C still get theirs. 25: C -> candidate (round 1's
# preference deadline is 40). 40: C selected; completion to A and B.
case("send_failure_on_replay_to_one_server_goes_on", "send_failure",
     "a failing replay send to one server does not end the request; the others still get the replay",
     ["r-client.md 9.3 (Delivery: best effort to every server in the snapshot)", R933 + " rule 7"],
     [resp(25, "C")],
     allowed("C", 40, init("A", "B", "C") + [{"at": 20, "to": "A", "kind": "replay", "round": 1, "ok": False}]
             + rep(20, 1, "B", "C") + comp(40, "A", "B"), rnd=1),
     send_failures=[{"server": "A", "from": 1, "count": 1}])

# One server. 20: the replay send to A fails: the round reached no server -> the request ends with
# send_failed in round 1. 25: A's response is ignored.
case("send_failure_on_replay_ends_request", "send_failure",
     "a replay round whose sends all fail ends the request with a transport failure",
     ["r-client.md 6.4 Transport", "api.md Error Codes (RCLIENT_ERR_IO: callback, replay rounds)"],
     [resp(25, "A")],
     failed("send_failed", 20, init("A") + [{"at": 20, "to": "A", "kind": "replay", "round": 1, "ok": False}],
            1, "round"),
     servers=[A], send_failures=[{"server": "A", "from": 1, "count": 1}], flags=["c_api"])

# One server; the initial send fails: no server got it, the submission reports it, no completion.
case("send_failure_on_initial_send", "send_failure",
     "an initial transmission that reaches no server is reported by the submission; no completion follows",
     ["r-client.md 6.2.1 Prepared", "api.md Resource Requests (first-transmission RCLIENT_ERR_IO)"],
     [],
     no_completion("submit_send_failed", [{"at": 0, "to": "A", "kind": "initial", "ok": False}], ttl=None),
     servers=[A], send_failures=[{"server": "A", "from": 0, "count": 1}], flags=["c_api"])

# ---- late and early timers ------------------------------------------------------------------------

# D, manual. 10: early timer, no effect. 27: late timer -> round 1 starts, replay sent at 27.
# Deadlines stay absolute: 40 final, 60 timeout.
case("late_timer_replays_at_delivery", "timer",
     "a late timer sends the due replay when delivered; later deadlines stay absolute",
     [R63 + " rule 3", R933 + " rule 7", "r-client.md 9.3.1 (no send at or after the deduplication deadline)"],
     [timer(10), timer(27)],
     failed("timeout", 60, init("A", "B", "C") + rep(27, 1, "A", "B", "C"), 1, "final"), timers="manual")

# D, manual. 45: the timer is delivered after the round-0 and round-1 deadlines. Rounds already over
# are skipped (docs/spec-notes.md "Late timers"): round 1 ended at 40, so at 45 the final
# receive-only interval [40,60) is current, and it "sends no replay" (r-client.md 9.3.3).
# 50: C -> at once (P_final=0); completion A, B (none of them answered).
case("late_timer_crosses_two_deadlines", "timer",
     "a timer late past two deadlines skips the round already over and enters the final interval without a replay",
     [R63, R933 + " rules 7 and 8", R933 + " (the final receive-only interval sends no replay)"],
     [timer(45), resp(50, "C")],
     allowed("C", 50, init("A", "B", "C") + comp(50, "A", "B"), rnd=1, phase="final"),
     timers="manual")

# U=20 N=3 B=[1,1,1,1] P=[1,1,1,1] F=1 Pf=0: rounds [0,20) [20,40) [40,60) [60,80), final
# [80,100), H=100. Manual timer at 65, after three round deadlines: rounds 1 [20,40) and 2 [40,60)
# are over and skipped; round 3 is current at 65 and replays once to each missing server (65 <
# H). One replay per server, not three in one instant: round k's transmission belongs to round k's
# interval, and B(k) is the gap before the next replay (r-client.md 9.3.1). Each server's first
# replay is in round 3 ("round" counts a server's replays, README "Expectations"). No response:
# 80 final (no send), 100 timeout, profile round 3 final.
N3 = policy(N=3)
case("late_timer_skips_rounds_already_over", "timer",
     "a timer late past three round deadlines replays once, in the round current when it is delivered",
     ["r-client.md 9.3.1 (B(k) is the gap before the next replay; no send at or after the deduplication deadline)",
      R933 + " rule 7", R933 + " rule 8", R63],
     [timer(65)],
     failed("timeout", 100, init("A", "B", "C") + rep(65, 1, "A", "B", "C"), 3, "final", ttl=100),
     pol=N3, timers="manual")

# D, manual. 65: first timer after H=60: no replay (t >= H), every deadline elapsed -> timeout at 65.
case("late_timer_after_horizon_sends_nothing", "timer",
     "a timer delivered after the dedup deadline sends no replay and fails the request",
     ["r-client.md 9.3.1 (no send at or after the deduplication deadline)", R63],
     [timer(65)],
     failed("timeout", 65, init("A", "B", "C"), 1, "final"), timers="manual", flags=["boundary"])

# OP, manual. 3: B candidate. 18: late timer, preference deadline 10 overdue -> select B at 18.
case("late_timer_selects_candidate", "timer",
     "a late timer selects the held candidate when delivered",
     [R63, R933 + " rule 6"],
     [resp(3, "B"), timer(18)],
     allowed("B", 18, init("A", "B", "C") + comp(18, "A", "C")), pol="oldest_preferred", timers="manual")

# ---- ranking and membership -----------------------------------------------------------------------

# Servers listed youngest first. OP. 3: B candidate. 6: A (oldest by server_id) -> at once.
case("ranking_by_server_id_not_config_order", "ranking",
     "age comes from server_id, not from the order of the configured servers",
     ["r-client.md 9 Age Ordering", "r-client.md 9.1"],
     [resp(3, "B"), resp(6, "A")],
     allowed("A", 6, init("A", "B", "C") + comp(6, "C")), pol="oldest_preferred", servers=[C, B, A])

# Same start time: Q (node 4) < P (node 9) < R (listener 1) by full server_id. OP.
# 2: R candidate. 4: P replaces R. 6: Q is the oldest -> at once; all answered: no completion.
TIE = [srv("P", 500, 9), srv("Q", 500, 4), srv("R", 500, 0, listener=1)]
case("ranking_tie_break_lower_server_id", "ranking",
     "equal start times: the lower full server_id is older",
     ["r-client.md 9.1 ranking rule 2", "r-client.md 9.3.2"],
     [resp(2, "R"), resp(4, "P"), resp(6, "Q")],
     allowed("Q", 6, init("P", "Q", "R")), pol="oldest_preferred", servers=TIE)

# One server, OP. 4: its response is from the oldest member -> at once, before pref 10.
case("single_server_response_is_oldest", "ranking",
     "with one server every valid response is from the oldest server and completes at once",
     ["r-client-ha-design.md 2 item 4", R933 + " rule 4"],
     [resp(4, "A")],
     allowed("A", 4, init("A")), pol="oldest_preferred", servers=[A])

# One server, D, silent: 20 replay, 60 timeout.
case("single_server_silent_timeout", "ranking",
     "one silent server: one replay, then the final interval, then failure",
     ["r-client-ha-design.md 2", R935],
     [],
     failed("timeout", 60, init("A") + rep(20, 1, "A"), 1, "final"), servers=[A])

# ---- steering -------------------------------------------------------------------------------------

# D. 3: A with keep_port=false -> selected, reported keep_port false, one rebind request.
case("steering_keep_port_false_from_selected", "steering",
     "the selected response's keep_port=false is reported and requests one rebind",
     ["r-client.md 6.1 Ready -> RebindPending", "r-client.md 5.1 steering_feedback"],
     [resp(3, "A", keep_port=False)],
     allowed("A", 3, init("A", "B", "C") + comp(3, "B", "C"), keep_port=False, rebinds=1))

# OP. 2: C (keep_port=false) candidate -> rebind requested. 5: B (keep_port=true) replaces.
# 10: B selected, keep_port true; completion A.
case("steering_from_unselected_response", "steering",
     "a trusted but unselected response still requests the rebind; the result carries the selected keep_port",
     ["r-client.md 6.1 RebindPending (a trusted response requested keep_port = false)"],
     [resp(2, "C", keep_port=False), resp(5, "B")],
     allowed("B", 10, init("A", "B", "C") + comp(10, "A"), keep_port=True, rebinds=1), pol="oldest_preferred")

# ---- decisions: allow and deny ------------------------------------------------------------------

# D. 3: A's guard current_latency equals the threshold (100) -> the guard fails (<), denied.
case("deny_guard_at_threshold", "decision",
     "current_latency equal to latency_threshold denies (the guard passes only below it)",
     ["wire_protocol.md Response Semantics", "r-client.md 7.1.2"],
     [resp(3, "A", guards=[{"current_latency": 100}])],
     denied("A", 3, init("A", "B", "C") + comp(3, "B", "C"),
            result={"resources": [{"tokens_deficit": 0, "actual_rate": 1}],
                    "guards": [{"current_latency": 100, "passed": False}]}),
     flags=["boundary"])

# OP. 2: B allows (candidate). 8: A denies -> oldest, at once: the deny is the result.
case("deny_from_oldest_overrides_younger_allow", "decision",
     "the oldest server's deny wins over a younger candidate's allow",
     [R933 + " (allow and deny are equally valid)", R933 + " rule 4"],
     [resp(2, "B"), resp(8, "A", resources=[{"tokens_deficit": 2, "actual_rate": 100}])],
     denied("A", 8, init("A", "B", "C") + comp(8, "C"),
            result={"resources": [{"tokens_deficit": 2, "actual_rate": 100}],
                    "guards": [{"current_latency": 5, "passed": True}]}),
     pol="oldest_preferred")

# OP. 2: B denies (guard 250 >= 100) -> candidate. 3: C allows, younger. 10: B's deny selected.
case("deny_fallback_selected_like_allow", "decision",
     "a deny is ranked like an allow: the older deny beats the younger allow at the deadline",
     [R933 + " (allow and deny are equally valid)", R933 + " rule 3"],
     [resp(2, "B", guards=[{"current_latency": 250}]), resp(3, "C")],
     denied("B", 10, init("A", "B", "C") + comp(10, "A"),
            result={"resources": [{"tokens_deficit": 0, "actual_rate": 1}],
                    "guards": [{"current_latency": 250, "passed": False}]}),
     pol="oldest_preferred")

# Cookie, D, two resources and a label. 3: A: first resource granted, second short by 3 -> denied.
TWO_RES = {"resources": [{"name_utf8": "checkout", "window_size_ms": 1000, "rate_limit": 100,
                          "tokens_requested": 1},
                         {"name_utf8": "payments", "window_size_ms": 60000, "rate_limit": 10,
                          "tokens_requested": 4}],
           "guards": [], "metrics_label_utf8": "checkout-page"}
case("deny_one_of_two_resources", "decision",
     "one resource with a deficit denies the whole request; both results are reported",
     ["wire_protocol.md Response Semantics (atomic)", "api.md Resource Requests"],
     [resp(3, "A", resources=[{"tokens_deficit": 0, "actual_rate": 5},
                              {"tokens_deficit": 3, "actual_rate": 9}], guards=[])],
     denied("A", 3, init("A", "B", "C") + comp(3, "B", "C"),
            result={"resources": [{"tokens_deficit": 0, "actual_rate": 5},
                                  {"tokens_deficit": 3, "actual_rate": 9}], "guards": []}),
     auth="cookie", request=TWO_RES)

# ---- responses answer the request block by block; codes of unmatched bad datagrams -------------

RESP_SEM = "wire_protocol.md rate_response PDU (the request modified in place, counts copied)"
GUARD_RULE = "wire_protocol.md Response Semantics (current_latency >= latency_threshold fails)"
R52 = "r-client.md 5.2 (latency_threshold is a query, not tracker identity)"
ONE_TRACKER = {"resources": [{"name_utf8": "checkout", "window_size_ms": 1000, "rate_limit": 100,
                              "tokens_requested": 1}],
               "guards": [{"name_utf8": "inventory-backend", "latency_threshold": t, "ttl_ms": 10000,
                           "max_samples": 100, "buffer_size": 32, "min_sample_threshold": 5} for t in (100, 10)]}

# D. 4: A (oldest) answers current_latency 50 on both guards of one tracker: guard 0 (< 100)
# passes, guard 1 (50 >= 10) fails, so A's valid response denies; completion to B and C.
case("decision_repeated_tracker_each_threshold", "decision",
     "two guards on one tracker with thresholds 100 and 10, current 50: the second fails, denied",
     [R52, GUARD_RULE, RESP_SEM, R933 + " rule 4"],
     [resp(4, "A", guards=[{"current_latency": 50}, {"current_latency": 50}])],
     denied("A", 4, init("A", "B", "C") + comp(4, "B", "C"),
            result={"resources": [{"tokens_deficit": 0, "actual_rate": 1}],
                    "guards": [{"current_latency": 50, "passed": True}, {"current_latency": 50, "passed": False}]}),
     auth="cookie", request=ONE_TRACKER)

# D. 4: current 9 on both: 9 < 100 and 9 < 10, allowed.
case("decision_repeated_tracker_below_both", "decision",
     "two guards on one tracker, current below both thresholds: allowed",
     [R52, GUARD_RULE, RESP_SEM],
     [resp(4, "A", guards=[{"current_latency": 9}, {"current_latency": 9}])],
     allowed("A", 4, init("A", "B", "C") + comp(4, "B", "C"),
             result={"resources": [{"tokens_deficit": 0, "actual_rate": 1}],
                     "guards": [{"current_latency": 9, "passed": True}, {"current_latency": 9, "passed": True}]}),
     auth="aes", request=ONE_TRACKER)

TWO_BUCKETS_TWO_GUARDS = {
    "resources": [{"name_utf8": n, "window_size_ms": 1000, "rate_limit": 100, "tokens_requested": 1}
                  for n in ("bucket-a", "bucket-b")],
    "guards": [{"name_utf8": n, "latency_threshold": 100, "ttl_ms": 10000, "max_samples": 100,
                "buffer_size": 32, "min_sample_threshold": 5} for n in ("inventory-backend", "payments-backend")]}
BLOCK_VARIANTS = ["resource_repeated", "resource_omitted", "resources_swapped", "guard_repeated"]
BLOCKS_OK = {"resources": [{"tokens_deficit": 0, "actual_rate": 1}] * 2,
             "guards": [{"current_latency": 5, "passed": True}] * 2}

# D. 1-4: A's answers that repeat bucket-a over bucket-b, drop bucket-b, swap the buckets, or
# repeat a guard each fail the block-by-block answer (class malformed, RCLIENT_ERR_PROTOCOL) and
# are ignored: A, the oldest, would otherwise complete at once. 6: A's true answer decides.
for mode in ("cookie", "aes"):
    case(f"integration_datagram_blocks_not_answered_ignored_{mode}", "datagram",
         f"{mode}: responses that repeat, omit or reorder the request's blocks are ignored",
         [RESP_SEM, "r-client.md 6.2.1 (response-semantic checks)", "api.md Datagrams and Timers",
          "wire_protocol.md Response Semantics"],
         [bad(1 + i, "A", v) for i, v in enumerate(BLOCK_VARIANTS)] + [resp(6, "A")],
         allowed("A", 6, init("A", "B", "C") + comp(6, "B", "C"), result=BLOCKS_OK),
         auth=mode, request=TWO_BUCKETS_TWO_GUARDS, flags=["integration"])
    one_fault("datagram_{v}_ignored_" + mode, mode + ": a response that does not answer the request ({v}) is ignored",
              [RESP_SEM, "r-client.md 6.2.1 (response-semantic checks)", "api.md Datagrams and Timers",
               "wire_protocol.md Response Semantics"], BLOCK_VARIANTS, lambda v: [bad(1, "A", v), resp(6, "A")],
              allowed("A", 6, init("A", "B", "C") + comp(6, "B", "C"), result=BLOCKS_OK),
              auth=mode, request=TWO_BUCKETS_TWO_GUARDS)

# D, cookie. While the request is in flight, datagrams with a foreign unique_id: malformed ones
# still get RCLIENT_ERR_PROTOCOL, a bad cookie or auth type RCLIENT_ERR_AUTH (framing and
# authentication need only the key); a block variant has no request to be compared with: OK.
# 6: A decides. 7-9: late (the request is over), the same codes.
case("integration_datagram_unmatched_bad_datagrams_cookie", "datagram",
     "cookie: bad datagrams that match no request in flight keep their error codes",
     ["api.md Datagrams and Timers", "r-client.md 6.4 Authentication and Correlation"],
     [bad(1, "A", "pdu_size", True), bad(2, "A", "bad_cookie", True), bad(3, "A", "wrong_auth_type", True),
      bad(4, "A", "resource_repeated", True), bad(5, "A", "truncated", True), resp(6, "A"),
      bad(7, "A", "tenant_padding"), bad(8, "A", "bad_cookie"), bad(9, "A", "resource_omitted")],
     allowed("A", 6, init("A", "B", "C") + comp(6, "B", "C"), result=BLOCKS_OK),
     auth="cookie", request=TWO_BUCKETS_TWO_GUARDS, flags=["integration"])

# The same, one bad datagram per case: foreign (before A decides at 6) or late (after).
UNMATCHED = {"cookie": (["pdu_size", "bad_cookie", "wrong_auth_type", "resource_repeated", "truncated"],
                        ["tenant_padding", "bad_cookie", "resource_omitted"]),
             "aes": (["reserved_nonzero", "bad_tag", "bad_ciphertext"], ["bad_tag", "pdu_size"])}
for mode, (foreign, late) in UNMATCHED.items():
    spec_u = ["api.md Datagrams and Timers", "r-client.md 6.4 Authentication and Correlation"]
    one_fault("datagram_unmatched_{v}_foreign_" + mode, mode + ": a bad datagram ({v}) for no request in flight "
              "keeps its error code", spec_u, foreign, lambda v: [bad(1, "A", v, True), resp(6, "A")],
              allowed("A", 6, init("A", "B", "C") + comp(6, "B", "C"), result=BLOCKS_OK), auth=mode,
              request=TWO_BUCKETS_TWO_GUARDS)
    one_fault("datagram_unmatched_{v}_late_" + mode, mode + ": a bad datagram ({v}) after the request ended keeps "
              "its error code", spec_u, late, lambda v: [resp(6, "A"), bad(7, "A", v)],
              allowed("A", 6, init("A", "B", "C") + comp(6, "B", "C"), result=BLOCKS_OK), auth=mode,
              request=TWO_BUCKETS_TWO_GUARDS)

# D, AES: a foreign unique_id sealed with a valid tag but a malformed plaintext is PROTOCOL, a
# bad tag or ciphertext PROTOCOL (tag failure), a valid foreign response OK. 5: A decides.
# 6-7: late tag failures: PROTOCOL.
case("integration_datagram_unmatched_bad_datagrams_aes", "datagram",
     "aes: tag failures and malformed plaintext that match no request in flight keep their codes",
     ["api.md Datagrams and Timers", "wire_protocol.md AES-256-GCM Normative Framing"],
     [bad(1, "A", "reserved_nonzero", True), bad(2, "A", "bad_tag", True), bad(3, "A", "bad_ciphertext", True),
      bad(4, "A", "wrong_unique_id"), resp(5, "A"), bad(6, "A", "bad_tag"), bad(7, "A", "pdu_size")],
     allowed("A", 5, init("A", "B", "C") + comp(5, "B", "C")), auth="aes", flags=["integration"])

# ---- policy validation at submission ------------------------------------------------------------

# Key dedup_ttl_ms_max 10, default H=60 > 10 -> rejected before any send.
case("ttl_above_key_limit_rejected", "policy",
     "a policy whose horizon exceeds the key's dedup_ttl_ms_max is rejected before sending",
     ["r-client.md 9.3.1 (MUST reject the configuration)", "api.md Credentials dedup_ttl_ms_max"],
     [],
     no_completion("rejected", [], ttl=None), auth="aes", key=AES_TTL10)

# Key dedup_ttl_ms_max 300; U=100 N=1 B=1 F=1 -> H=300 exactly: accepted. 3: A.
case("ttl_at_key_limit_accepted", "policy",
     "a horizon exactly equal to dedup_ttl_ms_max is accepted and sent as dedup_ttl_ms",
     ["r-client.md 9.3.1 H", "api.md Resource-Request HA Policy"],
     [resp(3, "A")],
     allowed("A", 3, init("A", "B", "C") + comp(3, "B", "C"), ttl=300),
     pol=policy(U=100), flags=["boundary"])


# ---- output ---------------------------------------------------------------------------------------

def dump(c):
    """Stable, readable layout: one line per event and per send."""
    lines = ["{"]
    keys = list(c.keys())
    for i, k in enumerate(keys):
        comma = "," if i + 1 < len(keys) else ""
        v = c[k]
        if k == "expect":
            lines.append('  "expect": {')
            ek = list(v.keys())
            for j, e in enumerate(ek):
                ecomma = "," if j + 1 < len(ek) else ""
                if e == "sends" and v[e]:
                    lines.append('    "sends": [')
                    for m, s in enumerate(v[e]):
                        lines.append("      " + json.dumps(s) + ("," if m + 1 < len(v[e]) else ""))
                    lines.append("    ]" + ecomma)
                else:
                    lines.append("    " + json.dumps(e) + ": " + json.dumps(v[e]) + ecomma)
            lines.append("  }" + comma)
        elif k in ("events", "servers") and v:
            lines.append("  " + json.dumps(k) + ": [")
            for m, s in enumerate(v):
                lines.append("    " + json.dumps(s) + ("," if m + 1 < len(v) else ""))
            lines.append("  ]" + comma)
        else:
            lines.append("  " + json.dumps(k) + ": " + json.dumps(v) + comma)
    lines.append("}")
    return "\n".join(lines) + "\n"


def check():
    """--check: exit 1 when a committed case differs from what this script writes, or is stale."""
    ids = {c["id"] for c in CASES}
    bad = 0
    for c in CASES:
        path = os.path.join(OUT, c["id"] + ".json")
        try:
            with open(path) as f:
                same = f.read() == dump(c)
        except OSError:
            same = False
        if not same:
            bad += 1
            print(f"DIFFERS {c['id']}.json")
    for name in sorted(os.listdir(OUT)):
        if name.endswith(".json") and name[:-5] not in ids:
            bad += 1
            print(f"STALE {name} (no such case in gen_cases.py)")
    print(f"gen_cases --check: {len(CASES)} cases, {bad} differ")
    return 1 if bad else 0


def main():
    if sys.argv[1:] == ["--check"]:
        sys.exit(check())
    if sys.argv[1:]:
        sys.exit("usage: gen_cases.py [--check]")
    os.makedirs(OUT, exist_ok=True)
    ids = [c["id"] for c in CASES]
    if len(set(ids)) != len(ids):
        sys.exit("duplicate case id")
    for name in os.listdir(OUT):
        if name.endswith(".json") and name[:-5] not in ids:
            os.remove(os.path.join(OUT, name))
    for c in CASES:
        with open(os.path.join(OUT, c["id"] + ".json"), "w") as f:
            f.write(dump(c))
    areas = {}
    for c in CASES:
        areas[c["area"]] = areas.get(c["area"], 0) + 1
    print("%d cases: %s" % (len(CASES), ", ".join("%s %d" % kv for kv in sorted(areas.items()))))


if __name__ == "__main__":
    main()
