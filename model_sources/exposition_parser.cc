#include "model_sources/exposition_parser.h"

#include <cmath>
#include <limits>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace carbonroute::model_sources {
namespace {

constexpr absl::string_view kTypes[] = {"counter", "gauge", "histogram", "summary", "untyped"};

bool IsNameStart(char c, bool allow_colon) {
  return absl::ascii_isalpha(static_cast<unsigned char>(c)) || c == '_' ||
         (allow_colon && c == ':');
}
bool IsNameChar(char c, bool allow_colon) {
  return IsNameStart(c, allow_colon) || absl::ascii_isdigit(static_cast<unsigned char>(c));
}

// A cursor over one line, producing "line N: ..." errors.
class LineReader {
 public:
  LineReader(absl::string_view line, std::size_t number) : rest_(line), number_(number) {}

  absl::Status Error(absl::string_view what) const {
    return absl::InvalidArgumentError(absl::StrCat("line ", number_, ": ", what));
  }
  void SkipSpaces() { rest_ = absl::StripLeadingAsciiWhitespace(rest_); }
  bool Done() const { return rest_.empty(); }
  bool Consume(char c) {
    if (rest_.empty() || rest_.front() != c) return false;
    rest_.remove_prefix(1);
    return true;
  }
  char Peek() const { return rest_.empty() ? '\0' : rest_.front(); }
  absl::string_view rest() const { return rest_; }

  // A metric name (colons allowed) or label name (no colons).
  absl::StatusOr<std::string> Name(bool allow_colon, absl::string_view what) {
    if (rest_.empty() || !IsNameStart(rest_.front(), allow_colon)) {
      return Error(absl::StrCat("expected ", what, ", found \"", Excerpt(), "\""));
    }
    std::size_t n = 1;
    while (n < rest_.size() && IsNameChar(rest_[n], allow_colon)) ++n;
    std::string name(rest_.substr(0, n));
    rest_.remove_prefix(n);
    return name;
  }

  // A space-free token (value, timestamp).
  absl::string_view Token() {
    std::size_t n = 0;
    while (n < rest_.size() && rest_[n] != ' ' && rest_[n] != '\t') ++n;
    absl::string_view token = rest_.substr(0, n);
    rest_.remove_prefix(n);
    return token;
  }

  // A double-quoted label value with \\, \" and \n escapes.
  absl::StatusOr<std::string> QuotedValue() {
    if (!Consume('"')) return Error(absl::StrCat("expected '\"', found \"", Excerpt(), "\""));
    std::string value;
    while (!rest_.empty()) {
      const char c = rest_.front();
      rest_.remove_prefix(1);
      if (c == '"') return value;
      if (c != '\\') {
        value.push_back(c);
        continue;
      }
      if (rest_.empty()) break;
      const char escaped = rest_.front();
      rest_.remove_prefix(1);
      if (escaped == 'n') {
        value.push_back('\n');
      } else if (escaped == '\\' || escaped == '"') {
        value.push_back(escaped);
      } else {
        return Error(
            absl::StrCat("invalid escape \"\\", std::string(1, escaped), "\" in label value"));
      }
    }
    return Error("unterminated label value");
  }

