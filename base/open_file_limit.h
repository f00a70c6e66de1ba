// File: base/open_file_limit.h
//
// Raises the soft limit on open files (RLIMIT_NOFILE) to the hard limit, as
// Go programs, Prometheus and its exporters among them, do at start since
// Go 1.19 (https://go.dev/doc/go1.19#os-exec-extra-files): systemd and most
// shells start a process with a soft limit of 1024, below the HTTP server's
// connection limit (net/http_server.h), while the hard limit is far higher
// (systemd 240+: 524288, https://github.com/systemd/systemd/blob/main/NEWS).
//
// Returns the soft limit in force afterwards; errors are not fatal (the
// limit stays as it was). Thread safety: call once, at start, before threads.
#ifndef CARBONROUTE_BASE_OPEN_FILE_LIMIT_H_
#define CARBONROUTE_BASE_OPEN_FILE_LIMIT_H_

#include <cstdint>

namespace carbonroute {

uint64_t RaiseOpenFileLimit();

}  // namespace carbonroute

#endif  // CARBONROUTE_BASE_OPEN_FILE_LIMIT_H_
