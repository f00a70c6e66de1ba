#!/usr/bin/env bash
# The npm tools of the manifest and dashboard checks are installed once per
# lockfile and then reused: a second run neither installs nor calls npm.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$root/scripts/check-manifests" >"$work/first.log" 2>&1 ||
  { cat "$work/first.log"; echo "FAIL: the first run failed"; exit 1; }
# An npm that fails whenever it is called: the second run must not call it.
mkdir "$work/bin"
printf '#!/bin/sh\necho "npm called: $*" >&2\nexit 1\n' >"$work/bin/npm"
chmod +x "$work/bin/npm"
PATH="$work/bin:$PATH" "$root/scripts/check-manifests" >"$work/second.log" 2>&1 ||
  { cat "$work/second.log"; echo "FAIL: the second run needed npm"; exit 1; }
if grep -q "installing\|npm called" "$work/second.log"; then
  cat "$work/second.log"; echo "FAIL: the second run installed again"; exit 1
fi
PATH="$work/bin:$PATH" "$root/scripts/check-dashboard" >"$work/dashboard.log" 2>&1 ||
  { cat "$work/dashboard.log"; echo "FAIL: check-dashboard needed npm"; exit 1; }
echo "npm tools cached: OK"
