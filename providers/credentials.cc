#include "providers/credentials.h"

#include <cstdlib>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/data_files.h"

namespace carbonroute::providers {
namespace {

constexpr char kMissingCredentialPayload[] = "type.carbonroute.io/missing-credential";

absl::StatusOr<std::string> Resolve(const SecretRef& secret, absl::string_view what) {
  switch (secret.source) {
    case SecretRef::Source::kNone:
      return absl::InvalidArgumentError(absl::StrCat(what, ": no secret configured"));
    case SecretRef::Source::kLiteral:
      return secret.reference;
    case SecretRef::Source::kEnv: {
      const char* value = std::getenv(secret.reference.c_str());
      if (value == nullptr) {
        return absl::NotFoundError(
            absl::StrCat(what, ": environment variable ", secret.reference, " is not set"));
      }
      if (*value == '\0') {  // set, but to nothing: a different mistake, said as it is
        return absl::NotFoundError(
            absl::StrCat(what, ": environment variable ", secret.reference, " is set but empty"));
      }
      return std::string(value);
    }
    case SecretRef::Source::kFile:
      return ReadSecretFile(secret.reference, what);
    case SecretRef::Source::kCredential: {
      const char* directory = std::getenv("CREDENTIALS_DIRECTORY");
      if (directory == nullptr || *directory == '\0') {
        return absl::NotFoundError(absl::StrCat(
            what, ": credential \"", secret.reference,
            "\" needs $CREDENTIALS_DIRECTORY (systemd LoadCredential=), which is not set"));
      }
      return ReadSecretFile(absl::StrCat(directory, "/", secret.reference), what);
    }
  }
  return absl::InvalidArgumentError(absl::StrCat(what, ": unknown secret source"));
}

}  // namespace

absl::StatusOr<std::string> ResolveSecret(const SecretRef& secret, absl::string_view what) {
  absl::StatusOr<std::string> value = Resolve(secret, what);
  if (value.status().code() == absl::StatusCode::kNotFound) {
    absl::Status missing = value.status();
    missing.SetPayload(kMissingCredentialPayload, absl::Cord("1"));
    return missing;
  }
  return value;
}

bool IsMissingCredential(const absl::Status& status) {
  return status.GetPayload(kMissingCredentialPayload).has_value();
}

std::vector<std::string> MissingCredentials(const ProviderConfig& provider) {
  const std::pair<const char*, const SecretRef*> secrets[] = {
      {"username", &provider.watttime.username},
      {"password", &provider.watttime.password},
      {"token", &provider.electricity_maps.token}};
  std::vector<std::string> missing;
  for (const auto& [what, secret] : secrets) {
    if (secret->empty()) continue;
    absl::StatusOr<std::string> value =
        ResolveSecret(*secret, absl::StrCat("provider \"", provider.name, "\" ", what));
    if (!value.ok() && IsMissingCredential(value.status())) {
      missing.emplace_back(value.status().message());
    }
  }
  return missing;
}

}  // namespace carbonroute::providers
