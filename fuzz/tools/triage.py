#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Crash triage (fuzz/campaign.sh --triage; fuzz/README.md "Triage").

Usage: fuzz/campaign.sh --triage DIR [harness] [--regressions OUT] [--summary FILE]
                        [--frames N] [--minimize-seconds S] [--no-build]

Finds the crash inputs under DIR: AFL++ findings (id:* files in a `crashes`
folder, as afl-fuzz writes them), libFuzzer artifacts (crash-*, leak-*,
timeout-*, oom-*), or, when DIR holds neither, every file directly in DIR
(but *.log, *.env, *.txt, *.md, *.json). Each input
belongs to `harness` when given, else to the nearest folder on its path named
like a harness (a campaign work dir, an afl-fuzz -o dir named after the
harness, fuzz/regressions/<h>/...).

Every input is replayed once with the libFuzzer build (build/fuzz/fuzz/fuzz_<h>,
ASan+UBSan, UBSan stack traces on) and keyed by its sanitizer report: the
kind (heap-buffer-overflow, invariant, undefined, leak, timeout, ...) and the
top N (default 3) stack frames in the repository's own sources. One input per
key, the smallest, is minimized: libFuzzer -minimize_crash for libFuzzer
artifacts, afl-tmin (build/afl) for AFL++ findings; a minimized input counts
only when it still crashes with the same key, else the next method is tried
(libFuzzer, then removing ever smaller chunks while the key stays the same). It is written to
OUT/<h>/<kind>-<sha1 prefix> (OUT defaults to fuzz/regressions), where the
replay tests (ctest -L fuzz-replay), campaigns and the OSS-Fuzz seed corpora
pick it up, and OUT/DESCRIPTIONS gets one line `<h>/<file>: <description>`.
An input whose bytes are already in OUT/<h>/ is reported as known.

