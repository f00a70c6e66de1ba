#include "test/testing/real_control_plane.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "gtest/gtest.h"
#include "test/testing/build_paths.h"
#include "test/testing/shell.h"

namespace carbonroute::testing {
namespace {

// `text` quoted for /bin/sh.
std::string Quoted(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) {
    if (c == '\'') {
      quoted += "'\\''";
    } else {
      quoted += c;
    }
  }
  return quoted + "'";
}

std::string Script() { return absl::StrCat(CARBONROUTE_SOURCE_DIR, "/scripts/cluster"); }

}  // namespace

RealControlPlane::RealControlPlane(std::string dir) : dir_(std::move(dir)) {
  const ShellRun up =
      Shell(absl::StrCat(Script(), " up ", Quoted(dir_), " --owner ", getpid(), " --apply ",
                         CARBONROUTE_SOURCE_DIR, "/test/cluster/nodes.yaml 2>&1"));
  if (up.exit_code != 0) {
    std::fprintf(stderr, "scripts/cluster up failed (%d):\n%s\n", up.exit_code, up.output.c_str());
    std::abort();
  }
  std::fprintf(stderr, "%s", up.output.c_str());
  const ShellRun bin = Shell(Script() + " bin");
  for (absl::string_view line : absl::StrSplit(bin.output, '\n', absl::SkipEmpty())) {
    tool_folders_.emplace_back(line);
  }
  kubernetes_bin_ = ToolFolder("kubernetes");
}

std::string RealControlPlane::ToolFolder(const std::string& tool) const {
  const std::string part = absl::StrCat("/", tool, "-v");
  for (const std::string& folder : tool_folders_) {
    if (absl::StrContains(folder, part)) return folder;
  }
  return "";
}

RealControlPlane::~RealControlPlane() {
  Shell(absl::StrCat(Script(), " down ", Quoted(dir_)));
  // CARBONROUTE_KEEP_CLUSTER=1 keeps the logs and the audit log for a look after a failure.
  if (std::getenv("CARBONROUTE_KEEP_CLUSTER") == nullptr) {
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  } else {
    std::fprintf(stderr, "the control plane's folder is kept: %s\n", dir_.c_str());
  }
}

absl::StatusOr<std::string> RealControlPlane::AsAdministrator(const std::string& tool,
                                                              const std::string& binary,
                                                              const std::string& args) const {
  const ShellRun run =
      Shell(absl::StrCat(binary, " --kubeconfig ", Quoted(AdminKubeconfig()), " ", args, " 2>&1"));
  if (run.exit_code != 0) {
    return absl::InternalError(
        absl::StrCat(tool, " ", args, " exited ", run.exit_code, ": ", run.output));
  }
  return run.output;
}

absl::StatusOr<std::string> RealControlPlane::Kubectl(const std::string& args) const {
  return AsAdministrator("kubectl", kubernetes_bin_ + "/kubectl", args);
}

absl::StatusOr<std::string> RealControlPlane::Helm(const std::string& args) const {
  const std::string home = dir_ + "/helm";
  return AsAdministrator(
      "helm",
      absl::StrCat("HELM_CACHE_HOME=", Quoted(home + "/cache"),
                   " HELM_CONFIG_HOME=", Quoted(home + "/config"),
                   " HELM_DATA_HOME=", Quoted(home + "/data"), " ", ToolFolder("helm"), "/helm"),
      args);
}

absl::Status RealControlPlane::Apply(const std::string& yaml) const {
  const std::string file = absl::StrCat(dir_, "/apply-", ++applied_, ".yaml");
  std::ofstream(file) << yaml;
  return Kubectl("apply --server-side --field-manager=carbonroute-test -f " + Quoted(file))
      .status();
}

absl::StatusOr<std::string> RealControlPlane::ServiceAccountKubeconfig(
    const std::string& namespace_name, const std::string& name) const {
  absl::StatusOr<std::string> token =
      Kubectl(absl::StrCat("create token ", name, " -n ", namespace_name, " --duration=2h"));
  if (!token.ok()) return token.status();
  const std::string token_file = absl::StrCat(dir_, "/", namespace_name, ".", name, ".token");
  std::ofstream(token_file) << absl::StripAsciiWhitespace(*token);
  absl::StatusOr<std::string> server =
      Kubectl("config view --minify -o jsonpath='{.clusters[0].cluster.server}'");
  if (!server.ok()) return server.status();
  const std::string file = absl::StrCat(dir_, "/", namespace_name, ".", name, ".kubeconfig");
  std::ofstream(file) << "apiVersion: v1\nkind: Config\nclusters:\n"
                      << "  - name: test\n    cluster: {server: \"" << *server
                      << "\", certificate-authority: " << dir_ << "/pki/ca.crt}\n"
                      << "users:\n  - name: " << name << "\n    user: {tokenFile: " << token_file
                      << "}\ncontexts:\n  - name: " << name
                      << "\n    context: {cluster: test, user: " << name
                      << "}\ncurrent-context: " << name << "\n";
  return file;
}

