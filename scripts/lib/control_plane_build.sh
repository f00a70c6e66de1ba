# Sourced by scripts/cluster: builds the real control plane's binaries from
# their Go modules (test/cluster/versions) into a cache outside the tree, one
# folder per tool and version, rebuilt only when a version changes:
#   $cache/kubernetes-VERSION/bin/{kube-apiserver,kube-controller-manager,kube-scheduler,kubectl}
#   $cache/etcd-VERSION/bin/etcd   $cache/kwok-VERSION/bin/kwok   $cache/helm-VERSION/bin/helm
# Each tool has a wrapper module of its own, so their k8s.io/* versions never
# merge. A folder counts as built only once its bin/.complete exists.

control_plane_cache() {
  echo "${CARBONROUTE_CLUSTER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/carbonroute/control-plane}"
}

# wrapper_module DIR MODULE VERSION [TOOL_PACKAGE...]: a go.mod requiring
# MODULE@VERSION with a `tool` line per package, tidied.
wrapper_module() {
  local dir=$1 module=$2 version=$3
  shift 3
  mkdir -p "$dir"
  {
    echo "module carbonroute.test/control-plane/$(basename "$dir")"
    echo
    echo "go 1.26.0"
    echo
    echo "require $module $version"
    local tool
    for tool in "$@"; do echo "tool $tool"; done
  } >"$dir/go.mod"
}

# Kubernetes' go.mod replaces each staging module (k8s.io/api, …) with a
# folder the module zip leaves out; the wrapper replaces each with its
# published v0.MINOR.PATCH instead, the list taken from the tag's own go.mod.
build_kubernetes() {
  local version=$1 out=$2
  local mod_dir=$out/module staged
  local mod_file
  mod_file=$(go mod download -json "k8s.io/kubernetes@$version" | sed -n 's/.*"GoMod": "\(.*\)",*/\1/p')
  [[ -f $mod_file ]] || { echo "scripts/cluster: no go.mod for k8s.io/kubernetes@$version" >&2; return 1; }
  local staging_version=v0.${version#v1.}
  local tools=(k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager
               k8s.io/kubernetes/cmd/kube-scheduler k8s.io/kubernetes/cmd/kubectl)
  wrapper_module "$mod_dir" k8s.io/kubernetes "$version" "${tools[@]}"
  staged=$(sed -n 's#^\s*\(k8s\.io/[a-z0-9-]*\) => ./staging/.*#\1#p' "$mod_file")
  {
    echo
    local m
    for m in $staged; do echo "replace $m => $m $staging_version"; done
    grep '^godebug ' "$mod_file" || true
  } >>"$mod_dir/go.mod"
  (cd "$mod_dir" && go mod tidy)
  local minor=${version#v1.}
  minor=${minor%%.*}
  local ldflags="-s -w" key val
  for key in gitVersion:$version gitMajor:1 gitMinor:$minor gitTreeState:clean \
             buildDate:1970-01-01T00:00:00Z; do
    val=${key#*:}
    key=${key%%:*}
    ldflags+=" -X k8s.io/component-base/version.$key=$val -X k8s.io/client-go/pkg/version.$key=$val"
  done
  (cd "$mod_dir" && CGO_ENABLED=0 go build -trimpath -ldflags "$ldflags" -o "$out/bin/" "${tools[@]}")
}

build_etcd() {
  local version=$1 out=$2
  wrapper_module "$out/module" go.etcd.io/etcd/server/v3 "$version" go.etcd.io/etcd/server/v3
  (cd "$out/module" && go mod tidy &&
    CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$out/bin/etcd" go.etcd.io/etcd/server/v3)
}

build_kwok() {
  local version=$1 out=$2
  wrapper_module "$out/module" sigs.k8s.io/kwok "$version" sigs.k8s.io/kwok/cmd/kwok
  (cd "$out/module" && go mod tidy &&
    CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X sigs.k8s.io/kwok/pkg/consts.Version=$version" \
      -o "$out/bin/kwok" sigs.k8s.io/kwok/cmd/kwok)
  # kwok ships no behaviour of its own: the Stages come from the module it was
  # built from. Nodes: Ready at once, kept Ready by their Leases; Pods: bound
  # ones Running and Ready at once, a Job's Succeeded after the delay its
  # annotation pod-complete.stage.kwok.x-k8s.io/delay sets (jitter-delay: the
  # upper bound; 1 to 5 s without them), deleted ones gone.
  local stages
  stages=$(cd "$out/module" && go list -m -f '{{.Dir}}' sigs.k8s.io/kwok)/kustomize/stage
  local file
  for file in node/fast/node-initialize.yaml node/heartbeat-with-lease/node-heartbeat-with-lease.yaml \
              pod/fast/pod-ready.yaml pod/general/pod-complete.yaml pod/fast/pod-delete.yaml; do
    echo "---"
    cat "$stages/$file"
  done >"$out/bin/stages.yaml"
}

build_helm() {
  local version=$1 out=$2
  local major=${version%%.*}
  wrapper_module "$out/module" "helm.sh/helm/$major" "$version" "helm.sh/helm/$major/cmd/helm"
  (cd "$out/module" && go mod tidy &&
    CGO_ENABLED=0 go build -trimpath \
      -ldflags "-s -w -X helm.sh/helm/$major/internal/version.version=$version" \
      -o "$out/bin/helm" "helm.sh/helm/$major/cmd/helm")
}

# crds_from_module OUT MODULE VERSION FILE...: FILEs (paths in the module) copied
# into OUT/bin, from the module as `go mod download` fetches it (nothing is built).
crds_from_module() {
  local out=$1 module=$2 version=$3 dir file
  shift 3
  dir=$(cd "$out" && go mod download -json "$module@$version" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')
  [[ -n $dir ]] || { echo "scripts/cluster: go mod download $module@$version gave no folder" >&2; return 1; }
  for file in "$@"; do cp "$dir/$file" "$out/bin/"; done
  chmod u+w "$out"/bin/*.yaml
}

build_karmada-crds() {
  local base=charts/karmada/_crds/bases/policy
  crds_from_module "$2" github.com/karmada-io/karmada "$1" \
    "$base/policy.karmada.io_propagationpolicies.yaml" \
    "$base/policy.karmada.io_clusterpropagationpolicies.yaml"
}

build_istio-crds() {
  crds_from_module "$2" istio.io/api "$1" kubernetes/customresourcedefinitions.gen.yaml
}

build_gateway-api-crds() {
  crds_from_module "$2" sigs.k8s.io/gateway-api "$1" \
    config/crd/standard/gateway.networking.k8s.io_httproutes.yaml \
    config/crd/standard/gateway.networking.k8s.io_gateways.yaml \
    config/crd/standard/gateway.networking.k8s.io_gatewayclasses.yaml
}

build_knative-crds() {
  crds_from_module "$2" knative.dev/serving "$1" config/core/300-resources/service.yaml
}

# build_tool NAME VERSION: builds unless $cache/NAME-VERSION/bin/.complete exists.
build_tool() {
  local name=$1 version=$2 out start
  out=$(control_plane_cache)/$name-$version
  [[ -f $out/bin/.complete ]] && return 0
  start=$(date +%s)
  echo "scripts/cluster: building $name $version from its Go module into $out"
  rm -rf "$out"
  mkdir -p "$out/bin"
  "build_$name" "$version" "$out"
  touch "$out/bin/.complete"
  echo "scripts/cluster: $name $version built in $(( $(date +%s) - start )) s"
}
