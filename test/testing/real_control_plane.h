// File: test/testing/real_control_plane.h
//
// The real Kubernetes control plane for the `cluster` test tier: etcd,
// kube-apiserver, kube-controller-manager, the default kube-scheduler and
// kwok (the kubelet stand-in for test/cluster/nodes.yaml's three Nodes),
// built from their Go modules and started by `scripts/cluster up` in a fresh
// temporary folder (docs/testing.md "The real control plane"). The shipped
// manifests (`kubectl apply -k deploy/kubernetes --server-side`, with the
// built kubectl) are applied, so each carbonroute component runs with a token
// of its own shipped ServiceAccount (the TokenRequest API), never as an
// administrator.
//
// One control plane per test binary (SharedControlPlane), each test in a
// namespace of its own (NewNamespace). The control plane stops when the
// binary exits, or when it crashes (scripts/cluster up --owner).
//
// Errors: the helpers return absl::Status (kInternal naming the command and
// its output) when a kubectl call fails; Start() aborts the binary with the
// script's output when the control plane does not come up.
// Thread safety: none; tests call it from their main thread.
#ifndef CARBONROUTE_TEST_TESTING_REAL_CONTROL_PLANE_H_
#define CARBONROUTE_TEST_TESTING_REAL_CONTROL_PLANE_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "test/testing/subprocess.h"

namespace carbonroute::testing {

// One line of the API server's audit log (level Metadata, stage ResponseComplete).
struct AuditEvent {
  std::string user, verb, resource, subresource, namespace_name, name, api_group;
  std::vector<std::string> groups;
  int code = 0;         // responseStatus.code
  std::string message;  // responseStatus.message (of an error)
  // The request's body (requestObject, as JSON text) where the audit policy keeps it: the
  // status writes of carbonroute's CRDs; "" otherwise.
  std::string request_object;
};

class RealControlPlane {
 public:
  // scripts/cluster up in `dir` (which must not exist yet or be empty).
  explicit RealControlPlane(std::string dir);
  ~RealControlPlane();  // scripts/cluster down; the folder removed
  RealControlPlane(const RealControlPlane&) = delete;
  RealControlPlane& operator=(const RealControlPlane&) = delete;

  const std::string& dir() const { return dir_; }
  std::string AdminKubeconfig() const { return dir_ + "/admin.kubeconfig"; }
  // The folder of kube-apiserver, kube-scheduler and kubectl.
  const std::string& KubernetesBin() const { return kubernetes_bin_; }
  // The cached folder of a pinned tool of test/cluster/versions ("karmada-crds",
  // "istio-crds", "gateway-api-crds", "knative-crds", "kwok"); "" when there is none.
  std::string ToolFolder(const std::string& tool) const;

  // kubectl `args` as the administrator; its stdout and stderr. kInternal on a non-zero exit.
  absl::StatusOr<std::string> Kubectl(const std::string& args) const;
  // helm `args` (the pinned Helm 4) as the administrator, its state under dir(); its stdout
  // and stderr. kInternal on a non-zero exit.
  absl::StatusOr<std::string> Helm(const std::string& args) const;
  // kubectl apply --server-side -f - of `yaml` (strict field validation, kubectl's default).
  absl::Status Apply(const std::string& yaml) const;
  // A kubeconfig file (written under dir()) whose user is a token of the ServiceAccount
  // `namespace_name`/`name`, from the TokenRequest API (kubectl create token), valid 2 h.
  absl::StatusOr<std::string> ServiceAccountKubeconfig(const std::string& namespace_name,
                                                       const std::string& name) const;
  // A namespace of its own for a test ("cr-" + a number), created.
  std::string NewNamespace();
  // Every ResponseComplete event of the audit log so far.
  std::vector<AuditEvent> Audit() const;
  // The username a ServiceAccount's token carries.
  static std::string ServiceAccountUser(const std::string& namespace_name, const std::string& name);

 private:
  // `binary` (a command line's start) with --kubeconfig the administrator's and `args`; its
  // stdout and stderr, kInternal naming `tool` on a non-zero exit.
  absl::StatusOr<std::string> AsAdministrator(const std::string& tool, const std::string& binary,
                                              const std::string& args) const;

  std::string dir_, kubernetes_bin_;
  std::vector<std::string> tool_folders_;  // scripts/cluster bin
  int namespaces_ = 0;
  mutable int applied_ = 0;  // files written by Apply
};

// The control plane of this test binary: started (and the shipped manifests applied) by the
// first call, stopped at exit.
RealControlPlane& SharedControlPlane();

// A kube-scheduler process of the built version (--secure-port=0), from a
// KubeSchedulerConfiguration `config_yaml` written to `dir`/`name`.yaml.
std::unique_ptr<Subprocess> StartKubeScheduler(const RealControlPlane& plane,
                                               const std::string& dir, const std::string& name,
                                               const std::string& config_yaml);

}  // namespace carbonroute::testing

#endif  // CARBONROUTE_TEST_TESTING_REAL_CONTROL_PLANE_H_