std::string RealControlPlane::NewNamespace() {
  std::string name = absl::StrCat("cr-", ++namespaces_);
  absl::StatusOr<std::string> created = Kubectl("create namespace " + name);
  if (!created.ok()) ADD_FAILURE() << created.status();
  // Pods of a new namespace are refused until the controller manager made its default
  // ServiceAccount (the ServiceAccount admission plugin).
  Kubectl(absl::StrCat("wait --for=jsonpath='{.metadata.name}'=default serviceaccount/default -n ",
                       name, " --timeout=30s"))
      .IgnoreError();
  return name;
}

std::string RealControlPlane::ServiceAccountUser(const std::string& namespace_name,
                                                 const std::string& name) {
  return absl::StrCat("system:serviceaccount:", namespace_name, ":", name);
}

std::vector<AuditEvent> RealControlPlane::Audit() const {
  std::vector<AuditEvent> events;
  std::ifstream in(dir_ + "/audit.log");
  std::string line;
  while (std::getline(in, line)) {
    const nlohmann::json event = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!event.is_object() || event.value("stage", "") != "ResponseComplete") continue;
    AuditEvent e;
    e.user = event["user"].value("username", "");
    for (const auto& group : event["user"].value("groups", nlohmann::json::array())) {
      e.groups.push_back(group.get<std::string>());
    }
    e.verb = event.value("verb", "");
    if (event.contains("objectRef")) {
      const nlohmann::json& ref = event["objectRef"];
      e.resource = ref.value("resource", "");
      e.subresource = ref.value("subresource", "");
      e.namespace_name = ref.value("namespace", "");
      e.name = ref.value("name", "");
      e.api_group = ref.value("apiGroup", "");
    }
    if (event.contains("responseStatus")) {
      e.code = event["responseStatus"].value("code", 0);
      e.message = event["responseStatus"].value("message", "");
    }
    if (event.contains("requestObject")) e.request_object = event["requestObject"].dump();
    events.push_back(std::move(e));
  }
  return events;
}

namespace {

RealControlPlane* shared_plane = nullptr;

// A shipped ServiceAccount of carbonroute: in namespace carbonroute, or named carbonroute-*
// elsewhere (carbonroute-karmada in the Karmada API server's karmada-system).
bool IsCarbonrouteServiceAccount(const std::string& user) {
  const std::vector<std::string> parts = absl::StrSplit(user, ':');
  return parts.size() == 4 && parts[0] == "system" && parts[1] == "serviceaccount" &&
         (parts[2] == "carbonroute" || absl::StartsWith(parts[3], "carbonroute-"));
}

// Over the whole of a cluster test binary, no request of a carbonroute component's
// shipped ServiceAccount (namespace carbonroute) was refused by RBAC.
class NoCarbonrouteRequestRefused : public ::testing::Environment {
 public:
  void TearDown() override {
    if (shared_plane == nullptr) return;
    for (const AuditEvent& event : shared_plane->Audit()) {
      if (event.code != 403 || !IsCarbonrouteServiceAccount(event.user)) continue;
      // A namespace a finished test deleted refuses new objects (Events, bindings) with a 403
      // that is not RBAC's: NamespaceLifecycle admission.
      if (absl::StrContains(event.message, "because it is being terminated")) continue;
      ADD_FAILURE() << event.user << " was refused " << event.verb << " " << event.api_group << "/"
                    << event.resource << (event.subresource.empty() ? "" : "/" + event.subresource)
                    << " " << event.namespace_name << "/" << event.name << ": " << event.message;
    }
  }
};
[[maybe_unused]] ::testing::Environment* const no_refused_request =
    ::testing::AddGlobalTestEnvironment(new NoCarbonrouteRequestRefused);

}  // namespace

RealControlPlane& SharedControlPlane() {
  static RealControlPlane* plane = [] {
    std::string pattern = ::testing::TempDir() + "/carbonroute-cluster-XXXXXX";
    std::vector<char> buffer(pattern.begin(), pattern.end());
    buffer.push_back('\0');
    if (mkdtemp(buffer.data()) == nullptr) std::abort();
    static RealControlPlane shared(buffer.data());
    // The shipped manifests, as a cluster administrator applies them.
    absl::StatusOr<std::string> applied = shared.Kubectl(
        absl::StrCat("apply --server-side -k ", CARBONROUTE_SOURCE_DIR, "/deploy/kubernetes"));
    if (!applied.ok()) {
      std::fprintf(stderr, "the shipped manifests: %s\n", applied.status().ToString().c_str());
      std::abort();
    }
    shared_plane = &shared;
    return &shared;
  }();
  return *plane;
}

std::unique_ptr<Subprocess> StartKubeScheduler(const RealControlPlane& plane,
                                               const std::string& dir, const std::string& name,
                                               const std::string& config_yaml) {
  const std::string config = absl::StrCat(dir, "/", name, ".yaml");
  std::ofstream(config) << config_yaml;
  return std::make_unique<Subprocess>(
      std::vector<std::string>{plane.KubernetesBin() + "/kube-scheduler", "--config=" + config,
                               "--secure-port=0", "--v=2"},
      absl::StrCat(dir, "/", name, ".log"));
}

}  // namespace carbonroute::testing
