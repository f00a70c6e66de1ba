#include "kube/kube_connection.h"

#include <filesystem>
#include <fstream>
#include <system_error>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "kube/kubeconfig.h"

namespace carbonroute::kube {
namespace {

std::string Env(const KubeEnvironment& environment, const char* name) {
  const char* value = environment.getenv ? environment.getenv(name) : nullptr;
  return value != nullptr ? value : "";
}

// kFailedPrecondition when a file a connection names cannot be read.
absl::Status CheckReadable(const std::string& path, absl::string_view what,
                           const std::string& origin) {
  if (path.empty()) return absl::OkStatus();
  std::ifstream file(path);
  if (file.good()) return absl::OkStatus();
  return absl::FailedPreconditionError(
      absl::StrCat("cannot read ", what, " ", path, " (from ", origin, ")"));
}

absl::StatusOr<KubeConnection> InCluster(const KubeEnvironment& environment,
                                         const std::string& host, const std::string& port) {
  KubeConnection connection;
  connection.server = absl::StrContains(host, ':')  // an IPv6 literal
                          ? absl::StrCat("https://[", host, "]:", port)
                          : absl::StrCat("https://", host, ":", port);
  connection.origin = "in-cluster";
  connection.token_file = absl::StrCat(environment.service_account_dir, "/token");
  connection.ca_file = absl::StrCat(environment.service_account_dir, "/ca.crt");
  std::ifstream namespace_file(absl::StrCat(environment.service_account_dir, "/namespace"));
  std::string namespace_name;
  if (namespace_file && std::getline(namespace_file, namespace_name)) {
    connection.namespace_name = std::string(absl::StripAsciiWhitespace(namespace_name));
  }
  return connection;
}

absl::StatusOr<KubeConnection> Choose(const KubeOptions& options,
                                      const KubeEnvironment& environment) {
  if (!options.api_url.empty()) {
    KubeConnection connection;
    connection.server = std::string(absl::StripSuffix(options.api_url, "/"));
    connection.origin = options.api_url_name;
    return connection;
  }
  if (!options.kubeconfig.empty()) {
    absl::StatusOr<Kubeconfig> config = LoadKubeconfig({options.kubeconfig}, false);
    if (!config.ok()) return config.status();
    return ConnectionFromKubeconfig(*config, options.context);
  }
  if (const std::string list = Env(environment, "KUBECONFIG"); !list.empty()) {
    const std::vector<std::string> files = absl::StrSplit(list, ':', absl::SkipEmpty());
    absl::StatusOr<Kubeconfig> config = LoadKubeconfig(files, true);
    if (!config.ok()) return config.status();
    return ConnectionFromKubeconfig(*config, options.context);
  }
  if (options.context.empty() && InPod(environment)) {
    return InCluster(environment, Env(environment, "KUBERNETES_SERVICE_HOST"),
                     Env(environment, "KUBERNETES_SERVICE_PORT"));
  }
  const std::string home = Env(environment, "HOME");
  const std::string fallback = home.empty() ? "" : absl::StrCat(home, "/.kube/config");
  std::error_code error;
  if (!fallback.empty() && std::filesystem::exists(fallback, error)) {
    absl::StatusOr<Kubeconfig> config = LoadKubeconfig({fallback}, false);
    if (!config.ok()) return config.status();
    return ConnectionFromKubeconfig(*config, options.context);
  }
  return absl::FailedPreconditionError(absl::StrCat(
      "no Kubernetes API to talk to: no ", options.api_url_name, ", no ", options.kubeconfig_name,
      ", $KUBECONFIG is not set, ",
      options.context.empty() ? "not in a Pod (KUBERNETES_SERVICE_HOST and _PORT are not set), "
                              : "",
      fallback.empty() ? "and $HOME is not set" : absl::StrCat("and there is no ", fallback), "; ",
      options.how_to_configure));
}

}  // namespace

bool InPod(const KubeEnvironment& environment) {
  return !Env(environment, "KUBERNETES_SERVICE_HOST").empty() &&
         !Env(environment, "KUBERNETES_SERVICE_PORT").empty();
}

std::string KubeConnection::Describe() const { return absl::StrCat(server, " (", origin, ")"); }

absl::StatusOr<KubeConnection> ResolveKubeConnection(const KubeOptions& options,
                                                     const KubeEnvironment& environment) {
  absl::StatusOr<KubeConnection> connection = Choose(options, environment);
  if (!connection.ok()) return connection.status();
  // Explicit files override what a kubeconfig or the Pod says.
  if (!options.token_file.empty()) {
    connection->token.clear();
    connection->token_file = options.token_file;
  }
  if (!options.ca_file.empty()) {
    connection->ca_pem.clear();
    connection->ca_file = options.ca_file;
  }
  if (!absl::StartsWith(connection->server, "http://") &&
      !absl::StartsWith(connection->server, "https://")) {
    return absl::InvalidArgumentError(absl::StrCat("the Kubernetes API server \"",
                                                   connection->server, "\" (", connection->origin,
                                                   ") is not an http:// or https:// URL"));
  }
  if (connection->origin != "in-cluster") {  // in a Pod the files appear with the mount
    for (const auto& [path, what] :
         {std::pair{connection->ca_file, "the API server's CA file"},
          std::pair{connection->client_cert_file, "the client certificate file"},
          std::pair{connection->client_key_file, "the client key file"},
          std::pair{connection->token_file, "the token file"}}) {
      if (absl::Status readable = CheckReadable(path, what, connection->origin); !readable.ok()) {
        return readable;
      }
    }
  }
  return connection;
}

}  // namespace carbonroute::kube
