#include "base/json_escape.h"

#include "absl/strings/str_format.h"

namespace carbonroute {

void AppendJsonEscaped(std::string& out, absl::string_view text) {
  std::size_t clean_from = 0;  // runs that need no escaping are copied whole
  for (std::size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out.append(text.data() + clean_from, i - clean_from);
    clean_from = i + 1;
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        absl::StrAppendFormat(&out, "\\u%04x", c);
    }
  }
  out.append(text.data() + clean_from, text.size() - clean_from);
}

}  // namespace carbonroute
