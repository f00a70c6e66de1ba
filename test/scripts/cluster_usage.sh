#!/usr/bin/env bash
# scripts/cluster as a careless user calls it: each mistake exits 2 with a line
# that names it, before anything is built or started.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
expect() {  # EXPECTED_SUBSTRING ARGS...: exit 2, and the output holds the substring
  local want=$1 status=0
  shift
  "$root/scripts/cluster" "$@" >"$work/out" 2>&1 || status=$?
  if [[ $status -ne 2 ]] || ! grep -qF -- "$want" "$work/out"; then
    cat "$work/out"
    echo "FAIL: scripts/cluster $*: exit $status (want 2) and \"$want\""
    exit 1
  fi
}
expect "usage" ""
expect "scripts/cluster build" frob
expect "scripts/cluster up DIR" up
mkdir "$work/used" && touch "$work/used/etcd"
expect "$work/used is not empty" up "$work/used"
expect "unknown argument '--aply'" up "$work/fresh" --aply nodes.yaml
expect "usage" run kubectl get nodes
echo "scripts/cluster: every mistake exits 2 and says so"
