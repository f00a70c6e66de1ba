#include "kube/kubeconfig.h"

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <system_error>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/data_files.h"
#include "base/status_macros.h"

namespace carbonroute::kube {
namespace {

absl::Status ShapeError(const std::string& file, absl::string_view field,
                        absl::string_view problem) {
  return absl::InvalidArgumentError(absl::StrCat("kubeconfig ", file, ": ", field, ": ", problem));
}

// A scalar member as text ("" when absent); an error when it is not a scalar.
absl::StatusOr<std::string> Scalar(const YAML::Node& holder, const char* key,
                                   const std::string& file, const std::string& field) {
  const YAML::Node value = holder[key];
  if (!value || value.IsNull()) return std::string();
  if (!value.IsScalar())
    return ShapeError(file, absl::StrCat(field, ".", key), "expected a string");
  return value.Scalar();
}

absl::StatusOr<bool> Flag(const YAML::Node& holder, const char* key, const std::string& file,
                          const std::string& field) {
  absl::StatusOr<std::string> text = Scalar(holder, key, file, field);
  if (!text.ok()) return text.status();
  if (text->empty() || *text == "false") return false;
  if (*text == "true") return true;
  return ShapeError(file, absl::StrCat(field, ".", key),
                    absl::StrCat("expected true or false, got \"", *text, "\""));
}

// Each named entry of a list (clusters, users, contexts): calls `read` with
// the entry's inner map ("cluster", "user", "context") and its field path.
absl::Status ForEachNamed(
    const YAML::Node& root, const char* list, const char* inner, const std::string& file,
    const std::function<absl::Status(const std::string& name, const YAML::Node& body,
                                     const std::string& field)>& read) {
  const YAML::Node entries = root[list];
  if (!entries || entries.IsNull()) return absl::OkStatus();
  if (!entries.IsSequence()) return ShapeError(file, list, "expected a list");
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const std::string field = absl::StrCat(list, "[", i, "]");
    const YAML::Node entry = entries[i];
    if (!entry.IsMap()) return ShapeError(file, field, "expected a map");
    absl::StatusOr<std::string> name = Scalar(entry, "name", file, field);
    if (!name.ok()) return name.status();
    if (name->empty()) return ShapeError(file, absl::StrCat(field, ".name"), "missing");
    const YAML::Node body = entry[inner];
    if (body && !body.IsNull() && !body.IsMap()) {
      return ShapeError(file, absl::StrCat(field, ".", inner), "expected a map");
    }
    if (absl::Status status = read(*name, body ? body : YAML::Node(YAML::NodeType::Map),
                                   absl::StrCat(field, ".", inner));
        !status.ok()) {
      return status;
    }
  }
  return absl::OkStatus();
}

// Fills the string fields `keys` of `holder` into `out` (same order).
absl::Status Scalars(const YAML::Node& holder, const std::string& file, const std::string& field,
                     std::initializer_list<std::pair<const char*, std::string*>> keys) {
  for (const auto& [key, out] : keys) {
    absl::StatusOr<std::string> text = Scalar(holder, key, file, field);
    if (!text.ok()) return text.status();
    *out = *std::move(text);
  }
  return absl::OkStatus();
}

// A path named in `file`, resolved against its folder.
std::string Resolve(const std::string& path, const std::string& file) {
  if (path.empty() || std::filesystem::path(path).is_absolute()) return path;
  return (std::filesystem::path(file).parent_path() / path).lexically_normal().string();
}

// users[].user.exec, as client-go reads it (tools/clientcmd/api/v1 ExecConfig):
// a command with a '/' that is relative is relative to the kubeconfig's folder.
absl::StatusOr<ExecConfig> ReadExec(const YAML::Node& exec, const std::string& file,
                                    const std::string& field) {
  if (!exec.IsMap()) return ShapeError(file, field, "expected a map");
  ExecConfig config;
  CARBONROUTE_RETURN_IF_ERROR(Scalars(exec, file, field,
                                      {{"apiVersion", &config.api_version},
                                       {"command", &config.command},
                                       {"installHint", &config.install_hint}}));
  if (config.command.empty()) return ShapeError(file, field + ".command", "is required");
  if (config.api_version != kExecCredentialV1 && config.api_version != kExecCredentialV1beta1) {
    return ShapeError(file, field + ".apiVersion",
                      absl::StrCat("\"", config.api_version, "\" is not ", kExecCredentialV1,
                                   " or ", kExecCredentialV1beta1));
  }
  if (config.command.find('/') != std::string::npos) config.command = Resolve(config.command, file);
  if (const YAML::Node args = exec["args"]; args && !args.IsNull()) {
    if (!args.IsSequence()) return ShapeError(file, field + ".args", "expected a list");
    for (const YAML::Node& arg : args) {
      if (!arg.IsScalar()) return ShapeError(file, field + ".args", "expected strings");
      config.args.push_back(arg.Scalar());
    }
  }
  if (const YAML::Node env = exec["env"]; env && !env.IsNull()) {
    if (!env.IsSequence()) return ShapeError(file, field + ".env", "expected a list");
    for (const YAML::Node& entry : env) {
      if (!entry.IsMap() || !entry["name"] || !entry["name"].IsScalar() ||
          (entry["value"] && !entry["value"].IsScalar())) {
        return ShapeError(file, field + ".env", "expected {name, value} entries");
      }
      config.env.emplace_back(entry["name"].Scalar(),
                              entry["value"] ? entry["value"].Scalar() : std::string());
    }
  }
  return config;
}

absl::StatusOr<std::string> DecodePem(const std::string& base64, const std::string& file,
                                      const std::string& field) {
  std::string pem;
  if (!absl::Base64Unescape(base64, &pem)) return ShapeError(file, field, "not base64");
  return pem;
}

std::string Names(const auto& entries) {
  std::vector<std::string> names;
  for (const auto& [name, entry] : entries) names.push_back(name);
  return names.empty() ? "none" : absl::StrJoin(names, ", ");
}

}  // namespace

