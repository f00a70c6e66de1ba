// File: base/listen_address.h
//
// A listen address as Prometheus exporters take it (--web.listen-address):
// "host:port" with a port 0–65535 (0: any free one), or ":port" for every
// interface. One check for the collector's listen_address and flag and for
// scheduler-lite serve's.
//
// Thread safety: pure function.
#ifndef CARBONROUTE_BASE_LISTEN_ADDRESS_H_
#define CARBONROUTE_BASE_LISTEN_ADDRESS_H_

#include <optional>
#include <string>

#include "absl/strings/string_view.h"

namespace carbonroute {

// `text` as "host:port" (":port" becomes "0.0.0.0:port"); nullopt when it is neither.
std::optional<std::string> NormalizeListenAddress(absl::string_view text);

}  // namespace carbonroute

#endif  // CARBONROUTE_BASE_LISTEN_ADDRESS_H_
