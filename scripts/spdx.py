#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""SPDX license identifiers in the project's sources (LICENSE: MIT).

usage: python3 scripts/spdx.py [--check | --apply]
  --check  (default) list every tracked source without the identifier; exit 1 if any
  --apply  add the identifier as the first line (after a #! line) where it is missing

Sources are the tracked C files and headers, Python, shell, JavaScript, gnuplot
and CMake files. Data (vectors, cases, corpora, JSON) and generated reports
(reports/) carry none and are covered by LICENSE alone.
"""
import subprocess
import sys

TAG = "SPDX-License-Identifier: MIT"
C_LIKE = (".c", ".h", ".js")
HASH = (".py", ".sh", ".gp", ".cmake")


def comment_for(path):
    if path.endswith(C_LIKE):
        return "/* %s */" % TAG if not path.endswith(".js") else "// %s" % TAG
    if path.endswith(HASH) or path.endswith("CMakeLists.txt"):
        return "# %s" % TAG
    return None


def sources():
    out = subprocess.run(["git", "ls-files"], check=True, capture_output=True, text=True).stdout
    # reports/ holds generated files (gnuplot scripts written by `sweep report`)
    return [p for p in out.splitlines() if comment_for(p) is not None and not p.startswith(("fuzz/corpus/", "reports/"))]


def has_tag(text):
    return TAG in "\n".join(text.splitlines()[:3])


def apply(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if has_tag(text):
        return False
    line = comment_for(path) + "\n"
    if text.startswith("#!"):
        first, _, rest = text.partition("\n")
        text = first + "\n" + line + rest
    else:
        text = line + text
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return True


def main(argv):
    mode = argv[1] if len(argv) > 1 else "--check"
    if mode not in ("--check", "--apply"):
        print("usage: spdx.py [--check | --apply]", file=sys.stderr)
        return 2
    missing = []
    for path in sources():
        if mode == "--apply":
            apply(path)
            continue
        with open(path, encoding="utf-8") as f:
            if not has_tag(f.read()):
                missing.append(path)
    for path in missing:
        print("%s: no '%s' in its first three lines" % (path, TAG))
    print("spdx: %d sources, %d without the identifier" % (len(sources()), len(missing)))
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