--summary FILE writes `<file>|<description>` per distinct crash (campaign.sh
reads it). Without --no-build the fuzz preset (and the afl preset when there
are AFL++ findings) is built first. Exit status: 0 when every input was
triaged, 1 when one did not reproduce, 2 on a usage or build error.
"""

import argparse
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LF_BIN = os.path.join(ROOT, "build", "fuzz", "fuzz")
AFL_BIN = os.path.join(ROOT, "build", "afl", "fuzz")
LIBFUZZER_ARTIFACT = re.compile(r"^(crash|leak|timeout|oom)-")
NOT_INPUT = re.compile(r"\.(log|env|txt|md|json)$")  # logs and reports beside crash inputs
FRAME = re.compile(r"^\s*#(\d+) 0x[0-9a-f]+ in (\S+) (\S+?)(?::(\d+))?(?::\d+)?$")
REPLAY_ENV = {
    "ASAN_OPTIONS": "symbolize=1:detect_leaks=1:allocator_may_return_null=1",
    "UBSAN_OPTIONS": "print_stacktrace=1:halt_on_error=1",
}
MINIMIZE_ENV = {  # no symbolization: only whether it crashes matters, and it is slow
    "ASAN_OPTIONS": "symbolize=0:detect_leaks=1:allocator_may_return_null=1",
    "UBSAN_OPTIONS": "symbolize=0:halt_on_error=1",
}
AFL_ENV = {
    "ASAN_OPTIONS": "abort_on_error=1:symbolize=0:detect_leaks=0:allocator_may_return_null=1",
    "UBSAN_OPTIONS": "halt_on_error=1:abort_on_error=1:print_stacktrace=0",
    "AFL_SKIP_CPUFREQ": "1",
    "AFL_NO_AFFINITY": "1",
}


def harness_names():
    names = set()
    for base in (LF_BIN,):
        if os.path.isdir(base):
            names.update(f[len("fuzz_"):] for f in os.listdir(base)
                         if f.startswith("fuzz_") and os.access(os.path.join(base, f), os.X_OK))
    return names


def candidates(top):
    """(path, engine) of every crash input under top."""
    afl, lf, other = [], [], []
    for d, dirs, files in os.walk(top):
        dirs.sort()
        for f in sorted(files):
            p = os.path.join(d, f)
            if f.startswith("."):
                continue
            if os.path.basename(d) == "crashes" and f.startswith("id:"):
                afl.append((p, "afl"))
            elif LIBFUZZER_ARTIFACT.match(f):
                lf.append((p, "libfuzzer"))
            elif d == top and not NOT_INPUT.search(f):
                other.append((p, "libfuzzer"))
    return afl + lf if afl or lf else other


def harness_of(path, names):
    d = os.path.dirname(os.path.abspath(path))
    while d != os.path.dirname(d):
        if os.path.basename(d) in names:
            return os.path.basename(d)
        d = os.path.dirname(d)
    return None


def run(cmd, env_extra, timeout):
    env = dict(os.environ)
    env.update(env_extra)
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, timeout=timeout)
        return p.returncode, p.stdout.decode("utf-8", "replace")
    except subprocess.TimeoutExpired as e:
        return -1, (e.stdout or b"").decode("utf-8", "replace")


def rel(path):
    path = os.path.normpath(path)
    return os.path.relpath(path, ROOT) if path.startswith(ROOT + os.sep) else path


def signature(log, frames):
    """(kind, [(function, file:line)], message) of a sanitizer report, or None."""
    kind, message = None, ""
    m = re.search(r"fuzz invariant violated at (\S+): (.*)", log)
    if m:
        kind, message = "invariant", f"invariant `{m.group(2).strip()}` violated at {rel(m.group(1))}"
    if kind is None:
        m = re.search(r"ERROR: AddressSanitizer: ([\w-]+)", log)
        if m:
            kind = m.group(1).lower()
            message = f"AddressSanitizer {m.group(1)}"
    if kind is None:
        m = re.search(r"^(\S+): runtime error: (.*)$", log, re.M)
        if m:
            kind, message = "undefined", f"runtime error: {m.group(2).strip()}"
    if kind is None and "ERROR: LeakSanitizer" in log:
        kind, message = "leak", "memory leak"
    if kind is None:
        m = re.search(r"ERROR: libFuzzer: (timeout|out-of-memory|deadly signal)", log)
        if m:
            kind = {"timeout": "timeout", "out-of-memory": "oom", "deadly signal": "signal"}[m.group(1)]
            message = f"libFuzzer: {m.group(1)}"
    if kind is None:
        return None
    top = []
    for line in log.splitlines():
        f = FRAME.match(line)
        if f is None:
            if top and not line.strip():
                break  # the end of the first stack that had own frames
            continue
        func, path, lineno = f.group(2), f.group(3), f.group(4)
        if not path.startswith(ROOT + os.sep) or lineno is None:
            continue  # sanitizer runtime, libFuzzer, libc, other libraries
        top.append((func, f"{rel(path)}:{lineno}"))
        if len(top) == frames:
            break
    return kind, top, message


def key_of(sig):
    kind, top, _ = sig
    return kind + "|" + ";".join(f"{fn}@{loc}" for fn, loc in top)


def reproduce(h, path, frames):
    rc, log = run([os.path.join(LF_BIN, f"fuzz_{h}"), "-timeout=25", "-rss_limit_mb=2560", path],
                  REPLAY_ENV, 120)
    return signature(log, frames) if rc != 0 else None


def minimize_libfuzzer(h, src, out, seconds, key, frames):
    # Without comparison-guided mutations: they lead -minimize_crash to other crashes.
    run([os.path.join(LF_BIN, f"fuzz_{h}"), "-minimize_crash=1", "-use_cmp=0", "-use_memmem=0",
         "-use_value_profile=0", "-runs=20000", f"-max_total_time={seconds}", "-timeout=25",
         f"-exact_artifact_path={out}", src], MINIMIZE_ENV, seconds + 120)
    return os.path.isfile(out) and os.path.getsize(out) > 0


def minimize_chunks(h, src, out, seconds, key, frames):
    """Remove ever smaller chunks while the input still crashes with the same key."""
    data = open(src, "rb").read()
    deadline = time.monotonic() + seconds
    chunk = max(1, len(data) // 2)
    while chunk >= 1 and time.monotonic() < deadline:
        i = 0
        while i < len(data) and time.monotonic() < deadline:
            cand = data[:i] + data[i + chunk:]
            with open(out, "wb") as f:
                f.write(cand)
            sig = reproduce(h, out, frames)
            if sig is not None and key_of(sig) == key:
                data = cand
            else:
                i += chunk
        chunk //= 2
    with open(out, "wb") as f:
        f.write(data)
    return True


def minimize_afl(h, src, out, seconds, key, frames):
    binary = os.path.join(AFL_BIN, f"fuzz_{h}")
    if shutil.which("afl-tmin") is None or not os.access(binary, os.X_OK):
        return False
    rc, _ = run(["afl-tmin", "-i", src, "-o", out, "-m", "none", "-t", "5000", "--", binary], AFL_ENV,
                seconds + 120)
    return rc == 0 and os.path.isfile(out) and os.path.getsize(out) > 0


def build(afl):
    for preset in ["fuzz"] + (["afl"] if afl else []):
        for cmd in (["cmake", "--preset", preset], ["cmake", "--build", "--preset", preset]):
            if subprocess.run(cmd, cwd=ROOT, stdout=subprocess.DEVNULL).returncode != 0:
                print(f"triage: {' '.join(cmd)} failed", file=sys.stderr)
                sys.exit(2)


def describe(sig, engine, method, size0, size1, origin):
    kind, top, message = sig
    where = top[0][0] + " (" + top[0][1] + ")" if top else "no frame in the repository's sources"
    calls = " < ".join(fn for fn, _ in top[1:])
    return (f"{message} in {where}" + (f" < {calls}" if calls else "") +
            f"; found by {engine} as {os.path.basename(origin)}; {method} {size0} -> {size1} bytes")


def main():
    ap = argparse.ArgumentParser(prog="campaign.sh --triage", description=__doc__.splitlines()[0])
    ap.add_argument("dir")
    ap.add_argument("harness", nargs="?")
    ap.add_argument("--regressions", default=os.path.join(ROOT, "fuzz", "regressions"))
    ap.add_argument("--summary")
    ap.add_argument("--frames", type=int, default=3)
    ap.add_argument("--minimize-seconds", type=int, default=60)
    ap.add_argument("--no-build", action="store_true")
    args = ap.parse_args()
    if not os.path.isdir(args.dir):
        print(f"triage: {args.dir}: not a directory", file=sys.stderr)
        return 2
    found = candidates(args.dir)
    if not args.no_build:
        build(any(engine == "afl" for _, engine in found))
    names = harness_names()
    if args.harness is not None and args.harness not in names:
        print(f"triage: no harness {args.harness} in {rel(LF_BIN)}", file=sys.stderr)
        return 2

    groups = {}  # (harness, key) -> list of (path, engine, sig)
    unreproduced = []
    for path, engine in found:
        h = args.harness or harness_of(path, names)
        if h is None:
            print(f"triage: {rel(path)}: no harness named on its path; give one", file=sys.stderr)
            return 2
        sig = reproduce(h, path, args.frames)
        if sig is None:
            unreproduced.append(path)
            continue
        groups.setdefault((h, key_of(sig)), []).append((path, engine, sig))

    summary = []
    work = tempfile.mkdtemp(prefix="triage-")
    for (h, key), items in sorted(groups.items()):
        items.sort(key=lambda it: (os.path.getsize(it[0]), it[1] != "libfuzzer", it[0]))
        path, engine, sig = items[0]
        out = os.path.join(work, f"min-{len(summary)}")
        methods = ([("afl-tmin", minimize_afl)] if engine == "afl" else []) + \
            [("libFuzzer -minimize_crash", minimize_libfuzzer), ("chunk removal", minimize_chunks)]
        method = "not minimized"
        for name, fn in methods:
            if os.path.exists(out):
                os.remove(out)
            if fn(h, path, out, args.minimize_seconds, key, args.frames):
                again = reproduce(h, out, args.frames)
                if again is not None and key_of(again) == key:
                    method = "minimized by " + name
                    break
        if method == "not minimized":
            shutil.copyfile(path, out)
        data = open(out, "rb").read()
        dest_dir = os.path.join(args.regressions, h)
        os.makedirs(dest_dir, exist_ok=True)
        known = next((f for f in sorted(os.listdir(dest_dir))
                      if os.path.isfile(os.path.join(dest_dir, f)) and
                      open(os.path.join(dest_dir, f), "rb").read() == data), None)
        desc = describe(sig, engine, method, os.path.getsize(path), len(data), path)
        if known is not None:
            name = known
            print(f"triage: [{h}] {len(items)} input(s), {sig[0]}: already known as {rel(os.path.join(dest_dir, name))}")
        else:
            name = f"{sig[0]}-{hashlib.sha1(data).hexdigest()[:16]}"
            with open(os.path.join(dest_dir, name), "wb") as f:
                f.write(data)
            with open(os.path.join(args.regressions, "DESCRIPTIONS"), "a") as f:
                f.write(f"{h}/{name}: {desc}\n")
            print(f"triage: [{h}] {len(items)} input(s) -> {rel(os.path.join(dest_dir, name))}: {desc}")
        summary.append(f"{name}|{desc}")
    shutil.rmtree(work, ignore_errors=True)
    for path in unreproduced:
        print(f"triage: {rel(path)}: does not crash when replayed (flaky, or fixed)")
    if args.summary:
        with open(args.summary, "w") as f:
            f.write("".join(line + "\n" for line in summary))
    print(f"triage: {len(found)} input(s), {len(groups)} distinct crash(es), {len(unreproduced)} not reproduced")
    return 1 if unreproduced else 0


if __name__ == "__main__":
    sys.exit(main())
