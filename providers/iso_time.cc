#include "providers/iso_time.h"

#include "absl/time/civil_time.h"

namespace carbonroute::providers {
namespace {

bool Digits(absl::string_view text, std::size_t at, std::size_t count, int& out) {
  if (at + count > text.size()) return false;
  int value = 0;
  for (std::size_t i = at; i < at + count; ++i) {
    if (text[i] < '0' || text[i] > '9') return false;
    value = value * 10 + (text[i] - '0');
  }
  out = value;
  return true;
}

}  // namespace

bool ParseIsoTime(absl::string_view text, absl::Time& out) {
  int year, month, day, hour, minute, second = 0;
  if (!Digits(text, 0, 4, year) || text.size() < 16 || text[4] != '-' ||
      !Digits(text, 5, 2, month) || text[7] != '-' || !Digits(text, 8, 2, day) ||
      (text[10] != 'T' && text[10] != 't') || !Digits(text, 11, 2, hour) || text[13] != ':' ||
      !Digits(text, 14, 2, minute)) {
    return false;
  }
  std::size_t at = 16;
  absl::Duration fraction = absl::ZeroDuration();
  if (at < text.size() && text[at] == ':') {
    if (!Digits(text, at + 1, 2, second)) return false;
    at += 3;
    if (at < text.size() && text[at] == '.') {
      ++at;
      int64_t nanos = 0, scale = 100'000'000;
      const std::size_t begin = at;
      while (at < text.size() && text[at] >= '0' && text[at] <= '9') {
        if (scale > 0) nanos += (text[at] - '0') * scale;
        scale /= 10;
        ++at;
      }
      if (at == begin) return false;
      fraction = absl::Nanoseconds(nanos);
    }
  }
  int offset_minutes = 0;
  if (at < text.size() && (text[at] == 'Z' || text[at] == 'z')) {
    ++at;
  } else if (at < text.size() && (text[at] == '+' || text[at] == '-')) {
    int offset_hours = 0, offset_mins = 0;
    if (!Digits(text, at + 1, 2, offset_hours) || at + 3 >= text.size() || text[at + 3] != ':' ||
        !Digits(text, at + 4, 2, offset_mins) || offset_hours > 23 || offset_mins > 59) {
      return false;
    }
    offset_minutes = (text[at] == '-' ? -1 : 1) * (offset_hours * 60 + offset_mins);
    at += 6;
  } else {
    return false;
  }
  if (at != text.size() || month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 ||
      second > 60) {
    return false;
  }
  const absl::CivilSecond civil(year, month, day, hour, minute, second);
  if (civil.day() != day) return false;  // e.g. February 30 normalised to March
  out = absl::FromCivil(civil, absl::UTCTimeZone()) + fraction - absl::Minutes(offset_minutes);
  return true;
}

}  // namespace carbonroute::providers
