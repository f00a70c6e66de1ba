// File: net/gzip_body.h
//
// gzip (RFC 1952) at zlib's fastest level, for the server's replies: a whole
// body at once, or a BodyStream compressed piece by piece as it is read.
//
// Memory: GzipStream keeps zlib's deflate state (about 268 KiB at level 1,
// windowBits 15, memLevel 8: zlib's zconf.h formula) and one input piece of
// kStreamPieceBytes; nothing grows with the body.
//
// Errors: Gzip returns nullopt if zlib fails (out of memory); a GzipStream
// whose zlib fails ends its body early, so the client sees a truncated gzip
// member and the chunked reply's missing end.
// Thread safety: a GzipStream is read by one thread at a time, like any BodyStream.
#ifndef CARBONROUTE_NET_GZIP_BODY_H_
#define CARBONROUTE_NET_GZIP_BODY_H_

#include <memory>
#include <optional>
#include <string>

#include "absl/strings/string_view.h"
#include "net/http_server.h"

namespace carbonroute::net {

// `body` as one gzip member; nullopt if zlib fails.
std::optional<std::string> Gzip(absl::string_view body);

// The bytes of `plain`, gzip-compressed as they are read; null if zlib
// cannot start (out of memory).
std::unique_ptr<BodyStream> GzipStream(std::shared_ptr<BodyStream> plain);

}  // namespace carbonroute::net

#endif  // CARBONROUTE_NET_GZIP_BODY_H_
