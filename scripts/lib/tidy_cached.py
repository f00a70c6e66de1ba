#!/usr/bin/env python3
"""Runs clang-tidy over the project's translation units, skipping those whose
result is already known: a unit that passed is remembered by a digest of
clang-tidy's version, .clang-tidy, its compile command and the contents of
every file it includes (from the build's own dependency records, `ninja -t
deps`). The record lives outside the clone (~/.cache/carbonroute-tidy, or
$CARBONROUTE_TIDY_CACHE), so a fresh clone of an unchanged tree skips every
unit. Only passes are remembered: a finding is reported again on every run.

A unity build (CMake's Unity/unity_N_cxx.cxx, scripts/check-sanitizers
address builds so) is checked file by file all the same: each .cc a unity
unit includes becomes a unit of its own, with the unity unit's compile
command and, for the digest, the unity unit's recorded headers (a superset of
the file's). The expanded compile database is written to BUILD_DIR/tidy/.
A file compiled alone that misses an include fails there, as a compile error.

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


def expand_unity(units, objects):
    """Each .cc of a unity unit as a unit of its own (see above); others as they
    are. `objects` receives each expanded file's unity object (whose recorded
    headers stand for the file's)."""
    expanded = []
    for unit in units:
        source = unit["file"]
        if not UNITY_SOURCE.search(source):
            expanded.append(unit)
            continue
        output = re.search(r" -o (\S+)", unit["command"]).group(1)
        with open(source) as f:
            included = re.findall(r'^#include "(/[^"]+\.cc)"$', f.read(), re.MULTILINE)
        for path in included:
            command = unit["command"].replace(" -c " + source, " -c " + path)
            command = command.replace(" -o " + output, " -o " + output + "." + os.path.basename(path) + ".o")
            expanded.append({"directory": unit["directory"], "command": command, "file": path})
            objects[path] = output
    return expanded


def main():
    build, folders = sys.argv[1], sys.argv[2]
    root = os.getcwd()
    build_abs = os.path.abspath(build)
    cache = os.environ.get("CARBONROUTE_TIDY_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "carbonroute-tidy")
    os.makedirs(cache, exist_ok=True)
    objects = {}
    units = expand_unity(json.load(open(os.path.join(build, "compile_commands.json"))), objects)
    pattern = re.compile(re.escape(root) + r"/(" + folders + r")/.*\.cc$")
    units = [u for u in units if pattern.match(u["file"])]
    database = os.path.join(build, "tidy")
    os.makedirs(database, exist_ok=True)
    with open(os.path.join(database, "compile_commands.json"), "w") as f:
        json.dump(units, f, indent=1)

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
                if UNITY_SOURCE.search(path):
                    # A unity unit #includes its files by absolute path: the
                    # clone's, which must not change the digest.
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
        h.update((version + config + local(unit["command"] if "command" in unit
                                           else " ".join(unit["arguments"]))).encode())
        output = objects.get(unit["file"]) or (
            re.search(r" -o (\S+)", unit.get("command", "")) or [None, None])[1]
        unit_deps = deps.get(output) if output else None
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

    def run(item):
        unit, key = item
        done = subprocess.run(["clang-tidy", "--quiet", "-p", database, unit["file"]],
                              capture_output=True, text=True)
        findings = [l for l in (done.stdout + done.stderr).splitlines()
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
    print(f"check-tidy: {len(todo)} units checked, {skipped} unchanged since they last passed")
    if failures:
        sys.stderr.write("\n".join(sorted(failures)) + "\n")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