absl::StatusOr<Kubeconfig> ParseKubeconfig(const std::string& text, const std::string& file) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& error) {
    return absl::InvalidArgumentError(
        absl::StrCat("kubeconfig ", file, ": not YAML: ", error.what()));
  }
  Kubeconfig config;
  config.files.push_back(file);
  if (!root || root.IsNull()) return config;  // an empty file sets nothing
  if (!root.IsMap()) return ShapeError(file, "(root)", "expected a map");
  absl::StatusOr<std::string> current = Scalar(root, "current-context", file, "");
  if (!current.ok()) return current.status();
  config.current_context = *current;
  absl::Status status = ForEachNamed(
      root, "clusters", "cluster", file,
      [&](const std::string& name, const YAML::Node& body, const std::string& field) {
        KubeconfigCluster cluster;
        CARBONROUTE_RETURN_IF_ERROR(
            Scalars(body, file, field,
                    {{"server", &cluster.server},
                     {"certificate-authority", &cluster.certificate_authority},
                     {"certificate-authority-data", &cluster.certificate_authority_data},
                     {"tls-server-name", &cluster.tls_server_name}}));
        absl::StatusOr<bool> insecure = Flag(body, "insecure-skip-tls-verify", file, field);
        if (!insecure.ok()) return insecure.status();
        cluster.insecure_skip_tls_verify = *insecure;
        cluster.certificate_authority = Resolve(cluster.certificate_authority, file);
        config.clusters.try_emplace(name, Kubeconfig::Entry<KubeconfigCluster>{cluster, file});
        return absl::OkStatus();
      });
  if (!status.ok()) return status;
  status = ForEachNamed(
      root, "users", "user", file,
      [&](const std::string& name, const YAML::Node& body, const std::string& field) {
        KubeconfigUser user;
        CARBONROUTE_RETURN_IF_ERROR(
            Scalars(body, file, field,
                    {{"token", &user.token},
                     {"tokenFile", &user.token_file},
                     {"client-certificate", &user.client_certificate},
                     {"client-certificate-data", &user.client_certificate_data},
                     {"client-key", &user.client_key},
                     {"client-key-data", &user.client_key_data},
                     {"username", &user.username},
                     {"password", &user.password}}));
        if (const YAML::Node exec = body["exec"]; exec && !exec.IsNull()) {
          absl::StatusOr<ExecConfig> plugin = ReadExec(exec, file, field + ".exec");
          if (!plugin.ok()) return plugin.status();
          plugin->described_as = absl::StrCat("kubeconfig ", file, ": user \"", name, "\"");
          user.exec = *std::move(plugin);
        }
        if (const YAML::Node provider = body["auth-provider"]; provider && !provider.IsNull()) {
          user.auth_provider = provider.IsMap() && provider["name"] && provider["name"].IsScalar()
                                   ? provider["name"].Scalar()
                                   : "?";
        }
        user.token_file = Resolve(user.token_file, file);
        user.client_certificate = Resolve(user.client_certificate, file);
        user.client_key = Resolve(user.client_key, file);
        config.users.try_emplace(name, Kubeconfig::Entry<KubeconfigUser>{user, file});
        return absl::OkStatus();
      });
  if (!status.ok()) return status;
  status = ForEachNamed(
      root, "contexts", "context", file,
      [&](const std::string& name, const YAML::Node& body, const std::string& field) {
        KubeconfigContext context;
        CARBONROUTE_RETURN_IF_ERROR(Scalars(body, file, field,
                                            {{"cluster", &context.cluster},
                                             {"user", &context.user},
                                             {"namespace", &context.namespace_name}}));
        config.contexts.try_emplace(name, Kubeconfig::Entry<KubeconfigContext>{context, file});
        return absl::OkStatus();
      });
  if (!status.ok()) return status;
  return config;
}

