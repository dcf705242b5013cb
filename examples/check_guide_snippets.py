#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Every code block of docs/api-guide.md that follows a marker line

    <!-- code: FILE REGION -->

is exactly the region REGION of FILE (the lines between "guide:REGION" and
"end guide:REGION", dedented by their common indentation), and every C block
has such a marker, so the guide shows no code that is not compiled
(examples/guide_snippets.c, target guide_snippets). Exit 1 naming each
difference. Usage: check_guide_snippets.py SOURCE_DIR"""
import re
import sys
import textwrap
from pathlib import Path

root = Path(sys.argv[1])
guide = (root / "docs/api-guide.md").read_text().splitlines()
problems, checked = [], 0
i = 0
while i < len(guide):
    line = guide[i]
    m = re.fullmatch(r"<!-- code: (\S+) (\S+) -->", line)
    if line == "```c" and not (i > 0 and re.fullmatch(r"<!-- code: .* -->", guide[i - 1])):
        problems.append(f"docs/api-guide.md:{i + 1}: a C block without a <!-- code: FILE REGION --> marker")
    if m:
        if i + 1 >= len(guide) or not guide[i + 1].startswith("```"):
            problems.append(f"docs/api-guide.md:{i + 1}: marker not followed by a code block")
            i += 1
            continue
        end = next((k for k in range(i + 2, len(guide)) if guide[k] == "```"), None)
        block = "\n".join(guide[i + 2:end])
        src = (root / m.group(1)).read_text().splitlines()
        try:
            a = next(k for k, s in enumerate(src) if s.strip() == f"/* guide:{m.group(2)} */")
            b = next(k for k, s in enumerate(src) if s.strip() == f"/* end guide:{m.group(2)} */")
        except StopIteration:
            problems.append(f"{m.group(1)}: no region {m.group(2)}")
            i = end
            continue
        region = textwrap.dedent("\n".join(src[a + 1:b]))
        checked += 1
        if region != block:
            for n, (x, y) in enumerate(zip(region.splitlines() + [""] * 99, block.splitlines() + [""] * 99)):
                if x != y:
                    problems.append(f"docs/api-guide.md:{i + 3 + n}: differs from {m.group(1)} {m.group(2)}:\n"
                                    f"  guide: {y!r}\n  code:  {x!r}")
                    break
        i = end
    i += 1
for p in problems:
    print(p)
print(f"guide snippets: {checked} checked, {len(problems)} problem(s)")
sys.exit(1 if problems or checked == 0 else 0)