 private:
  absl::string_view Excerpt() const { return rest_.substr(0, 20); }
  absl::string_view rest_;
  std::size_t number_;
};

std::optional<double> ParseValue(absl::string_view token) {
  if (token == "NaN") return std::numeric_limits<double>::quiet_NaN();
  if (token == "+Inf" || token == "Inf") return std::numeric_limits<double>::infinity();
  if (token == "-Inf") return -std::numeric_limits<double>::infinity();
  absl::ConsumePrefix(&token, "+");
  double value = 0;
  if (token.empty() || !absl::SimpleAtod(token, &value)) return std::nullopt;
  // SimpleAtod also takes "inf"/"nan" spellings Prometheus never writes.
  if (!std::isfinite(value)) return std::nullopt;
  return value;
}

absl::Status ParseComment(LineReader& line, Exposition& out) {
  line.SkipSpaces();
  absl::string_view rest = line.rest();
  const bool is_help = absl::ConsumePrefix(&rest, "HELP ");
  const bool is_type = !is_help && absl::ConsumePrefix(&rest, "TYPE ");
  if (!is_help && !is_type) return absl::OkStatus();  // a plain comment
  LineReader named(absl::StripLeadingAsciiWhitespace(rest), 0);
  absl::StatusOr<std::string> name = named.Name(/*allow_colon=*/true, "a metric name");
  if (!name.ok())
    return line.Error(absl::StrCat(is_help ? "HELP" : "TYPE", ": expected a metric name"));
  FamilyInfo& family = out.families[*name];
  if (is_help) {
    absl::string_view text = named.rest();
    absl::ConsumePrefix(&text, " ");
    std::string help;
    for (std::size_t i = 0; i < text.size(); ++i) {
      if (text[i] == '\\' && i + 1 < text.size() && (text[i + 1] == '\\' || text[i + 1] == 'n')) {
        help.push_back(text[i + 1] == 'n' ? '\n' : '\\');
        ++i;
      } else {
        help.push_back(text[i]);
      }
    }
    family.help = std::move(help);
    return absl::OkStatus();
  }
  const absl::string_view type = absl::StripAsciiWhitespace(named.rest());
  if (std::find(std::begin(kTypes), std::end(kTypes), type) == std::end(kTypes)) {
    return line.Error(absl::StrCat("TYPE ", *name, ": unknown type \"", type,
                                   "\"; expected counter, gauge, histogram, summary or untyped"));
  }
  if (!family.type.empty()) return line.Error(absl::StrCat("second TYPE line for ", *name));
  family.type = std::string(type);
  return absl::OkStatus();
}

absl::Status ParseSample(LineReader& line, Exposition& out) {
  Sample sample;
  absl::StatusOr<std::string> name = line.Name(/*allow_colon=*/true, "a metric name");
  if (!name.ok()) return name.status();
  sample.name = *std::move(name);
  line.SkipSpaces();
  if (line.Consume('{')) {
    for (;;) {
      line.SkipSpaces();
      if (line.Consume('}')) break;
      absl::StatusOr<std::string> label = line.Name(/*allow_colon=*/false, "a label name or '}'");
      if (!label.ok()) return label.status();
      line.SkipSpaces();
      if (!line.Consume('=')) return line.Error(absl::StrCat("expected '=' after label ", *label));
      line.SkipSpaces();
      absl::StatusOr<std::string> value = line.QuotedValue();
      if (!value.ok()) return value.status();
      if (!sample.labels.emplace(*label, *std::move(value)).second) {
        return line.Error(absl::StrCat("label ", *label, " appears twice"));
      }
      line.SkipSpaces();
      if (line.Consume('}')) break;
      if (!line.Consume(',')) return line.Error("expected ',' or '}' after a label");
    }
  }
  line.SkipSpaces();
  const absl::string_view value_token = line.Token();
  std::optional<double> value = ParseValue(value_token);
  if (!value) {
    return line.Error(absl::StrCat("expected a sample value, found \"", value_token, "\""));
  }
  sample.value = *value;
  line.SkipSpaces();
  if (!line.Done()) {
    const absl::string_view timestamp_token = line.Token();
    int64_t timestamp = 0;
    if (!absl::SimpleAtoi(timestamp_token, &timestamp)) {
      return line.Error(
          absl::StrCat("expected a timestamp in milliseconds, found \"", timestamp_token, "\""));
    }
    sample.timestamp_ms = timestamp;
    line.SkipSpaces();
    if (!line.Done()) {
      return line.Error(absl::StrCat("unexpected text after the timestamp: \"", line.rest(), "\""));
    }
  }
  out.samples.push_back(std::move(sample));
  return absl::OkStatus();
}

}  // namespace

const std::string& Sample::Label(const std::string& label) const {
  static const std::string* const kEmpty = new std::string();
  auto it = labels.find(label);
  return it == labels.end() ? *kEmpty : it->second;
}

absl::StatusOr<Exposition> ParseExposition(absl::string_view text) {
  Exposition out;
  std::size_t number = 0;
  for (absl::string_view raw : absl::StrSplit(text, '\n')) {
    ++number;
    raw = absl::StripSuffix(raw, "\r");
    LineReader line(raw, number);
    line.SkipSpaces();
    if (line.Done()) continue;
    absl::Status status = line.Consume('#') ? ParseComment(line, out) : ParseSample(line, out);
    if (!status.ok()) return status;
  }
  return out;
}

}  // namespace carbonroute::model_sources
