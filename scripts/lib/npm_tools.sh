# Sourced by scripts/check-manifests, scripts/check-dashboard and the status
# page test (test/integration/status_page_test.cc):
# `npm_tools NAME` prints the node_modules folder holding the npm tools that
# scripts/npm/package-lock.json pins (kubernetes-models and its prometheus-operator, Istio and Gateway API models,
# yaml, ajv, newman, @grafana/schema,
# typescript, puppeteer-core). They are installed once per lockfile into a cache outside the
# clone (${XDG_CACHE_HOME:-~/.cache}/carbonroute-npm/<lockfile hash>) with
# `npm ci`, saying so; later runs, and other clones, reuse them without any
# download. A lock file keeps two runs at once from installing over each other.
# node and npm come from scripts/deps (Debian's nodejs and npm when missing).
npm_tools() {
  local who=$1 root lock hash cache dir
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
  lock="$root/scripts/npm/package-lock.json"
  if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
    echo "$who: node and npm are missing: run scripts/deps (it installs Debian's nodejs and npm)" >&2
    return 1
  fi
  hash=$(sha256sum "$lock" "$root/scripts/npm/package.json" | sha256sum | cut -c1-16)
  cache="${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/carbonroute-npm"
  dir="$cache/$hash"
  mkdir -p "$cache"
  (
    flock 9
    if [ ! -e "$dir/.complete" ]; then
      echo "$who: installing the npm tools pinned by scripts/npm/package-lock.json" \
           "(kubernetes-models, @kubernetes-models/prometheus-operator, @kubernetes-models/istio, @kubernetes-models/gateway-api, yaml, ajv, @grafana/schema, typescript, puppeteer-core, newman) into $dir, once" >&2
      rm -rf "$dir" && mkdir -p "$dir"
      cp "$root/scripts/npm/package.json" "$lock" "$dir/"
      (cd "$dir" && npm ci --no-audit --no-fund --silent >/dev/null 2>&1) ||
        { echo "$who: npm ci failed (is the npm registry reachable?)" >&2; rm -rf "$dir"; exit 1; }
      touch "$dir/.complete"
    fi
  ) 9>"$cache/.lock" || return 1
  echo "$dir/node_modules"
}
