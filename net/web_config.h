// File: net/web_config.h
//
// The web configuration file Prometheus exporters take with
// --web.config.file (exporter-toolkit's format,
// https://github.com/prometheus/exporter-toolkit/blob/master/docs/web-configuration.md),
// for TLS and HTTP Basic authentication on carbonroute's HTTP servers:
//
//   tls_server_config:
//     cert_file: server.crt          # the certificate, then its chain (PEM)
//     key_file: server.key
//     client_auth_type: RequireAndVerifyClientCert   # or VerifyClientCertIfGiven,
//     client_ca_file: clients-ca.crt                 #    NoClientCert (default)
//     min_version: TLS12             # TLS12 (default) or TLS13
//   basic_auth_users:
//     prometheus: $2y$10$...         # bcrypt, e.g. htpasswd -nBC 10 prometheus
//
// Relative paths are relative to the file's directory. Keys this server does
// not implement (cipher_suites, curve_preferences, max_version,
// prefer_server_cipher_suites, http_server_config, RequestClientCert,
// RequireAnyClientCert) are refused by name rather than ignored: a security
// setting that silently does nothing is worse than none.
//
// Errors: kNotFound / kPermissionDenied for an unreadable file (naming it);
// kInvalidArgument for malformed YAML, an unknown or unsupported key, a
// missing cert_file/key_file, a client CA without a verifying
// client_auth_type or the reverse, or a password that is not a bcrypt hash
// (naming the user, never the hash). Thread safety: a pure function.
#ifndef CARBONROUTE_NET_WEB_CONFIG_H_
#define CARBONROUTE_NET_WEB_CONFIG_H_

#include <map>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "net/http_server.h"

namespace carbonroute::net {

struct WebConfig {
  std::optional<HttpServerTls> tls;                     // with the PEM files' contents
  std::map<std::string, std::string> basic_auth_users;  // user → bcrypt hash
};

absl::StatusOr<WebConfig> LoadWebConfig(const std::string& path);

// LoadWebConfig on `yaml`, the text of the file at `path` (which names it in
// messages and anchors relative paths); the referenced PEM files are read.
absl::StatusOr<WebConfig> ParseWebConfig(absl::string_view yaml, const std::string& path);

// Sets `options`' tls and basic_auth_users from `config`.
void ApplyWebConfig(const WebConfig& config, HttpServerOptions& options);

}  // namespace carbonroute::net

#endif  // CARBONROUTE_NET_WEB_CONFIG_H_
