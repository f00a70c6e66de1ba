// File: base/build_info.h
//
// What a binary was built from, for `--version` and the carbonroute_build_info
// metric (the convention of Prometheus exporters' `<name>_build_info`).
// The values are written at configure time into one generated source file
// (base/build_info.cc.in), so nothing else recompiles when they change:
// revision and branch from git (when the source is a git checkout; else
// "unknown"), the compiler CMake found, and the build date (UTC, the day:
// a rebuild the same day changes nothing).
//
// Thread safety: constant data.
#ifndef CARBONROUTE_BASE_BUILD_INFO_H_
#define CARBONROUTE_BASE_BUILD_INFO_H_

#include <string>

namespace carbonroute {

struct BuildInfo {
  const char* version;   // the project's version, e.g. "0.1.0"
  const char* revision;  // git's abbreviated commit, "unknown" outside a checkout
  const char* branch;    // git's branch, "unknown" outside a checkout
  const char* compiler;  // e.g. "GNU 12.2.0"
  const char* date;      // the build date, YYYY-MM-DD (UTC)
};

const BuildInfo& GetBuildInfo();

// "<program> 0.1.0 (revision 1a2b3c4, branch main, built 2026-11-25 with GNU 12.2.0)".
std::string VersionLine(const std::string& program);

}  // namespace carbonroute

#endif  // CARBONROUTE_BASE_BUILD_INFO_H_
