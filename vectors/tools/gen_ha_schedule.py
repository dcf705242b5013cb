#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Generate vectors/ha_schedule.json (schema ratelimitly-vectors/v1, kind ha_schedule).

The expected values are computed here, in Python, straight from the formulas of
r-client.md 9.3.1 with unbounded integers; nothing is taken from the C library.

    S(k) fixed       = initial_units
    S(k) linear      = min(initial_units + k * linear_step_units, max_units)
    S(k) exponential = min(initial_units * exponential_factor ** k, max_units)
    H                = unit_ms * (sum(B(k), k = 0..N) + final_receive_units)

A policy is valid when U >= 1, N <= 16, both schedule kinds are known,
initial_units <= max_units for both schedules, B(k) >= 1 and P(k) <= B(k) for
every k, P_final <= F, every ms value and H fit in 32 bits (dedup_ttl_ms is a
4-byte wire field) and H <= dedup_ttl_ms_max. Any broken rule is class "range".

Usage:  gen_ha_schedule.py            write the file
        gen_ha_schedule.py --check    exit 1 if the committed file differs
"""
import argparse
import json
import pathlib
import sys

U32_MAX = 2**32 - 1
MAX_REPLAY_COUNT = 16  # R_CLIENT_HA_MAX_REPLAY_COUNT
KINDS = ("fixed", "linear", "exponential")
CANONICAL_DEDUP_MAX = 300  # dedup_ttl_ms_max of the canonical test key

OUT = pathlib.Path(__file__).resolve().parent.parent / "ha_schedule.json"

NOTES = {
    "Default": "r-client.md 9.3.5 default schedule (r_client_default_request_policy)",
    "Preset": "a named preset: r-client-ha-design.md 6 configurations and the api.md behaviour "
              "(spec README 'Known disagreements')",
    "LinearGrowth": "linear schedule, S(k) = min(initial + k * step, max)",
    "ExponentialGrowth": "exponential schedule, S(k) = min(initial * factor^k, max)",
    "Saturation": "growth reaches or passes max_units (possibly beyond 2^32) and is capped, never wrapped",
    "FactorZero": "exponential factor 0: S(0) = initial, S(k >= 1) = 0 (0^0 = 1)",
    "Boundary": "a value exactly at the edge of a rule; the neighbouring test breaks it",
    "UnitMsZero": "unit_ms must be at least 1",
    "ReplayCountAboveCap": "replay_count above R_CLIENT_HA_MAX_REPLAY_COUNT (16)",
    "UnknownKind": "schedule kind is none of fixed, linear, exponential; a runner maps it to a value "
                   "outside the C enum and the policy check rejects it",
    "InitialAboveMax": "initial_units > max_units is a validity error, not a cap (api.md)",
    "ZeroReplayGap": "some B(k) is 0; replay gaps must be positive (r-client.md 9.3.1)",
    "PreferenceAboveGap": "some P(k) > B(k) (r-client.md 9.3.1: 0 <= P(k) <= B(k))",
    "FinalPreferenceAboveFinal": "final_preference_units > final_receive_units",
    "Overflow32": "a ms value or the horizon H does not fit the 32-bit dedup_ttl_ms wire field",
    "TtlAboveKeyMax": "H exceeds the key's dedup_ttl_ms_max (r-client.md 9.3.1, api.md)",
}


def sched(kind="fixed", initial=1, max_units=None, step=0, factor=0):
    return {"kind": kind, "initial_units": initial,
            "max_units": initial if max_units is None else max_units,
            "linear_step_units": step, "exponential_factor": factor}


def policy(**over):
    """The r-client.md 9.3.5 default with fields overridden."""
    p = {"unit_ms": 20, "replay_count": 1, "replay_gap": sched(), "preference": sched(),
         "final_receive_units": 1, "final_preference_units": 0, "completion_delivery": True}
    for key, value in over.items():
        assert key in p, key
        p[key] = value
    return p


def units(s, k):
    if s["kind"] == "fixed":
        v = s["initial_units"]
    elif s["kind"] == "linear":
        v = s["initial_units"] + k * s["linear_step_units"]
    else:
        v = s["initial_units"] * s["exponential_factor"] ** k
    return min(v, s["max_units"])


def evaluate(p, dedup_max):
    """Return (rule, None) for an invalid policy or (None, expected) for a valid one."""
    u, n = p["unit_ms"], p["replay_count"]
    gap, pref = p["replay_gap"], p["preference"]
    f, pf = p["final_receive_units"], p["final_preference_units"]
    if u == 0:
        return "UnitMsZero", None
    if n > MAX_REPLAY_COUNT:
        return "ReplayCountAboveCap", None
    if gap["kind"] not in KINDS or pref["kind"] not in KINDS:
        return "UnknownKind", None
    if gap["initial_units"] > gap["max_units"] or pref["initial_units"] > pref["max_units"]:
        return "InitialAboveMax", None
    b = [units(gap, k) for k in range(n + 1)]
    pk = [units(pref, k) for k in range(n + 1)]
    if min(b) == 0:
        return "ZeroReplayGap", None
    if any(x > y for x, y in zip(pk, b)):
        return "PreferenceAboveGap", None
    if pf > f:
        return "FinalPreferenceAboveFinal", None
    h = u * (sum(b) + f)
    if max(b) * u > U32_MAX or f * u > U32_MAX or h > U32_MAX:
        return "Overflow32", None
    if h > dedup_max:
        return "TtlAboveKeyMax", None
    return None, {"ttl_ms": h, "round_ms": [x * u for x in b], "preference_ms": [x * u for x in pk]}


# (comment, flags, policy, dedup_ttl_ms_max, rule expected to break or None)
CASES = [
    ("r-client.md 9.3.5 default: TTL 3 * U", ["Default"], policy(), CANONICAL_DEDUP_MAX, None),
    ("preset R_POLICY_API_MD: P = [1, 0] via exponential factor 0, P_final 0", ["Preset", "FactorZero"],
     policy(preference=sched("exponential", 1, 1, factor=0)), CANONICAL_DEDUP_MAX, None),
    ("preset R_POLICY_STRICT_OLDEST: P(k) = B(k), P_final = F", ["Preset"],
     policy(final_preference_units=1), CANONICAL_DEDUP_MAX, None),
    ("preset R_POLICY_OLDEST_PREFERRED: U 10, B 2, P 1, F 2, P_final 1", ["Preset"],
     policy(unit_ms=10, replay_gap=sched("fixed", 2), preference=sched("fixed", 1),
            final_receive_units=2, final_preference_units=1), CANONICAL_DEDUP_MAX, None),
    ("preset R_POLICY_FASTEST_VALID: P(k) = 0, P_final 0", ["Preset"],
     policy(preference=sched("fixed", 0)), CANONICAL_DEDUP_MAX, None),
    ("default with dedup_ttl_ms_max exactly H = 60", ["Default", "Boundary"], policy(), 60, None),
    ("linear 1 + 2k capped at 6, preference 0 + k capped at 2", ["LinearGrowth", "Saturation"],
     policy(unit_ms=10, replay_count=4, replay_gap=sched("linear", 1, 6, step=2),
            preference=sched("linear", 0, 2, step=1)), CANONICAL_DEDUP_MAX, None),
    ("linear step 0 behaves as fixed", ["LinearGrowth"],
     policy(replay_count=2, replay_gap=sched("linear", 2, 5, step=0)), CANONICAL_DEDUP_MAX, None),
    ("linear step 4294967295 over 16 replays saturates at 100", ["LinearGrowth", "Saturation"],
     policy(unit_ms=1, replay_count=16, replay_gap=sched("linear", 1, 100, step=U32_MAX),
            preference=sched("fixed", 0), final_receive_units=0), 2000, None),
    ("linear 2 * 2^31 = 2^32 must saturate at 100, not wrap to 0", ["LinearGrowth", "Saturation"],
     policy(unit_ms=1, replay_count=2, replay_gap=sched("linear", 1, 100, step=2**31)),
     CANONICAL_DEDUP_MAX, None),
    ("exponential 1 * 2^k capped at 10, preference capped at 4", ["ExponentialGrowth", "Saturation"],
     policy(unit_ms=5, replay_count=5, replay_gap=sched("exponential", 1, 10, factor=2),
            preference=sched("exponential", 1, 4, factor=2), final_receive_units=2),
     CANONICAL_DEDUP_MAX, None),
    ("exponential factor 4294967295 over 16 replays saturates (gap 100, preference 50)",
     ["ExponentialGrowth", "Saturation"],
     policy(unit_ms=1, replay_count=16, replay_gap=sched("exponential", 1, 100, factor=U32_MAX),
            preference=sched("exponential", 1, 50, factor=U32_MAX), final_receive_units=0), 2000, None),
    ("exponential 2 * 2^31 = 2^32 must saturate at 100, not wrap to 0", ["ExponentialGrowth", "Saturation"],
     policy(unit_ms=1, replay_gap=sched("exponential", 2, 100, factor=2**31)), CANONICAL_DEDUP_MAX, None),
    ("exponential factor 1 behaves as fixed", ["ExponentialGrowth"],
     policy(replay_count=3, unit_ms=10, replay_gap=sched("exponential", 3, 9, factor=1)),
     CANONICAL_DEDUP_MAX, None),
    ("preference factor 0: P = [2, 0, 0, 0]", ["ExponentialGrowth", "FactorZero"],
     policy(unit_ms=10, replay_count=3, replay_gap=sched("fixed", 2),
            preference=sched("exponential", 2, 2, factor=0)), CANONICAL_DEDUP_MAX, None),
    ("replay_gap factor 0 with replay_count 0: only B(0) = 1 exists", ["FactorZero", "Boundary"],
     policy(replay_count=0, replay_gap=sched("exponential", 1, 1, factor=0)), CANONICAL_DEDUP_MAX, None),
    ("preference exponential from 0 stays 0", ["ExponentialGrowth"],
     policy(replay_count=2, preference=sched("exponential", 0, 1, factor=7)), CANONICAL_DEDUP_MAX, None),
    ("replay_count 0: one round", ["Boundary"], policy(replay_count=0), CANONICAL_DEDUP_MAX, None),
    ("replay_count 16, the cap", ["Boundary"], policy(unit_ms=1, replay_count=16), CANONICAL_DEDUP_MAX, None),
    ("unit_ms 1, the smallest", ["Boundary"], policy(unit_ms=1), CANONICAL_DEDUP_MAX, None),
    ("final_receive_units 0 disables the final interval", ["Boundary"],
     policy(final_receive_units=0), CANONICAL_DEDUP_MAX, None),
    ("final_preference_units == final_receive_units", ["Boundary"],
     policy(final_receive_units=2, final_preference_units=2), CANONICAL_DEDUP_MAX, None),
    ("P(1) == B(1) through linear growth", ["Boundary", "LinearGrowth"],
     policy(replay_gap=sched("fixed", 2), preference=sched("linear", 1, 3, step=1)),
     CANONICAL_DEDUP_MAX, None),
    ("B(0) * U == 4294967295 (U = 4294967295, B = 1)", ["Boundary"],
     policy(unit_ms=U32_MAX, replay_count=0, final_receive_units=0), U32_MAX, None),
    ("initial_units == max_units == 4294967295", ["Boundary"],
     policy(unit_ms=1, replay_count=0, replay_gap=sched("fixed", U32_MAX),
            preference=sched("exponential", U32_MAX, U32_MAX, factor=U32_MAX), final_receive_units=0),
     U32_MAX, None),
    ("H == 4294967295 (B 4294967294 + F 1)", ["Boundary"],
     policy(unit_ms=1, replay_count=0, replay_gap=sched("fixed", U32_MAX - 1)), U32_MAX, None),
    ("completion_delivery false does not change the schedule", ["Default"],
     policy(completion_delivery=False), CANONICAL_DEDUP_MAX, None),
    # ---- invalid: every rule at its boundary ----
    ("unit_ms 0", ["UnitMsZero"], policy(unit_ms=0), CANONICAL_DEDUP_MAX, "UnitMsZero"),
    ("replay_count 17", ["ReplayCountAboveCap"], policy(unit_ms=1, replay_count=17), CANONICAL_DEDUP_MAX,
     "ReplayCountAboveCap"),
    ("replay_gap kind unknown", ["UnknownKind"], policy(replay_gap=sched("quadratic")), CANONICAL_DEDUP_MAX,
     "UnknownKind"),
    ("preference kind unknown", ["UnknownKind"], policy(preference=sched("quadratic")), CANONICAL_DEDUP_MAX,
     "UnknownKind"),
    ("replay_gap initial_units 2 > max_units 1 (raising initial alone)", ["InitialAboveMax"],
     policy(replay_gap=sched("fixed", 2, 1)), CANONICAL_DEDUP_MAX, "InitialAboveMax"),
    ("preference initial_units 1 > max_units 0", ["InitialAboveMax"],
     policy(preference=sched("linear", 1, 0)), CANONICAL_DEDUP_MAX, "InitialAboveMax"),
    ("B(0) = 0", ["ZeroReplayGap"],
     policy(replay_gap=sched("fixed", 0), preference=sched("fixed", 0)), CANONICAL_DEDUP_MAX, "ZeroReplayGap"),
    ("replay_gap factor 0 with replay_count 1: B(1) = 0", ["ZeroReplayGap", "FactorZero"],
     policy(replay_gap=sched("exponential", 1, 1, factor=0)), CANONICAL_DEDUP_MAX, "ZeroReplayGap"),
    ("P(0) = B(0) + 1", ["PreferenceAboveGap"], policy(preference=sched("fixed", 2)), CANONICAL_DEDUP_MAX,
     "PreferenceAboveGap"),
    ("P(1) = B(1) + 1 through linear growth", ["PreferenceAboveGap", "LinearGrowth"],
     policy(replay_gap=sched("fixed", 2), preference=sched("linear", 1, 3, step=2)),
     CANONICAL_DEDUP_MAX, "PreferenceAboveGap"),
    ("final_preference_units = final_receive_units + 1", ["FinalPreferenceAboveFinal"],
     policy(final_receive_units=2, final_preference_units=3), CANONICAL_DEDUP_MAX, "FinalPreferenceAboveFinal"),
    ("final_preference_units 1 with final_receive_units 0", ["FinalPreferenceAboveFinal"],
     policy(final_receive_units=0, final_preference_units=1), CANONICAL_DEDUP_MAX, "FinalPreferenceAboveFinal"),
    ("B(0) * U = 2^32 (U = 2^31, B = 2)", ["Overflow32"],
     policy(unit_ms=2**31, replay_count=0, replay_gap=sched("fixed", 2), final_receive_units=0),
     U32_MAX, "Overflow32"),
    ("F * U = 2^32 (U = 2^31, F = 2)", ["Overflow32"],
     policy(unit_ms=2**31, replay_count=0, final_receive_units=2), U32_MAX, "Overflow32"),
    ("H = 2^32 (B 4294967294 + F 2)", ["Overflow32"],
     policy(unit_ms=1, replay_count=0, replay_gap=sched("fixed", U32_MAX - 1), final_receive_units=2),
     U32_MAX, "Overflow32"),
    ("two rounds of 2^31 ms: each fits, the sum does not", ["Overflow32"],
     policy(unit_ms=2**31, final_receive_units=0), U32_MAX, "Overflow32"),
    ("default with dedup_ttl_ms_max 59 = H - 1", ["TtlAboveKeyMax", "Default"], policy(), 59, "TtlAboveKeyMax"),
    ("H = 300 against the canonical key's 300", ["Boundary"],
     policy(unit_ms=1, replay_count=0, replay_gap=sched("fixed", 299)), CANONICAL_DEDUP_MAX, None),
    ("H = 301 against the canonical key's 300", ["TtlAboveKeyMax"],
     policy(unit_ms=1, replay_count=0, replay_gap=sched("fixed", 300)), CANONICAL_DEDUP_MAX, "TtlAboveKeyMax"),
    ("dedup_ttl_ms_max 0 admits no policy", ["TtlAboveKeyMax"], policy(), 0, "TtlAboveKeyMax"),
]


def build():
    tests = []
    for tc_id, (comment, flags, pol, dedup_max, want_rule) in enumerate(CASES, start=1):
        for flag in flags:
            assert flag in NOTES, flag
        rule, expected = evaluate(pol, dedup_max)
        # The case list states its intent; a mismatch is a mistake in the list.
        assert rule == want_rule, (tc_id, comment, rule, want_rule)
        if rule is not None:
            assert rule in flags, (tc_id, rule)
        tests.append({
            "tcId": tc_id, "comment": comment, "flags": flags,
            "result": "valid" if rule is None else "invalid",
            "input": {"policy": pol, "dedup_ttl_ms_max": dedup_max},
            "expected": expected if rule is None else {"error": "range"},
        })
    doc = {
        "schema": "ratelimitly-vectors/v1",
        "kind": "ha_schedule",
        "source": "independent Python computation (vectors/tools/gen_ha_schedule.py) of r-client.md 9.3.1 "
                  "and 9.3.5, api.md 'Resource-Request HA Policy' validity rules, r-client-ha-design.md 6",
        "notes": NOTES,
        "tests": tests,
    }
    return json.dumps(doc, indent=1) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="exit 1 if the committed file differs")
    ap.add_argument("--out", type=pathlib.Path, default=OUT)
    args = ap.parse_args()
    text = build()
    if args.check:
        try:
            current = args.out.read_text(encoding="utf-8")
        except OSError as exc:
            print(f"gen_ha_schedule: cannot read {args.out}: {exc}", file=sys.stderr)
            return 1
        if current != text:
            print(f"gen_ha_schedule: {args.out} differs from the generator; re-run it", file=sys.stderr)
            return 1
        print(f"gen_ha_schedule: {args.out} is up to date ({len(CASES)} tests)")
        return 0
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text, encoding="utf-8")
    print(f"gen_ha_schedule: wrote {args.out} ({len(CASES)} tests)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