absl::StatusOr<Kubeconfig> LoadKubeconfig(const std::vector<std::string>& files,
                                          bool skip_missing) {
  Kubeconfig merged;
  for (const std::string& file : files) {
    if (file.empty()) continue;
    std::error_code error;
    if (!std::filesystem::exists(file, error)) {
      if (skip_missing) continue;
      return absl::NotFoundError(absl::StrCat("kubeconfig ", file, ": no such file"));
    }
    absl::StatusOr<std::string> text = ReadFileToString(file, "kubeconfig");
    if (!text.ok()) return text.status();
    absl::StatusOr<Kubeconfig> one = ParseKubeconfig(*text, file);
    if (!one.ok()) return one.status();
    // The first file that sets a value wins; a named entry is taken whole.
    if (merged.current_context.empty()) merged.current_context = one->current_context;
    merged.clusters.merge(one->clusters);
    merged.users.merge(one->users);
    merged.contexts.merge(one->contexts);
    merged.files.push_back(file);
  }
  if (merged.files.empty()) {
    return absl::NotFoundError(
        absl::StrCat("kubeconfig: none of these files exists: ", absl::StrJoin(files, ":")));
  }
  return merged;
}

absl::StatusOr<KubeConnection> ConnectionFromKubeconfig(const Kubeconfig& config,
                                                        const std::string& context) {
  const std::string files = absl::StrJoin(config.files, ":");
  const std::string name = context.empty() ? config.current_context : context;
  if (name.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "kubeconfig ", files, ": no current-context is set; give --kube-context (contexts: ",
        Names(config.contexts), ")"));
  }
  const auto found = config.contexts.find(name);
  if (found == config.contexts.end()) {
    return absl::NotFoundError(absl::StrCat("kubeconfig ", files, ": context \"", name,
                                            "\" not found (contexts: ", Names(config.contexts),
                                            ")"));
  }
  const KubeconfigContext& chosen = found->second.value;
  const auto cluster_entry = config.clusters.find(chosen.cluster);
  if (cluster_entry == config.clusters.end()) {
    return absl::NotFoundError(absl::StrCat(
        "kubeconfig ", found->second.file, ": context \"", name, "\" names cluster \"",
        chosen.cluster, "\", which is not there (clusters: ", Names(config.clusters), ")"));
  }
  const KubeconfigCluster& cluster = cluster_entry->second.value;
  const std::string& cluster_file = cluster_entry->second.file;
  if (cluster.server.empty()) {
    return absl::FailedPreconditionError(absl::StrCat("kubeconfig ", cluster_file, ": cluster \"",
                                                      chosen.cluster, "\" has no server"));
  }
  KubeConnection connection;
  connection.server = cluster.server;
  while (!connection.server.empty() && connection.server.back() == '/')
    connection.server.pop_back();
  connection.origin = absl::StrCat("kubeconfig ", files, ", context ", name);
  connection.namespace_name = chosen.namespace_name;
  connection.tls_server_name = cluster.tls_server_name;
  connection.insecure_skip_tls_verify = cluster.insecure_skip_tls_verify;
  if (!cluster.certificate_authority_data.empty()) {
    absl::StatusOr<std::string> pem =
        DecodePem(cluster.certificate_authority_data, cluster_file,
                  absl::StrCat("cluster \"", chosen.cluster, "\" certificate-authority-data"));
    if (!pem.ok()) return pem.status();
    connection.ca_pem = *std::move(pem);
  } else {
    connection.ca_file = cluster.certificate_authority;
  }
  if (chosen.user.empty()) return connection;  // no credentials: e.g. a proxy
  const auto user_entry = config.users.find(chosen.user);
  if (user_entry == config.users.end()) {
    return absl::NotFoundError(
        absl::StrCat("kubeconfig ", found->second.file, ": context \"", name, "\" names user \"",
                     chosen.user, "\", which is not there (users: ", Names(config.users), ")"));
  }
  const KubeconfigUser& user = user_entry->second.value;
  const std::string& user_file = user_entry->second.file;
  const std::string instead =
      "legacy auth providers were removed from kubectl (1.26); give the user an exec credential "
      "plugin (e.g. gke-gcloud-auth-plugin, kubelogin), a token (`tokenFile:` in the user entry, "
      "or --kube-token-file), or a client certificate";
  if (user.exec) connection.exec = std::make_shared<ExecCredentialSource>(*user.exec);
  if (!user.auth_provider.empty()) {
    return absl::UnimplementedError(absl::StrCat("kubeconfig ", user_file, ": user \"", chosen.user,
                                                 "\" authenticates with auth-provider \"",
                                                 user.auth_provider, "\"; ", instead));
  }
  const std::string user_field = absl::StrCat("user \"", chosen.user, "\" ");
  if (!user.client_certificate_data.empty()) {
    absl::StatusOr<std::string> pem =
        DecodePem(user.client_certificate_data, user_file, user_field + "client-certificate-data");
    if (!pem.ok()) return pem.status();
    connection.client_cert_pem = *std::move(pem);
  } else {
    connection.client_cert_file = user.client_certificate;
  }
  if (!user.client_key_data.empty()) {
    absl::StatusOr<std::string> pem =
        DecodePem(user.client_key_data, user_file, user_field + "client-key-data");
    if (!pem.ok()) return pem.status();
    connection.client_key_pem = *std::move(pem);
  } else {
    connection.client_key_file = user.client_key;
  }
  // client-go: a literal token wins over tokenFile.
  if (!user.token.empty()) {
    connection.token = user.token;
  } else {
    connection.token_file = user.token_file;
  }
  connection.username = user.username;
  connection.password = user.password;
  return connection;
}

}  // namespace carbonroute::kube
