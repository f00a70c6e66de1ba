# Sourced by scripts/cluster: starts the real control plane built by
# control_plane_build.sh on loopback, the way controller-runtime's envtest and
# Kubernetes' hack/local-up-cluster.sh do, with its state, logs and
# credentials in one folder ($dir):
#   pki/        a test CA; the API server's serving certificate (127.0.0.1);
#               one client certificate per identity; the service-account keys
#   *.kubeconfig  admin (system:masters), kube-controller-manager,
#               kube-scheduler, kwok, and one per carbonroute component
#               (carbonroute:collector, :carbon, :serve, :hold, :karmada,
#               :route), each its own user, with no rights until RBAC grants them
#   audit.log   every request at Metadata level (JSON lines); carbonroute CRDs' status
#               writes at Request level (with the body)
#   cluster.env the API server's URL, the folder, the binaries' folders
#   pids        what `down` stops, in start order
# Every process runs in a session of its own with its output in logs/, so
# the caller's terminal and pipes are not held.

# free_ports N: N TCP ports on 127.0.0.1 that were free a moment ago.
free_ports() {
  python3 - "$1" <<'PY'
import socket, sys
held = []
for _ in range(int(sys.argv[1])):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    held.append(s)
print(" ".join(str(s.getsockname()[1]) for s in held))
PY
}

# client_certificate NAME CN [O]: pki/NAME.{crt,key} signed by the test CA.
client_certificate() {
  local name=$1 cn=$2 org=${3:-} subject
  subject="/CN=$cn"
  [[ -n $org ]] && subject="/O=$org$subject"
  openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj "$subject" \
    -keyout "$dir/pki/$name.key" -out "$dir/pki/$name.csr" 2>/dev/null
  openssl x509 -req -in "$dir/pki/$name.csr" -CA "$dir/pki/ca.crt" -CAkey "$dir/pki/ca.key" \
    -CAcreateserial -days 2 -out "$dir/pki/$name.crt" \
    -extfile <(printf 'extendedKeyUsage=clientAuth\n') 2>/dev/null
}

