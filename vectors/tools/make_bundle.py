#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Make (or check) the versioned suite bundle rl-testbed-vectors-<version>.tar.gz.

The archive holds one top folder rl-testbed-vectors-<version>/ with the project's suite files in
the layout of a checkout (and of share/rl-testbed when installed):

  vectors/*.json               known-answer vectors (ratelimitly-vectors/v1)
  vectors/dialect/*.json       the dialect vector sets (rl-testbed dialect)
  conformance/cases/*.json     HA decision cases (ratelimitly-ha-case/v1)
  sim/traces/*.json            simulator traces (ratelimitly-trace/v1), default-set.txt
  sim/traces/data/*.txt        files the traces name (empirical latency samples)
  schemas/*.schema.json        their JSON Schemas (draft 2020-12), validate.py
  docs/                        ha-cases.md (conformance/README.md), traces.md, testing-other-clients.md
  MANIFEST.json                version, commit, suite_data_version, and per file: path, size,
                               sha256, schema, tests
  SHA256SUMS                   `sha256sum -c` format, every file except itself

The outside known answers (../shared/external) are not the project's and are not bundled.
The archive is reproducible: sorted entries, fixed times, owner and modes, so the same tree gives
the same bytes.

Usage:
  make_bundle.py [--version V] [--out DIR]   write DIR/rl-testbed-vectors-V.tar.gz (default: the
                                             version in CMakeLists.txt, the current directory)
  make_bundle.py --check FILE.tar.gz         verify the sums, the manifest and the file list;
                                             exit 1 on any mismatch
  make_bundle.py --suite-version [--version V]
                                             print the suite-data version alone (what
                                             `rl-testbed --version` reports)

The suite-data version is "<version>+<16 hex>": the first 8 bytes of the SHA-256 of the
sha256sum-format lines ("<sha256>  <path>\n", sorted by path) of the suite files above, so any
change to a vector, case, trace, schema or bundled doc changes it.
"""
import argparse
import gzip
import hashlib
import io
import json
import os
import re
import subprocess
import sys
import tarfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# (glob directory, pattern suffix, destination folder); docs get new names.
CONTENT = (
    ("vectors", ".json", "vectors"),
    ("vectors/dialect", ".json", "vectors/dialect"),
    ("conformance/cases", ".json", "conformance/cases"),
    ("sim/traces", ".json", "sim/traces"),
    ("sim/traces/data", ".txt", "sim/traces/data"),
    ("schemas", ".schema.json", "schemas"),
)
SINGLE = (
    ("sim/traces/default-set.txt", "sim/traces/default-set.txt"),
    ("schemas/validate.py", "schemas/validate.py"),
    ("conformance/README.md", "docs/ha-cases.md"),
    ("docs/traces.md", "docs/traces.md"),
    ("docs/testing-other-clients.md", "docs/testing-other-clients.md"),
)
EPOCH = 1767225600  # fixed member time (2026-01-01T00:00:00Z): reproducible bytes


def project_version():
    with open(os.path.join(ROOT, "CMakeLists.txt"), encoding="utf-8") as f:
        m = re.search(r"project\(\s*\w+\s+VERSION\s+([0-9][0-9.]*)", f.read())
    if not m:
        sys.exit("make_bundle.py: no project VERSION in CMakeLists.txt; give --version")
    return m.group(1)


def collect():
    """[(archive path, bytes)] sorted by path."""
    files = []
    for src, suffix, dest in CONTENT:
        d = os.path.join(ROOT, src)
        for name in sorted(os.listdir(d)):
            if name.endswith(suffix) and os.path.isfile(os.path.join(d, name)):
                files.append((f"{dest}/{name}", os.path.join(d, name)))
    files += [(dest, os.path.join(ROOT, src)) for src, dest in SINGLE]
    out = []
    for arc, path in sorted(files):
        with open(path, "rb") as f:
            out.append((arc, f.read()))
    return out


def describe(arc, data):
    entry = {"path": arc, "size": len(data), "sha256": hashlib.sha256(data).hexdigest()}
    if arc.endswith(".json") and not arc.startswith("schemas/"):
        doc = json.loads(data)
        entry["schema"] = doc.get("schema")
        if entry["schema"] == "ratelimitly-vectors/v1":
            entry["kind"] = doc.get("kind")
            entry["tests"] = len(doc.get("tests", []))
    return entry


def suite_data_version(version, files=None):
    files = collect() if files is None else files
    lines = "".join(f"{hashlib.sha256(d).hexdigest()}  {a}\n" for a, d in sorted(files))
    return f"{version}+{hashlib.sha256(lines.encode()).hexdigest()[:16]}"


def git_commit():
    """The checkout's commit (40 hex), "unknown" outside a git checkout; RL_COMMIT overrides."""
    env = os.environ.get("RL_COMMIT")
    if env:
        return env
    try:
        out = subprocess.run(["git", "-C", ROOT, "rev-parse", "HEAD"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    c = out.stdout.strip()
    return c if out.returncode == 0 and re.fullmatch(r"[0-9a-f]{40}", c) else "unknown"


def build_members(version, commit):
    files = collect()
    entries = [describe(arc, data) for arc, data in files]
    manifest = {
        "name": "rl-testbed-vectors",
        "version": version,
        "commit": commit,
        "suite_data_version": suite_data_version(version, files),
        "formats": {"ratelimitly-vectors/v1": "schemas/ratelimitly-vectors-v1.schema.json",
                    "ratelimitly-ha-case/v1": "schemas/ratelimitly-ha-case-v1.schema.json",
                    "ratelimitly-trace/v1": "schemas/ratelimitly-trace-v1.schema.json"},
        "files": entries,
    }
    manifest_bytes = (json.dumps(manifest, indent=2) + "\n").encode()
    files.append(("MANIFEST.json", manifest_bytes))
    files.sort()
    sums = "".join(f"{hashlib.sha256(d).hexdigest()}  {a}\n" for a, d in files).encode()
    files.append(("SHA256SUMS", sums))
    return files


def write_bundle(version, out_dir, commit):
    """Write the archive; returns (its path, the number of files in it)."""
    top = f"rl-testbed-vectors-{version}"
    members = build_members(version, commit)
    all_dirs = set()
    for arc, _ in members:
        d = os.path.dirname(f"{top}/{arc}")
        while d and d not in all_dirs:
            all_dirs.add(d)
            d = os.path.dirname(d)
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for d in sorted(all_dirs):
            info = tarfile.TarInfo(d)
            info.type, info.mode, info.mtime = tarfile.DIRTYPE, 0o755, EPOCH
            tar.addfile(info)
        for arc, data in members:
            info = tarfile.TarInfo(f"{top}/{arc}")
            info.size, info.mtime = len(data), EPOCH
            info.mode = 0o755 if arc.endswith(".py") else 0o644
            tar.addfile(info, io.BytesIO(data))
    path = os.path.join(out_dir, f"{top}.tar.gz")
    os.makedirs(out_dir, exist_ok=True)
    with open(path, "wb") as f:
        with gzip.GzipFile(filename="", mode="wb", fileobj=f, mtime=0) as gz:
            gz.write(raw.getvalue())
    return path, len(members)


def check_bundle(path):
    """List of problems; empty when the bundle is consistent."""
    problems = []
    m = re.search(r"rl-testbed-vectors-([0-9][0-9.]*)\.tar\.gz$", os.path.basename(path))
    if not m:
        return [f"{path}: name is not rl-testbed-vectors-<version>.tar.gz"]
    top = f"rl-testbed-vectors-{m.group(1)}/"
    files = {}
    try:
        with tarfile.open(path, "r:gz") as tar:
            for info in tar.getmembers():
                if not info.name.startswith(top.rstrip("/")):
                    problems.append(f"{info.name}: outside {top}")
                if info.isfile():
                    files[info.name[len(top):]] = tar.extractfile(info).read()
    except (OSError, tarfile.TarError, EOFError) as e:
        return [f"cannot read the archive: {e}"]
    for need in ("SHA256SUMS", "MANIFEST.json"):
        if need not in files:
            return problems + [f"{need}: missing"]
    listed = {}
    for n, line in enumerate(files["SHA256SUMS"].decode().splitlines(), 1):
        parts = line.split("  ", 1)
        if len(parts) != 2 or not re.fullmatch(r"[0-9a-f]{64}", parts[0]):
            problems.append(f"SHA256SUMS line {n}: not '<sha256>  <path>'")
            continue
        listed[parts[1]] = parts[0]
    for name, data in sorted(files.items()):
        if name == "SHA256SUMS":
            continue
        if name not in listed:
            problems.append(f"{name}: not in SHA256SUMS")
        elif hashlib.sha256(data).hexdigest() != listed[name]:
            problems.append(f"{name}: SHA-256 differs from SHA256SUMS")
    problems += [f"{name}: in SHA256SUMS, not in the archive" for name in sorted(set(listed) - set(files))]
    try:
        manifest = json.loads(files["MANIFEST.json"])
    except ValueError as e:
        return problems + [f"MANIFEST.json: not JSON: {e}"]
    if manifest.get("version") != m.group(1):
        problems.append(f"MANIFEST.json: version {manifest.get('version')!r}, archive name says {m.group(1)!r}")
    suite = [(e["path"], files[e["path"]]) for e in manifest.get("files", []) if e.get("path") in files]
    if manifest.get("suite_data_version") != suite_data_version(m.group(1), suite):
        problems.append(f"MANIFEST.json: suite_data_version {manifest.get('suite_data_version')!r} does not match "
                        f"the files ({suite_data_version(m.group(1), suite)})")
    if not re.fullmatch(r"[0-9a-f]{40}|unknown", str(manifest.get("commit"))):
        problems.append(f"MANIFEST.json: commit {manifest.get('commit')!r}: expected 40 hex digits or 'unknown'")
    in_manifest = {e["path"]: e for e in manifest.get("files", [])}
    for name, data in sorted(files.items()):
        if name in ("SHA256SUMS", "MANIFEST.json"):
            continue
        e = in_manifest.get(name)
        if e is None:
            problems.append(f"{name}: not in MANIFEST.json")
        elif e.get("sha256") != hashlib.sha256(data).hexdigest() or e.get("size") != len(data):
            problems.append(f"{name}: size or SHA-256 differs from MANIFEST.json")
    problems += [f"{name}: in MANIFEST.json, not in the archive" for name in sorted(set(in_manifest) - set(files))]
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--version", help="bundle version (default: CMakeLists.txt project VERSION)")
    ap.add_argument("--out", default=".", help="output directory")
    ap.add_argument("--check", metavar="FILE", help="verify a bundle instead of making one")
    ap.add_argument("--commit", help="commit recorded in MANIFEST.json (default: git rev-parse HEAD, $RL_COMMIT)")
    ap.add_argument("--suite-version", action="store_true", help="print the suite-data version and exit")
    args = ap.parse_args()
    if args.check:
        problems = check_bundle(args.check)
        for p in problems:
            print(f"{args.check}: {p}")
        print(f"make_bundle --check: {'OK' if not problems else f'{len(problems)} problem(s)'}")
        return 1 if problems else 0
    version = args.version or project_version()
    if not re.fullmatch(r"[0-9][0-9.]*", version):
        print(f"make_bundle.py: --version {version!r}: expected digits and dots", file=sys.stderr)
        return 2
    if args.suite_version:
        print(suite_data_version(version))
        return 0
    path, n = write_bundle(version, args.out, args.commit or git_commit())
    with open(path, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    print(f"wrote {path}: {n} files, sha256 {digest}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
