#!/usr/bin/env python3
"""Part of scripts/check-layering: (1) every `// File: PATH` banner names its
own file's path; (2) every repository source path a comment or document cites
(`folder/name.h`, `folder/name.cc`, under one of the repository's top-level
folders) exists. Prints each violation; exits 1 if there is any.
Usage: check_citations.py REPOSITORY_ROOT"""
import pathlib
import re
import sys

root = pathlib.Path(sys.argv[1]).resolve()
skip_dirs = {".git", "node_modules"}
top = {p.name for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")
       and not p.name.startswith("build")}
cited = re.compile(r"(?<![\w./-])((?:%s)/[\w./-]*?\w\.(?:h|cc))(?![\w])" % "|".join(
    re.escape(t) for t in sorted(top)))
banner = re.compile(r"^// File: (\S+)")

problems = []
for path in sorted(root.rglob("*")):
    rel = path.relative_to(root)
    parts = rel.parts
    if not path.is_file() or parts[0] in skip_dirs or parts[0].startswith("build") \
            or parts[0] not in top or rel.as_posix().startswith("test/fuzz/corpus/"):
        continue
    if path.suffix not in {".h", ".cc", ".md", ".in", ".cjs", ".mjs", ".py", ".sh", ".txt"}:
        continue
    text = path.read_text(errors="replace")
    if path.suffix in {".h", ".cc"}:
        first = text.splitlines()[0] if text else ""
        named = banner.match(first)
        if named and named.group(1) != rel.as_posix():
            problems.append(f"{rel}:1: its banner names {named.group(1)}")
    for number, line in enumerate(text.splitlines(), 1):
        if path.suffix in {".h", ".cc"} and "//" not in line:
            continue  # code, not a comment
        for match in cited.finditer(line):
            target = match.group(1)
            # A path relative to the citing file's folder (a CMakeLists.txt), or a generated
            # file whose template is here (base/build_info.cc from build_info.cc.in), counts.
            if (root / target).exists() or (path.parent / target).exists() \
                    or (root / (target + ".in")).exists():
                continue
            if True:
                problems.append(f"{rel}:{number}: cites {target}, which does not exist")
for problem in problems:
    print(f"layering: {problem}")
sys.exit(1 if problems else 0)
