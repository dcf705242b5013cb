#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The mutation gate: every named mutant of mutation/mutants.toml must be killed.

A mutant is a one-rule change to the code (an exact fragment of one file and its
replacement), tied to a rule id of docs/traceability.md. For each mutant the runner
writes the change, rebuilds the persistent build directory build/mutation (only the
changed object is recompiled and its dependants relinked; ccache, when installed,
makes restoring the original a cache hit), runs the test stages in order and stops
at the first failing one: the mutant is killed, by that test. A mutant no stage
kills survived: a test is missing. A mutant with `require = ["traces"]` must in
addition be killed by the simulator traces stage. The original file is always
restored.

usage: scripts/mutation.py [--all | --share I/N] [--only NAME ...] [--list]
                           [--table FILE] [--build-dir DIR]

Without --all or --share it runs the CI share: the mutants whose position in the
list modulo SHARES (4) equals the share of this commit (its hash, as a number,
modulo 4; the UTC day number when git is unavailable). The share is printed.

Output: one row per mutant `mutant | rule | killed by` (a Markdown table) and the
closing line `mutants: N killed, N survived`. Exit status 0 when every selected
mutant was killed, 1 when one survived, 2 on an error in the list (a fragment that
does not occur exactly once, an unknown rule id, a duplicate name, a mutant that
does not build) or when the unmutated tree does not pass every stage.
"""
import argparse
import datetime
import os
import re
import shutil
import subprocess
import sys
import time
import tomllib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MUTANTS = os.path.join(ROOT, "mutation", "mutants.toml")
TABLE = os.path.join(ROOT, "docs", "traceability.md")
SHARES = 4
STAGE_TIMEOUT_S = 300
FIELDS = {"name", "rule", "file", "find", "replace", "require", "comment"}


class ListError(Exception):
    pass


def rule_ids():
    ids = set()
    with open(TABLE, encoding="utf-8") as f:
        for line in f:
            m = re.match(r"\|\s*([WRA]\d{3})\s*\|", line)
            if m:
                ids.add(m.group(1))
    return ids


def load_mutants():
    with open(MUTANTS, "rb") as f:
        data = tomllib.load(f)
    mutants = data.get("mutant", [])
    known_rules = rule_ids()
    names = set()
    problems = []
    for i, m in enumerate(mutants):
        where = "mutant[%d] %s" % (i, m.get("name", "?"))
        extra = set(m) - FIELDS
        missing = {"name", "rule", "file", "find", "replace"} - set(m)
        if extra or missing:
            problems.append("%s: unknown fields %s, missing %s" % (where, sorted(extra), sorted(missing)))
            continue
        if m["name"] in names:
            problems.append("%s: duplicate name" % where)
        names.add(m["name"])
        if m["rule"] not in known_rules:
            problems.append("%s: rule %s is not a row of docs/traceability.md" % (where, m["rule"]))
        for stage in m.get("require", []):
            if stage not in STAGE_NAMES:
                problems.append("%s: require names unknown stage %r" % (where, stage))
        path = os.path.join(ROOT, m["file"])
        if not os.path.isfile(path):
            problems.append("%s: file %s does not exist" % (where, m["file"]))
            continue
        with open(path, encoding="utf-8") as f:
            text = f.read()
        n = text.count(m["find"])
        if n != 1:
            problems.append("%s: fragment occurs %d times in %s (must be exactly once): %r"
                            % (where, n, m["file"], m["find"][:80]))
        if m["find"] == m["replace"]:
            problems.append("%s: replacement equals the fragment" % where)
    if problems:
        raise ListError("\n".join(problems))
    return mutants


def run(cmd, timeout=STAGE_TIMEOUT_S):
    try:
        p = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, errors="replace", timeout=timeout)
        return p.returncode, p.stdout
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        return "timeout", out


# ---- stages: each returns None (passed) or the name of what failed ----------

def ctest_failure(build, out):
    """The first failed test, and its first failing cmocka test (rerun alone, since
    parallel output interleaves)."""
    m = re.search(r"The following tests FAILED:\s*\n\s*\d+\s*-\s*(\S+)", out)
    test = m.group(1) if m else None
    if test is None:
        m = re.search(r"\d+/\d+ Test\s+#\d+:\s+(\S+)\s+\.+\*+\s*(Failed|Exception|Timeout)", out)
        test = m.group(1) if m else "ctest"
    _, alone = run(["ctest", "--test-dir", build, "--output-on-failure", "--timeout", "120",
                    "-R", "^%s$" % re.escape(test)])
    m = re.search(r"\[\s+FAILED\s+\]\s+(\w+)", alone)
    return test + ("/" + m.group(1) if m else "")


def ctest_stage(build, args):
    def stage():
        rc, out = run(["ctest", "--test-dir", build, "--output-on-failure", "--stop-on-failure",
                       "--timeout", "120", "-j2"] + args)
        return None if rc == 0 else ctest_failure(build, out)
    return stage


def testbed(build):
    return os.path.join(build, "tools", "rl-testbed", "rl-testbed")


def vectors_stage(build):
    def stage():
        rc, out = run([testbed(build), "vectors", "--quiet"])
        if rc == 0:
            return None
        header = "vectors"
        for line in out.splitlines():
            m = re.match(r"^(\S+\.json) \[", line)
            if m:
                header = os.path.basename(m.group(1))
            m = re.match(r"^\s+(\d+)\s+\S+\s+FAIL", line)
            if m:
                return "vector %s#%s" % (header, m.group(1))
        return "vectors (exit %s)" % rc
    return stage


def cases_stage(build):
    def stage():
        rc, out = run([testbed(build), "conformance", "--cases-only", "--quiet", "conformance/cases"])
        if rc == 0:
            return None
        header = None
        for line in out.splitlines():
            m = re.match(r"^(\S+\.json) \[", line)
            if m:
                header = os.path.basename(m.group(1))[:-5]
            if "FAIL" in line and header is not None:
                return "case " + header
        return "cases (exit %s)" % rc
    return stage


def traces_stage(build):
    def stage():
        rc, out = run([testbed(build), "sim", "--quiet", "sim/traces"])
        if rc == 0:
            return None
        for line in out.splitlines():
            m = re.match(r"^trace \S+ \((\S+)\): FAIL", line)
            if m:
                return "trace " + m.group(1)
        return "traces (exit %s)" % rc
    return stage


STAGE_NAMES = ["unit", "vectors", "cases", "sim-unit", "traces", "ctest-rest"]


def stages(build):
    return [
        ("unit", ctest_stage(build, ["-L", "unit"])),
        ("vectors", vectors_stage(build)),
        ("cases", cases_stage(build)),
        ("sim-unit", ctest_stage(build, ["-L", "sim", "-E", "^sim_traces$"])),
        ("traces", traces_stage(build)),
        # Tests over real sockets (labels loopback, runtime) depend on the host's
        # timing, so they stay out of the gate: one slow run would judge a mutant
        # (every other stage of scripts/test.sh runs them).
        ("ctest-rest", ctest_stage(build, ["-LE", "^(unit|sim|loopback|runtime)$"])),
    ]


# ---- build ------------------------------------------------------------------

def configure(build):
    cmd = ["cmake", "-S", ROOT, "-B", build, "-DCMAKE_BUILD_TYPE=Debug", "-DCMAKE_C_FLAGS_DEBUG=-O1",
           "-DCMAKE_C_COMPILER=gcc", "-DRCLIENT_BUILD_FUZZ=OFF", "-DRCLIENT_BUILD_BENCH=OFF",
           "-DRCLIENT_BUILD_EXAMPLES=OFF",
           # A mutant is judged by the tests, not by the warnings it may cause
           # (an argument it leaves unused, say).
           "-DRCLIENT_WERROR=OFF"]
    if shutil.which("ld.lld"):
        cmd.append("-DCMAKE_EXE_LINKER_FLAGS=-fuse-ld=lld")  # relinking every test is most of the time
    if shutil.which("ccache"):
        cmd.append("-DCMAKE_C_COMPILER_LAUNCHER=ccache")
        os.environ.setdefault("CCACHE_DIR", os.path.join(ROOT, "build", "ccache"))
    rc, out = run(cmd)
    if rc != 0:
        raise ListError("configure failed:\n" + out)


def build_tree(build):
    return run(["cmake", "--build", build, "-j2"])


def run_stages(stage_list, only=None):
    for name, fn in stage_list:
        if only is not None and name not in only:
            continue
        failed = fn()
        if failed is not None:
            return name, failed
    return None, None


def judge(m, stage_list, build):
    """Apply mutant m, build, run; always restore. Returns (killed, detail)."""
    path = os.path.join(ROOT, m["file"])
    with open(path, "rb") as f:
        original = f.read()
    text = original.decode("utf-8")
    try:
        with open(path, "wb") as f:
            f.write(text.replace(m["find"], m["replace"], 1).encode("utf-8"))
        rc, out = build_tree(build)
        if rc != 0:
            raise ListError("mutant %s does not build:\n%s" % (m["name"], out[-3000:]))
        stage, detail = run_stages(stage_list)
        killed = stage is not None
        notes = [detail] if killed else []
        for req in m.get("require", []):
            if req == stage:
                continue
            _, d = run_stages(stage_list, only={req})
            if d is None:
                killed = False
                notes.append("NOT by %s" % req)
            else:
                notes.append(d)
        return killed, "; ".join(notes) if notes else "-"
    finally:
        with open(path, "wb") as f:
            f.write(original)


def ci_share():
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True, check=True).stdout.strip()
        return int(head[:8], 16) % SHARES, "commit %s" % head[:12]
    except (OSError, subprocess.CalledProcessError, ValueError):
        day = datetime.datetime.now(datetime.timezone.utc).date().toordinal()
        return day % SHARES, "UTC day %d" % day


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--all", action="store_true", help="run every mutant")
    ap.add_argument("--share", help="run share I of N (0-based): mutants with index %% N == I")
    ap.add_argument("--only", nargs="+", metavar="NAME", help="run these mutants")
    ap.add_argument("--list", action="store_true", help="check the list and print it, run nothing")
    ap.add_argument("--table", help="also write the result table (Markdown) to FILE")
    ap.add_argument("--build-dir", default=os.path.join(ROOT, "build", "mutation"))
    args = ap.parse_args()
    try:
        mutants = load_mutants()
    except (ListError, tomllib.TOMLDecodeError, OSError) as e:
        print("mutation: error in %s:\n%s" % (os.path.relpath(MUTANTS, ROOT), e), file=sys.stderr)
        return 2
    indexed = list(enumerate(mutants))
    if args.only:
        unknown = set(args.only) - {m["name"] for m in mutants}
        if unknown:
            print("mutation: unknown mutant(s): %s" % ", ".join(sorted(unknown)), file=sys.stderr)
            return 2
        selected = [(i, m) for i, m in indexed if m["name"] in args.only]
        what = "selected by name"
    elif args.all:
        selected = indexed
        what = "the full list"
    else:
        if args.share:
            m = re.fullmatch(r"(\d+)/(\d+)", args.share)
            if not m or int(m.group(2)) == 0 or int(m.group(1)) >= int(m.group(2)):
                print("mutation: --share expects I/N with 0 <= I < N", file=sys.stderr)
                return 2
            share, n, why = int(m.group(1)), int(m.group(2)), "given"
        else:
            (share, why), n = ci_share(), SHARES
        selected = [(i, m) for i, m in indexed if i % n == share]
        what = "share %d/%d (%s)" % (share, n, why)
    print("mutation: %d mutants in the list; running %d: %s" % (len(mutants), len(selected), what))
    if args.list:
        for i, m in selected:
            print("%3d %-44s %s %s" % (i, m["name"], m["rule"], m["file"]))
        return 0

    t0 = time.monotonic()
    build = args.build_dir
    stage_list = stages(build)
    try:
        configure(build)
        rc, out = build_tree(build)
        if rc != 0:
            raise ListError("the unmutated tree does not build:\n" + out[-3000:])
        stage, detail = run_stages(stage_list)
        if stage is not None:
            raise ListError("the unmutated tree fails stage %s: %s" % (stage, detail))
        print("mutation: baseline passes every stage (%.0f s)" % (time.monotonic() - t0))
        rows = []
        killed_n = 0
        for i, m in selected:
            t1 = time.monotonic()
            killed, detail = judge(m, stage_list, build)
            killed_n += killed
            rows.append((m["name"], m["rule"], detail if killed else "SURVIVED (" + detail + ")"))
            print("  %-44s %s  %-5s %s  (%.1f s)" % (m["name"], m["rule"], "KILL" if killed else "LIVE",
                                                     detail, time.monotonic() - t1), flush=True)
    except ListError as e:
        print("mutation: error: %s" % e, file=sys.stderr)
        return 2
    finally:
        build_tree(build)  # leave the build directory matching the restored tree
    survived = len(rows) - killed_n
    table = ["| mutant | rule | killed by |", "| --- | --- | --- |"]
    table += ["| %s | %s | %s |" % r for r in rows]
    print()
    print("\n".join(table))
    closing = "mutants: %d killed, %d survived" % (killed_n, survived)
    print()
    print("mutation: %s, %.0f s" % (what, time.monotonic() - t0))
    print(closing)
    if args.table:
        with open(args.table, "w", encoding="utf-8") as f:
            f.write("# Mutation gate: %s\n\n" % what)
            f.write("Made by `python3 scripts/mutation.py%s`; mutants in `mutation/mutants.toml`, rule ids in "
                    "`docs/traceability.md`.\n\n" % (" --all" if args.all else ""))
            f.write("\n".join(table) + "\n\n" + closing + "\n")
    return 0 if survived == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
