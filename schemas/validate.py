#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Validate vector files, HA decision cases and simulator traces against their JSON Schemas.

Each file's schema is chosen by its "schema" field:
  ratelimitly-vectors/v1  -> schemas/ratelimitly-vectors-v1.schema.json
  ratelimitly-ha-case/v1  -> schemas/ratelimitly-ha-case-v1.schema.json
  ratelimitly-trace/v1    -> schemas/ratelimitly-trace-v1.schema.json
  ratelimitly-sweep/v1    -> schemas/ratelimitly-sweep-v1.schema.json

Usage:
  validate.py [FILE_OR_DIR...]     files, or directories (their *.json); with none, every shipped
                                   file under --root
  validate.py --root DIR           the tree to take the shipped files from: a checkout, or an
                                   installed data directory (share/rl-testbed)
  validate.py --bad LIST           LIST is a tab-separated file of broken files (relative to the
                                   list) and the error path each must be rejected at; passes only
                                   when every one is rejected there

Output: one line per invalid file and error, then "schemas: N valid, N invalid".
Exit status: 0 when all valid (--bad: all rejected as listed), 1 otherwise, 2 on a usage error.
Needs Debian python3-jsonschema (4.10 or later: draft 2020-12).
"""
import argparse
import glob
import json
import os
import sys

try:
    from jsonschema import Draft202012Validator
except ImportError:  # the message names the package to install
    sys.exit("validate.py: needs the jsonschema module (Debian python3-jsonschema)")

HERE = os.path.dirname(os.path.abspath(__file__))
SCHEMAS = {
    "ratelimitly-vectors/v1": "ratelimitly-vectors-v1.schema.json",
    "ratelimitly-ha-case/v1": "ratelimitly-ha-case-v1.schema.json",
    "ratelimitly-trace/v1": "ratelimitly-trace-v1.schema.json",
    "ratelimitly-sweep/v1": "ratelimitly-sweep-v1.schema.json",
}
# Shipped files, relative to a checkout or to an installed data directory. external/ is the
# installed copy of ../shared/external; the 1,000,000-request benchmark trace is sim/traces/bench.
SHIPPED = ("vectors/*.json", "external/*.json", "../shared/external/*.json", "conformance/cases/*.json",
           "sim/traces/*.json", "sim/traces/bench/*.json", "sim/traces/sweep/*.json", "sweep/tests/data/*.json",
           "reports/ha-tuning/sweep.json")


def schema_dir(root):
    """The schemas beside this script, else those of root (an installed tree)."""
    for d in (HERE, os.path.join(root, "schemas")):
        if all(os.path.exists(os.path.join(d, n)) for n in SCHEMAS.values()):
            return d
    sys.exit("validate.py: schema files not found")


def load_validators(d):
    out = {}
    for sid, name in SCHEMAS.items():
        with open(os.path.join(d, name), encoding="utf-8") as f:
            schema = json.load(f)
        Draft202012Validator.check_schema(schema)
        out[sid] = Draft202012Validator(schema)
    return out


def path_text(err):
    """JSON path of an error as the runners print it: tests[3].input.key."""
    out = ""
    for p in err.absolute_path:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out or "(root)"


def errors_of(validators, path):
    """[(json path, message)] for one file; empty when valid."""
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f, object_pairs_hook=no_duplicates)
    except (OSError, ValueError) as e:
        return [("(file)", str(e))]
    sid = doc.get("schema") if isinstance(doc, dict) else None
    if sid not in validators:
        return [("schema", f"expected one of {', '.join(sorted(validators))}, got {sid!r}")]
    errs = sorted(validators[sid].iter_errors(doc), key=lambda e: list(map(str, e.absolute_path)))
    return [(path_text(e), e.message if len(e.message) < 300 else e.message[:300] + "...") for e in errs]


def no_duplicates(pairs):
    keys = [k for k, _ in pairs]
    dup = {k for k in keys if keys.count(k) > 1}
    if dup:
        raise ValueError(f"duplicate object key {sorted(dup)[0]!r}")
    return dict(pairs)


def expand(args, root):
    files = []
    for a in args:
        if os.path.isdir(a):
            found = sorted(glob.glob(os.path.join(a, "*.json")))
            if not found:
                sys.exit(f"validate.py: {a}: no .json file")
            files += found
        else:
            files.append(a)
    if not args:
        for pattern in SHIPPED:
            files += sorted(glob.glob(os.path.join(root, pattern)))
    return files


def run_bad(validators, listing):
    base = os.path.dirname(os.path.abspath(listing))
    ok = bad = 0
    with open(listing, encoding="utf-8") as f:
        rows = [line.rstrip("\n").split("\t") for line in f if line.strip() and not line.startswith("#")]
    for row in rows:
        if len(row) != 2:
            sys.exit(f"validate.py: {listing}: expected FILE<TAB>PATH, got {row!r}")
        name, want = row
        errs = errors_of(validators, os.path.join(base, name))
        if any(p == want for p, _ in errs):
            ok += 1
            print(f"ok   {name}: rejected at {want}")
        else:
            bad += 1
            print(f"FAIL {name}: want an error at {want}, got {errs or 'valid'}")
    listed = {r[0] for r in rows}
    for f in sorted(glob.glob(os.path.join(base, "*.json"))):
        if os.path.basename(f) not in listed:
            bad += 1
            print(f"FAIL {os.path.basename(f)}: not listed in {os.path.basename(listing)}")
    print(f"schemas --bad: {ok} rejected as listed, {bad} failed")
    return 1 if bad or not ok else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("files", nargs="*")
    ap.add_argument("--root", default=os.path.dirname(HERE), help="checkout or installed data directory")
    ap.add_argument("--bad", metavar="LIST", help="broken files that must be rejected (see the usage)")
    args = ap.parse_args()
    validators = load_validators(schema_dir(args.root))
    if args.bad:
        return run_bad(validators, args.bad)
    files = expand(args.files, args.root)
    if not files:
        print(f"validate.py: no file found under {args.root}", file=sys.stderr)
        return 2
    valid = invalid = 0
    for path in files:
        errs = errors_of(validators, path)
        if errs:
            invalid += 1
            for p, msg in errs:
                print(f"{path}: {p}: {msg}")
        else:
            valid += 1
    print(f"schemas: {valid} valid, {invalid} invalid")
    return 1 if invalid else 0


if __name__ == "__main__":
    sys.exit(main())
