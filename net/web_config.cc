#include "net/web_config.h"

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/data_files.h"
#include "base/status_macros.h"

namespace carbonroute::net {
namespace {

absl::Status Invalid(const std::string& path, const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat(path, ": ", what));
}

// Every key of `node` must be in `known`; those in `unsupported` are named as such.
absl::Status CheckKeys(const std::string& path, const std::string& where, const YAML::Node& node,
                       const std::set<std::string>& known,
                       const std::set<std::string>& unsupported = {}) {
  if (!node.IsMap()) return Invalid(path, absl::StrCat(where, " must be a mapping"));
  for (const auto& entry : node) {
    const std::string key = entry.first.as<std::string>();
    if (unsupported.count(key) > 0) {
      return Invalid(path, absl::StrCat(where, key, ": not supported by carbonroute (remove it)"));
    }
    if (known.count(key) == 0) {
      return Invalid(
          path,
          absl::StrCat(where, key, ": unknown key; expected one of: ", absl::StrJoin(known, ", ")));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> ReadReferenced(const std::string& config_path, const YAML::Node& node,
                                           const std::string& key) {
  if (!node[key] || !node[key].IsScalar() || node[key].as<std::string>().empty()) {
    return Invalid(config_path, absl::StrCat("tls_server_config.", key, " is required"));
  }
  std::filesystem::path file = node[key].as<std::string>();
  if (file.is_relative()) file = std::filesystem::path(config_path).parent_path() / file;
  absl::StatusOr<std::string> text = ReadFileToString(file.string(), key);
  if (!text.ok())
    return Invalid(config_path,
                   absl::StrCat("tls_server_config.", key, ": ", text.status().message()));
  return text;
}

absl::StatusOr<HttpServerTls> ReadTls(const std::string& path, const YAML::Node& node) {
  CARBONROUTE_RETURN_IF_ERROR(CheckKeys(
      path, "tls_server_config.", node,
      {"cert_file", "key_file", "client_auth_type", "client_ca_file", "min_version"},
      {"cipher_suites", "curve_preferences", "max_version", "prefer_server_cipher_suites"}));
  HttpServerTls tls;
  CARBONROUTE_ASSIGN_OR_RETURN(tls.certificate_pem, ReadReferenced(path, node, "cert_file"));
  CARBONROUTE_ASSIGN_OR_RETURN(tls.private_key_pem, ReadReferenced(path, node, "key_file"));
  const std::string auth =
      node["client_auth_type"] ? node["client_auth_type"].as<std::string>() : "NoClientCert";
  if (auth == "RequestClientCert" || auth == "RequireAnyClientCert") {
    return Invalid(path, absl::StrCat("tls_server_config.client_auth_type: ", auth,
                                      " (a client certificate that is not verified) is not "
                                      "supported; use VerifyClientCertIfGiven or "
                                      "RequireAndVerifyClientCert"));
  }
  if (auth != "NoClientCert" && auth != "VerifyClientCertIfGiven" &&
      auth != "RequireAndVerifyClientCert") {
    return Invalid(path, absl::StrCat("tls_server_config.client_auth_type: unknown value \"", auth,
                                      "\"; expected NoClientCert, VerifyClientCertIfGiven or "
                                      "RequireAndVerifyClientCert"));
  }
  const bool has_ca = static_cast<bool>(node["client_ca_file"]);
  if (auth == "NoClientCert" && has_ca) {
    return Invalid(path,
                   "tls_server_config.client_ca_file is set but client_auth_type is NoClientCert "
                   "(set client_auth_type: RequireAndVerifyClientCert or VerifyClientCertIfGiven)");
  }
  if (auth != "NoClientCert") {
    if (!has_ca) {
      return Invalid(path, absl::StrCat("tls_server_config.client_auth_type: ", auth,
                                        " needs client_ca_file"));
    }
    CARBONROUTE_ASSIGN_OR_RETURN(tls.client_ca_pem, ReadReferenced(path, node, "client_ca_file"));
    tls.require_client_certificate = auth == "RequireAndVerifyClientCert";
  }
  const std::string min_version =
      node["min_version"] ? node["min_version"].as<std::string>() : "TLS12";
  if (min_version != "TLS12" && min_version != "TLS13") {
    return Invalid(path, absl::StrCat("tls_server_config.min_version: \"", min_version,
                                      "\" is not supported; expected TLS12 or TLS13"));
  }
  tls.tls13_only = min_version == "TLS13";
  return tls;
}

}  // namespace

absl::StatusOr<WebConfig> LoadWebConfig(const std::string& path) {
  CARBONROUTE_ASSIGN_OR_RETURN(std::string text, ReadFileToString(path, "web config file"));
  return ParseWebConfig(text, path);
}

absl::StatusOr<WebConfig> ParseWebConfig(absl::string_view yaml, const std::string& path) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(yaml));
  } catch (const YAML::Exception& e) {
    return Invalid(path, absl::StrCat("malformed YAML: ", e.what()));
  }
  WebConfig config;
  if (root.IsNull()) return config;  // an empty file: plain HTTP, no authentication
  try {
    CARBONROUTE_RETURN_IF_ERROR(CheckKeys(path, "", root, {"tls_server_config", "basic_auth_users"},
                                          {"http_server_config"}));
    if (root["tls_server_config"]) {
      CARBONROUTE_ASSIGN_OR_RETURN(config.tls, ReadTls(path, root["tls_server_config"]));
    }
    if (const YAML::Node users = root["basic_auth_users"]; users) {
      if (!users.IsMap()) return Invalid(path, "basic_auth_users must be a mapping user: hash");
      for (const auto& entry : users) {
        const std::string user = entry.first.as<std::string>();
        const std::string hash = entry.second.IsScalar() ? entry.second.as<std::string>() : "";
        if (!IsBcryptHash(hash)) {
          return Invalid(path, absl::StrCat("basic_auth_users.", user,
                                            ": not a bcrypt hash ($2a$, $2b$ or $2y$, 60 "
                                            "characters; htpasswd -nBC 10 ",
                                            user, " makes one)"));
        }
        config.basic_auth_users[user] = hash;
      }
    }
  } catch (const YAML::Exception& e) {
    return Invalid(path, absl::StrCat("malformed web config: ", e.what()));
  }
  return config;
}

void ApplyWebConfig(const WebConfig& config, HttpServerOptions& options) {
  options.tls = config.tls;
  options.basic_auth_users = config.basic_auth_users;
}

}  // namespace carbonroute::net
