#include "base/listen_address.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace carbonroute {

std::optional<std::string> NormalizeListenAddress(absl::string_view text) {
  const std::size_t colon = text.rfind(':');
  int port = -1;
  if (colon == absl::string_view::npos || !absl::SimpleAtoi(text.substr(colon + 1), &port) ||
      port < 0 || port > 65535) {
    return std::nullopt;
  }
  if (colon == 0) return absl::StrCat("0.0.0.0", text);
  return std::string(text);
}

}  // namespace carbonroute
