#include "net/gzip_body.h"

#include <vector>

#include "zlib.h"

namespace carbonroute::net {
namespace {

// 15 + 16: a 32 KiB window with a gzip header and trailer instead of zlib's (zlib.h, deflateInit2).
constexpr int kGzipWindowBits = 15 + 16;
constexpr int kMemLevel = 8;

class GzipBodyStream : public BodyStream {
 public:
  explicit GzipBodyStream(std::shared_ptr<BodyStream> plain)
      : plain_(std::move(plain)), input_(kStreamPieceBytes) {}
  ~GzipBodyStream() override {
    if (started_) deflateEnd(&zlib_);
  }

  bool Start() {
    started_ = deflateInit2(&zlib_, Z_BEST_SPEED, Z_DEFLATED, kGzipWindowBits, kMemLevel,
                            Z_DEFAULT_STRATEGY) == Z_OK;
    return started_;
  }

  std::size_t Read(char* out, std::size_t max) override {
    if (finished_) return 0;
    zlib_.next_out = reinterpret_cast<Bytef*>(out);
    zlib_.avail_out = static_cast<uInt>(max);
    // Until something is written or the member ends: a Read returns 0 only at the end.
    while (zlib_.avail_out == max) {
      if (zlib_.avail_in == 0 && !plain_ended_) {
        const std::size_t got = plain_->Read(input_.data(), input_.size());
        plain_ended_ = got == 0;
        zlib_.next_in = reinterpret_cast<Bytef*>(input_.data());
        zlib_.avail_in = static_cast<uInt>(got);
      }
      const int result = deflate(&zlib_, plain_ended_ ? Z_FINISH : Z_NO_FLUSH);
      if (result == Z_STREAM_END || (result != Z_OK && result != Z_BUF_ERROR)) {
        finished_ = true;
        break;
      }
    }
    return max - zlib_.avail_out;
  }

 private:
  std::shared_ptr<BodyStream> plain_;
  std::vector<char> input_;
  z_stream zlib_{};
  bool started_ = false;
  bool plain_ended_ = false;
  bool finished_ = false;
};

}  // namespace

std::optional<std::string> Gzip(absl::string_view body) {
  z_stream stream{};
  if (deflateInit2(&stream, Z_BEST_SPEED, Z_DEFLATED, kGzipWindowBits, kMemLevel,
                   Z_DEFAULT_STRATEGY) != Z_OK) {
    return std::nullopt;
  }
  std::string out(deflateBound(&stream, body.size()), '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(body.data()));
  stream.avail_in = static_cast<uInt>(body.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  const int result = deflate(&stream, Z_FINISH);
  out.resize(stream.total_out);
  deflateEnd(&stream);
  if (result != Z_STREAM_END) return std::nullopt;
  return out;
}

std::unique_ptr<BodyStream> GzipStream(std::shared_ptr<BodyStream> plain) {
  auto stream = std::make_unique<GzipBodyStream>(std::move(plain));
  if (!stream->Start()) return nullptr;
  return stream;
}

}  // namespace carbonroute::net