make_pki() {
  mkdir -p "$dir/pki"
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
    -subj "/CN=carbonroute-test-ca" -keyout "$dir/pki/ca.key" -out "$dir/pki/ca.crt" 2>/dev/null
  openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj "/CN=kube-apiserver" \
    -keyout "$dir/pki/apiserver.key" -out "$dir/pki/apiserver.csr" 2>/dev/null
  openssl x509 -req -in "$dir/pki/apiserver.csr" -CA "$dir/pki/ca.crt" -CAkey "$dir/pki/ca.key" \
    -CAcreateserial -days 2 -out "$dir/pki/apiserver.crt" -extfile <(printf '%s\n' \
      'subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc' \
      'extendedKeyUsage=serverAuth') 2>/dev/null
  openssl genrsa -out "$dir/pki/sa.key" 2048 2>/dev/null
  openssl rsa -in "$dir/pki/sa.key" -pubout -out "$dir/pki/sa.pub" 2>/dev/null
  client_certificate admin carbonroute-admin system:masters
  client_certificate kube-controller-manager system:kube-controller-manager
  client_certificate kube-scheduler system:kube-scheduler
  client_certificate kwok kwok system:masters
  local component
  for component in "${carbonroute_components[@]}"; do
    client_certificate "carbonroute-$component" "carbonroute:$component"
  done
  rm -f "$dir"/pki/*.csr
}

# kubeconfig NAME: $dir/NAME.kubeconfig for pki/NAME's certificate.
kubeconfig() {
  local name=$1
  cat >"$dir/$name.kubeconfig" <<YAML
apiVersion: v1
kind: Config
clusters:
  - name: carbonroute-test
    cluster: {server: "$api_url", certificate-authority: pki/ca.crt}
users:
  - name: $name
    user: {client-certificate: pki/$name.crt, client-key: pki/$name.key}
contexts:
  - name: $name
    context: {cluster: carbonroute-test, user: $name}
current-context: $name
YAML
}

# start NAME COMMAND...: runs it in its own session, output in logs/NAME.log.
start() {
  local name=$1
  shift
  setsid "$@" >"$dir/logs/$name.log" 2>&1 </dev/null &
  echo "$! $name" >>"$dir/pids"
}

# wait_until SECONDS WHAT COMMAND...: runs COMMAND every 0.2 s until it succeeds.
wait_until() {
  local deadline=$(( $(date +%s) + $1 )) what=$2
  shift 2
  until "$@" >/dev/null 2>&1; do
    if (( $(date +%s) >= deadline )); then
      echo "scripts/cluster: $what did not happen within ${deadline_seconds:-$1} s; logs in $dir/logs" >&2
      return 1
    fi
    sleep 0.2
  done
}

control_plane_up() {
  local k8s_bin=$1 etcd_bin=$2 kwok_bin=$3 stages_dir=$4
  mkdir -p "$dir/logs" "$dir/etcd"
  : >"$dir/pids"
  local etcd_port peer_port api_port
  read -r etcd_port peer_port api_port < <(free_ports 3)
  api_url=https://127.0.0.1:$api_port
  make_pki
  local name
  for name in admin kube-controller-manager kube-scheduler kwok "${carbonroute_components[@]/#/carbonroute-}"; do
    kubeconfig "$name"
  done
  # Every request, at Metadata level: who, what verb, which object, which answer; the
  # status writes of carbonroute's CRDs with their bodies too (read back unpruned?).
  cat >"$dir/audit-policy.yaml" <<'YAML'
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
  - level: Request
    verbs: [patch, update]
    resources:
      - {group: carbonroute.io, resources: ["*/status"]}
      - {group: carbonaware.rossf7.github.io, resources: ["*/status"]}
  - level: Metadata
YAML
  start etcd "$etcd_bin/etcd" --name=default --data-dir="$dir/etcd" \
    --listen-client-urls="http://127.0.0.1:$etcd_port" --advertise-client-urls="http://127.0.0.1:$etcd_port" \
    --listen-peer-urls="http://127.0.0.1:$peer_port" --initial-advertise-peer-urls="http://127.0.0.1:$peer_port" \
    --initial-cluster="default=http://127.0.0.1:$peer_port" --unsafe-no-fsync=true --log-level=warn \
    ${CARBONROUTE_ETCD_FLAGS:-}
  start kube-apiserver "$k8s_bin/kube-apiserver" \
    --etcd-servers="http://127.0.0.1:$etcd_port" --bind-address=127.0.0.1 --advertise-address=127.0.0.1 \
    --secure-port="$api_port" --cert-dir="$dir/pki" \
    --tls-cert-file="$dir/pki/apiserver.crt" --tls-private-key-file="$dir/pki/apiserver.key" \
    --client-ca-file="$dir/pki/ca.crt" --authorization-mode=Node,RBAC \
    --service-cluster-ip-range=10.96.0.0/16 --service-account-issuer=https://kubernetes.default.svc \
    --service-account-key-file="$dir/pki/sa.pub" --service-account-signing-key-file="$dir/pki/sa.key" \
    --allow-privileged=true --enable-admission-plugins=NodeRestriction \
    --audit-policy-file="$dir/audit-policy.yaml" --audit-log-path="$dir/audit.log" \
    --audit-log-mode=blocking --profiling=false --v=1 ${CARBONROUTE_APISERVER_FLAGS:-}
  local admin=(--kubeconfig "$dir/admin.kubeconfig")
  wait_until 60 "the API server answering /readyz" "$k8s_bin/kubectl" "${admin[@]}" get --raw /readyz
  start kube-controller-manager "$k8s_bin/kube-controller-manager" \
    --kubeconfig="$dir/kube-controller-manager.kubeconfig" \
    --authentication-kubeconfig="$dir/kube-controller-manager.kubeconfig" \
    --authorization-kubeconfig="$dir/kube-controller-manager.kubeconfig" \
    --service-account-private-key-file="$dir/pki/sa.key" --root-ca-file="$dir/pki/ca.crt" \
    --use-service-account-credentials=true --controllers='*' --leader-elect=false \
    --secure-port=0 --kube-api-qps=200 --kube-api-burst=400 --v=1
  cat >"$dir/kube-scheduler.yaml" <<YAML
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
clientConnection: {kubeconfig: "$dir/kube-scheduler.kubeconfig", qps: 200, burst: 400}
leaderElection: {leaderElect: false}
YAML
  start kube-scheduler "$k8s_bin/kube-scheduler" --config="$dir/kube-scheduler.yaml" --secure-port=0 --v=1
  start kwok "$kwok_bin/kwok" --kubeconfig="$dir/kwok.kubeconfig" \
    --manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake \
    --cidr=10.244.0.0/16 --node-ip=10.0.0.1 --node-lease-duration-seconds=40 \
    --config="${CARBONROUTE_KWOK_STAGES:-$stages_dir/stages.yaml}"
  # A namespace is usable once the controller manager made its default ServiceAccount.
  wait_until 60 "the default ServiceAccount" "$k8s_bin/kubectl" "${admin[@]}" get serviceaccount default
  {
    echo "CLUSTER_DIR=$dir"
    echo "API_SERVER=$api_url"
    echo "KUBECONFIG=$dir/admin.kubeconfig"
    echo "KUBERNETES_BIN=$k8s_bin"
    echo "AUDIT_LOG=$dir/audit.log"
  } >"$dir/cluster.env"
}

# running PID: alive and not a zombie (a process whose parent is gone may wait unreaped).
running() { [[ -r /proc/$1/stat ]] && [[ $(cut -d' ' -f3 "/proc/$1/stat" 2>/dev/null) != Z ]]; }

control_plane_down() {
  [[ -f $dir/pids ]] || return 0
  local pid name pids=()
  while read -r pid name; do pids=("$pid" "${pids[@]}"); done <"$dir/pids"
  # Nodes' and Pods' players first, the store last.
  local p
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  for _ in $(seq 50); do
    local alive=0
    for p in "${pids[@]}"; do running "$p" && alive=1; done
    (( alive )) || break
    sleep 0.1
  done
  for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null || true; done
  rm -f "$dir/pids"
}
