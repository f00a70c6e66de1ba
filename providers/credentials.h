// File: providers/credentials.h
//
// Reads the value behind a SecretRef (config/collector_config.h): an
// environment variable, a file, or a systemd credential
// ($CREDENTIALS_DIRECTORY/<name>, from LoadCredential= in the unit).
//
// Errors name the reference and `what` (e.g. "providers[0].password"),
// never the value:
//   kNotFound         the variable is unset/empty, the file or credential is missing,
//                     or $CREDENTIALS_DIRECTORY is not set (IsMissingCredential: true)
//   kInvalidArgument  the reference is empty
//
// Thread safety: reads the process environment; call at start-up.
#ifndef CARBONROUTE_PROVIDERS_CREDENTIALS_H_
#define CARBONROUTE_PROVIDERS_CREDENTIALS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "config/collector_config.h"

namespace carbonroute::providers {

absl::StatusOr<std::string> ResolveSecret(const SecretRef& secret, absl::string_view what);

// Whether `status` (from ResolveSecret, or a provider built with it) says a
// credential is not there on this machine, as opposed to a configuration that
// is wrong: `--check-config` on a workstation tells the two apart.
bool IsMissingCredential(const absl::Status& status);

// Every credential of `provider` that is not there on this machine, each
// message as its provider's Create would name it ("provider \"wt\" password:
// ..."); empty when all are there.
std::vector<std::string> MissingCredentials(const ProviderConfig& provider);

}  // namespace carbonroute::providers

#endif  // CARBONROUTE_PROVIDERS_CREDENTIALS_H_
