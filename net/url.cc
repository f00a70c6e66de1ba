#include "net/url.h"

#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"

namespace carbonroute::net {
namespace {

// 0–15 for a hexadecimal digit, -1 otherwise.
int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::string UrlEncode(absl::string_view text) {
  std::string out;
  for (unsigned char c : text) {
    if (absl::ascii_isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      absl::StrAppendFormat(&out, "%%%02X", c);
    }
  }
  return out;
}

std::string Query(const std::vector<std::pair<std::string, std::string>>& params) {
  std::string out;
  for (const auto& [name, value] : params) {
    absl::StrAppend(&out, out.empty() ? "?" : "&", name, "=", UrlEncode(value));
  }
  return out;
}

std::string JoinUrl(absl::string_view base, absl::string_view path) {
  while (!base.empty() && base.back() == '/') base.remove_suffix(1);
  while (!path.empty() && path.front() == '/') path.remove_prefix(1);
  return absl::StrCat(base, "/", path);
}

std::vector<std::string> QueryParameters(absl::string_view query, absl::string_view name,
                                         NameCase name_case) {
  std::vector<std::string> values;
  for (absl::string_view pair : absl::StrSplit(query, '&')) {
    std::pair<absl::string_view, absl::string_view> kv =
        absl::StrSplit(pair, absl::MaxSplits('=', 1));
    if (name_case == NameCase::kIgnore ? !absl::EqualsIgnoreCase(kv.first, name)
                                       : kv.first != name) {
      continue;
    }
    std::string value;
    for (std::size_t i = 0; i < kv.second.size(); ++i) {
      const char c = kv.second[i];
      int high = 0, low = 0;
      if (c == '%' && i + 2 < kv.second.size() && (high = HexValue(kv.second[i + 1])) >= 0 &&
          (low = HexValue(kv.second[i + 2])) >= 0) {
        value.push_back(static_cast<char>(high * 16 + low));
        i += 2;
      } else {
        value.push_back(c == '+' ? ' ' : c);
      }
    }
    values.push_back(std::move(value));
  }
  return values;
}

std::optional<std::string> QueryParameter(absl::string_view query, absl::string_view name,
                                          NameCase name_case) {
  std::vector<std::string> values = QueryParameters(query, name, name_case);
  if (values.empty()) return std::nullopt;
  return std::move(values.front());
}

}  // namespace carbonroute::net
