#!/usr/bin/env python3
"""Runs clang-tidy over the project's translation units, skipping those whose
result is already known: a unit that passed is remembered by a digest of
clang-tidy's version, .clang-tidy, its compile command and the contents of
every file it includes (from the build's own dependency records, `ninja -t
deps`). The record lives outside the clone (~/.cache/carbonroute-tidy, or
$CARBONROUTE_TIDY_CACHE), so a fresh clone of an unchanged tree skips every
unit. Only passes are remembered: a finding is reported again on every run.

A unity build (CMake's Unity/unity_N_cxx.cxx, scripts/check-sanitizers
address builds so, 16 files a unit) is checked unit by unit, as it compiles:
the headers' ASTs are matched once per unit instead of once per file, which
more than halves the time (docs/testing.md). A unity unit #includes its .cc
files, and clang-tidy looks at some things in the main file only
(misc-unused-using-decls), so each unit is checked as one main file instead:
its .cc files joined in BUILD_DIR/tidy/, each after a `#line 1 "FILE"`, and
every finding's line mapped back to the file it is in. The files are joined
in the reverse of the build's order, so a file that misses an include another
file of the unit supplies before it in the build is likely to fail here.

Usage: tidy_cached.py BUILD_DIR FOLDER_REGEX    (run from the repository root)
Exits 1 after printing every finding; prints how many units ran and how many
were skipped.
"""
import concurrent.futures
import hashlib
import json
import os
import re
import subprocess
import sys

# A CMake unity unit: it #includes its .cc files by absolute path.
UNITY_SOURCE = re.compile(r"/Unity/unity_\d+_cxx\.cxx$")
# A finding or a note's location: FILE:LINE:COLUMN:
LOCATION = re.compile(r"^(/[^:\s]+):(\d+):(\d+):")


def join_unity(units, database, pattern):
    """Each unity unit as one joined file (see above); other units as they are,
    those outside `pattern` left out. Each unit also names its object (whose
    recorded headers go into the digest) and its sources. Returns the units
    and, per joined file, its parts: (first line in the joined file, source
    path)."""
    joined, parts = [], {}
    for unit in units:
        source = unit["file"]
        output = re.search(r" -o (\S+)", unit["command"]).group(1)
        if not UNITY_SOURCE.search(source):
            if pattern.match(source):
                joined.append(dict(unit, object=output, sources=[source]))
            continue
        with open(source) as f:
            included = re.findall(r'^#include "(/[^"]+\.cc)"$', f.read(), re.MULTILINE)
        included = [path for path in included if pattern.match(path)]
        if not included:
            continue
        name = re.sub(r"[^A-Za-z0-9_.]", "_", os.path.relpath(source, unit["directory"])) + ".cc"
        path = os.path.join(database, name)
        lines, unit_parts = [], []
        for cc in reversed(included):
            lines.append(f'#line 1 "{cc}"\n')
            unit_parts.append((len(lines) + 1, cc))
            with open(cc) as f:
                text = f.read()
            lines.extend(text.splitlines(keepends=True))
            if lines and not lines[-1].endswith("\n"):
                lines[-1] += "\n"
        with open(path, "w") as f:
            f.writelines(lines)
        parts[path] = unit_parts
        command = unit["command"].replace(" -c " + source, " -c " + path)
        command = command.replace(" -o " + output, " -o " + path + ".o")
        joined.append({"directory": unit["directory"], "command": command, "file": path,
                       "object": output, "sources": included})
    return joined, parts


def map_back(line, parts):
    """A finding in a joined file, at the line of the file it came from."""
    found = LOCATION.match(line)
    if not found or found.group(1) not in parts:
        return line
    number = int(found.group(2))
    first, source = max((p for p in parts[found.group(1)] if p[0] <= number), default=(1, found.group(1)))
    return f"{source}:{number - first + 1}:{found.group(3)}:" + line[found.end():]


def main():
    build, folders = sys.argv[1], sys.argv[2]
    root = os.getcwd()
    build_abs = os.path.abspath(build)
    cache = os.environ.get("CARBONROUTE_TIDY_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "carbonroute-tidy")
    os.makedirs(cache, exist_ok=True)
    database = os.path.join(build_abs, "tidy")
    os.makedirs(database, exist_ok=True)
    pattern = re.compile(re.escape(root) + r"/(" + folders + r")/.*\.cc$")
    units, parts = join_unity(json.load(open(os.path.join(build, "compile_commands.json"))), database,
                              pattern)
    with open(os.path.join(database, "compile_commands.json"), "w") as f:
        json.dump([{k: u[k] for k in ("directory", "command", "file")} for u in units], f, indent=1)

    deps = {}
    text = subprocess.run(["ninja", "-C", build, "-t", "deps"], capture_output=True, text=True,
                          check=True).stdout
    current = None
    for line in text.splitlines():
        if line and not line.startswith(" "):
            current = line.split(":")[0]
            deps[current] = []
        elif line.strip() and current is not None:
            deps[current].append(line.strip())

    digests = {}

    def local(text):  # the clone's paths, so that any clone of the same tree agrees
        return text.replace(build_abs, "<build>").replace(root, "<root>")

    def file_digest(path):
        if path not in digests:
            try:
                with open(path, "rb") as f:
                    content = f.read()
                if UNITY_SOURCE.search(path) or path in parts:
                    # Unity units and joined files name their files by absolute
                    # path: the clone's, which must not change the digest.
                    content = local(content.decode()).encode()
                digests[path] = hashlib.sha256(content).hexdigest()
            except OSError:
                digests[path] = "missing"
        return digests[path]

    version = subprocess.run(["clang-tidy", "--version"], capture_output=True, text=True).stdout
    config = open(".clang-tidy").read()
    todo, skipped = [], 0
    for unit in units:
        h = hashlib.sha256()
        h.update((version + config + local(unit["command"])).encode())
        unit_deps = deps.get(unit["object"])
        if not unit_deps:  # not built yet: no record of its headers, so always run it
            todo.append((unit, None))
            continue
        h.update(local(unit["file"]).encode() + file_digest(unit["file"]).encode())
        for dep in unit_deps:
            path = dep if os.path.isabs(dep) else os.path.join(build_abs, dep)
            h.update(local(os.path.normpath(path)).encode() + file_digest(path).encode())
        key = h.hexdigest()
        if os.path.exists(os.path.join(cache, key)):
            skipped += 1
        else:
            todo.append((unit, key))
    # The longest first, so that the last unit to finish is a short one.
    todo.sort(key=lambda item: -sum(os.path.getsize(f) for f in item[0]["sources"]))

    def run(item):
        unit, key = item
        done = subprocess.run(["clang-tidy", "--quiet", "-p", database, unit["file"]],
                              capture_output=True, text=True)
        findings = [map_back(l, parts) for l in (done.stdout + done.stderr).splitlines()
                    if re.search(r"(warning|error): ", l)]
        if done.returncode == 0 and not findings:
            if key:
                open(os.path.join(cache, key), "w").close()
            return []
        return findings or [f"{unit['file']}: clang-tidy exited {done.returncode}"]

    failures = set()
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        for findings in pool.map(run, todo):
            failures.update(findings)
    files = sum(len(unit["sources"]) for unit, _ in todo)
    print(f"check-tidy: {len(todo)} units ({files} files) checked, {skipped} unchanged since they last passed")
    if failures:
        sys.stderr.write("\n".join(sorted(failures)) + "\n")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
