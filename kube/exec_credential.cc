#include "kube/exec_credential.h"

#include "absl/strings/str_cat.h"
#include "base/run_program.h"
#include "kube/json_view.h"

namespace carbonroute::kube {

absl::StatusOr<ExecCredential> ParseExecCredential(absl::string_view json,
                                                   absl::string_view api_version) {
  JsonDocument document;
  absl::StatusOr<JsonField> root = document.Parse(json, "ExecCredential");
  if (!root.ok()) return root.status();
  absl::StatusOr<std::string> version = (*root)["apiVersion"].OptionalString();
  if (!version.ok()) return version.status();
  absl::StatusOr<std::string> kind = (*root)["kind"].OptionalString();
  if (!kind.ok()) return kind.status();
  if (*kind != "ExecCredential" || *version != api_version) {
    return absl::InvalidArgumentError(absl::StrCat("ExecCredential: the plugin answered kind \"",
                                                   *kind, "\" apiVersion \"", *version,
                                                   "\", not an ExecCredential of ", api_version));
  }
  const JsonField status = (*root)["status"];
  ExecCredential credential;
  absl::StatusOr<std::string> token = status["token"].OptionalString();
  if (!token.ok()) return token.status();
  absl::StatusOr<std::string> cert = status["clientCertificateData"].OptionalString();
  if (!cert.ok()) return cert.status();
  absl::StatusOr<std::string> key = status["clientKeyData"].OptionalString();
  if (!key.ok()) return key.status();
  credential.token = *std::move(token);
  credential.client_cert_pem = *std::move(cert);
  credential.client_key_pem = *std::move(key);
  if (credential.token.empty() &&
      (credential.client_cert_pem.empty() || credential.client_key_pem.empty())) {
    return status.Error("has neither a token nor a clientCertificateData and clientKeyData");
  }
  absl::StatusOr<std::string> expires = status["expirationTimestamp"].OptionalString();
  if (!expires.ok()) return expires.status();
  if (!expires->empty()) {
    std::string error;
    if (!absl::ParseTime(absl::RFC3339_full, *expires, &credential.expires, &error)) {
      return status["expirationTimestamp"].Error(
          absl::StrCat("\"", *expires, "\" is not an RFC 3339 time: ", error));
    }
  }
  return credential;
}

absl::StatusOr<ExecCredential> ExecCredentialSource::Get() {
  absl::MutexLock lock(&mutex_);
  if (cached_ && now_() < credential_.expires) return credential_;
  cached_ = false;
  std::vector<std::pair<std::string, std::string>> env = config_.env;
  env.emplace_back("KUBERNETES_EXEC_INFO",
                   absl::StrCat(R"({"apiVersion":")", config_.api_version,
                                R"(","kind":"ExecCredential","spec":{"interactive":false}})"));
  ++runs_;
  absl::StatusOr<std::string> output = RunProgramOutput(config_.command, config_.args, env);
  if (!output.ok()) {
    const bool missing = output.status().code() == absl::StatusCode::kNotFound;
    return absl::Status(output.status().code(),
                        absl::StrCat(config_.described_as, ": the exec credential plugin: ",
                                     missing ? absl::StrCat("cannot run \"", config_.command, "\"")
                                             : std::string(output.status().message()),
                                     missing && !config_.install_hint.empty()
                                         ? absl::StrCat(" (", config_.install_hint, ")")
                                         : ""));
  }
  absl::StatusOr<ExecCredential> credential = ParseExecCredential(*output, config_.api_version);
  if (!credential.ok()) {
    return absl::Status(credential.status().code(),
                        absl::StrCat(config_.described_as, ": the exec credential plugin \"",
                                     config_.command, "\": ", credential.status().message()));
  }
  credential_ = *std::move(credential);
  cached_ = true;
  return credential_;
}

void ExecCredentialSource::Invalidate() {
  absl::MutexLock lock(&mutex_);
  cached_ = false;
}

int ExecCredentialSource::runs() const {
  absl::MutexLock lock(&mutex_);
  return runs_;
}

}  // namespace carbonroute::kube
