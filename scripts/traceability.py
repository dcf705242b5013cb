#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Check docs/traceability.md against the tree and the specification.

usage: scripts/traceability.py [--spec DIR] [--list-sections]

For every row: its id is unique; a referenced function occurs in its file; every
reference of the "checked by" column exists (a cmocka test function in its test
source, a vector file, an HA case, a trace, a CTest test, a mutant). A row is
"not applicable" when its last column starts with "n/a:" and gives a reason,
"checked" when it names at least one existing test, vector, case or trace (a
mutant alone does not count), "unchecked" otherwise.

For wire_protocol.md and r-client.md (found by title in ../shared/spec/): every
section whose text has lines carrying MUST or SHOULD must have at least as many
rows (document and section equal) as it has such lines.

Prints `traceability: N rules, N checked, N not applicable, N unchecked`; exit 0
only when nothing is unchecked and no reference is missing, 1 otherwise. Without
the specification it says so on stderr and checks only the references.
"""
import argparse
import glob
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TABLE = os.path.join(ROOT, "docs", "traceability.md")
NORMATIVE = re.compile(r"\b(MUST|SHOULD)\b")


# ---- specification sections ----------------------------------------------

def wire_headings(lines):
    """wire_protocol.md has unnumbered headings: a short line alone between blank
    lines that is not a sentence, list item, table or hex dump."""
    out = set()
    for i, line in enumerate(lines):
        s = line.strip()
        prev = lines[i - 1].strip() if i > 0 else ""
        nxt = lines[i + 1].strip() if i + 1 < len(lines) else ""
        if not s or prev or nxt or len(s) > 60 or "\t" in line:
            continue
        if s.endswith((".", ":", ",", ";")) or s[0] in "•|+-^#/\"(" or re.match(r"^[0-9a-f]{2} ", s):
            continue
        out.add(i)
    return out


def rclient_headings(lines):
    """r-client.md numbers its headings: "9. High Availability", "9.1. server_id Decoding"
    (numbered list items are sentences)."""
    return {i for i, line in enumerate(lines)
            if (re.match(r"^\d+\. [A-Z]", line.strip()) or re.match(r"^\d+(\.\d+)+\. \w", line.strip()))
            and len(line.strip()) < 70 and not line.strip().endswith((".", ";", ","))}


def normative_sections(path, headings_fn):
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    heads = headings_fn(lines)
    counts = {}
    section = None
    for i, line in enumerate(lines):
        if i in heads:
            section = line.strip()
        elif NORMATIVE.search(line):
            counts[section] = counts.get(section, 0) + 1
    return counts


def find_spec(spec_dir):
    docs = {}
    for path in sorted(glob.glob(os.path.join(spec_dir, "*.txt"))):
        with open(path, encoding="utf-8") as f:
            head = f.read(4000)
        if "r-client Specification" in head:
            docs["r-client.md"] = (path, rclient_headings)
        elif "Ratelimitly Wire Protocol (MVP)" in head:
            docs["wire_protocol.md"] = (path, wire_headings)
    return docs


# ---- the table -------------------------------------------------------------

def parse_table():
    rows = []
    with open(TABLE, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not re.match(r"^\| [WRA]\d{3} \|", line):
                continue
            cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
            if len(cells) != 6:
                rows.append({"line": n, "error": "expected 6 cells, got %d" % len(cells)})
                continue
            rows.append(dict(zip(("id", "doc", "section", "rule", "impl", "checked"), cells), line=n))
    return rows


def test_source(exe):
    if exe.startswith("sim_test_"):
        return os.path.join(ROOT, "sim", "tests", exe[len("sim_"):] + ".c")
    if exe.startswith("test_runtime_"):
        return os.path.join(ROOT, "core", "tests", "runtime", exe + ".c")
    return os.path.join(ROOT, "core", "tests", exe + ".c")


_ctests = None


def ctest_names():
    global _ctests
    if _ctests is None:
        _ctests = set()
        for path in glob.glob(os.path.join(ROOT, "**", "CMakeLists.txt"), recursive=True):
            if "/build/" in path:
                continue
            with open(path, encoding="utf-8") as f:
                _ctests |= set(re.findall(r"add_test\(NAME\s+(\w+)", f.read()))
    return _ctests


_mutants = None


def mutant_names():
    global _mutants
    if _mutants is None:
        path = os.path.join(ROOT, "mutation", "mutants.toml")
        with open(path, encoding="utf-8") as f:
            _mutants = set(re.findall(r'^name\s*=\s*"([^"]+)"', f.read(), re.M))
    return _mutants


def file_has_word(path, word):
    if not os.path.isfile(path):
        return False
    with open(path, encoding="utf-8") as f:
        return re.search(r"\b%s\b" % re.escape(word), f.read()) is not None


def check_ref(ref):
    """Returns (problem or None, counts_as_check)."""
    kind, _, value = ref.partition(":")
    if kind == "vector" and value:
        return (None if os.path.isfile(os.path.join(ROOT, "vectors", value)) else "no vector file " + value), True
    if kind == "case" and value:
        path = os.path.join(ROOT, "conformance", "cases", value + ".json")
        return (None if os.path.isfile(path) else "no HA case " + value), True
    if kind == "trace" and value:
        path = os.path.join(ROOT, "sim", "traces", value + ".json")
        return (None if os.path.isfile(path) else "no trace " + value), True
    if kind == "ctest" and value:
        return (None if value in ctest_names() else "no CTest test " + value), True
    if kind == "mutant" and value:
        return (None if value in mutant_names() else "no mutant " + value), False
    m = re.fullmatch(r"((?:sim_)?test_\w+)/(test_\w+)", ref)
    if m:
        src = test_source(m.group(1))
        if not os.path.isfile(src):
            return "no test source for " + m.group(1), True
        return (None if file_has_word(src, m.group(2)) else "no test %s in %s" % (m.group(2), os.path.relpath(src, ROOT))), True
    return "unknown reference form %r" % ref, False


def check_impl(impl):
    problems = []
    if impl == "-":
        return problems
    for part in [p.strip() for p in impl.split(",")]:
        path, _, fn = part.partition(":")
        full = os.path.join(ROOT, path)
        if not os.path.isfile(full):
            problems.append("no file " + path)
        elif fn and not file_has_word(full, fn.lstrip("*")):
            problems.append("no %s in %s" % (fn, path))
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--spec", default=os.path.join(ROOT, "..", "shared", "spec"))
    ap.add_argument("--list-sections", action="store_true",
                    help="print each normative section, its normative lines and its rows")
    args = ap.parse_args()
    docs = find_spec(args.spec)
    if set(docs) != {"wire_protocol.md", "r-client.md"}:
        # As the vector runner does without ../shared/external: say so, check the rest.
        print("note: wire_protocol.md and r-client.md not found in %s; section coverage not checked"
              % os.path.relpath(args.spec), file=sys.stderr)
        docs = {}

    rows = parse_table()
    problems = []
    seen = set()
    checked = na = unchecked = 0
    per_section = {}
    for r in rows:
        if "error" in r:
            problems.append("docs/traceability.md:%d: %s" % (r["line"], r["error"]))
            continue
        where = "docs/traceability.md:%d %s" % (r["line"], r["id"])
        if r["id"] in seen:
            problems.append("%s: duplicate id" % where)
        seen.add(r["id"])
        per_section[(r["doc"], r["section"])] = per_section.get((r["doc"], r["section"]), 0) + 1
        problems += ["%s: %s" % (where, p) for p in check_impl(r["impl"])]
        col = r["checked"]
        if col.startswith("n/a:"):
            if len(col) < 10:
                problems.append("%s: n/a without a reason" % where)
            na += 1
            continue
        refs = re.findall(r"`([^`]+)`", col)
        counted = False
        for ref in refs:
            problem, counts = check_ref(ref)
            if problem:
                problems.append("%s: %s" % (where, problem))
            elif counts:
                counted = True
        if counted:
            checked += 1
        else:
            unchecked += 1
            problems.append("%s: unchecked (no existing test, vector, case or trace)" % where)

    for doc, (path, fn) in sorted(docs.items()):
        for section, n in sorted(normative_sections(path, fn).items(), key=lambda x: str(x[0])):
            have = per_section.get((doc, section), 0)
            if args.list_sections:
                print("%s | %s | %d normative lines | %d rows" % (doc, section, n, have))
            if have < n:
                problems.append("%s \"%s\": %d lines state a rule, %d rows" % (doc, section, n, have))

    for p in problems:
        print("traceability: " + p, file=sys.stderr)
    print("traceability: %d rules, %d checked, %d not applicable, %d unchecked" % (len(rows), checked, na, unchecked))
    return 0 if not problems else 1


if __name__ == "__main__":
    sys.exit(main())
