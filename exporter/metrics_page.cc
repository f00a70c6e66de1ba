#include "exporter/metrics_page.h"

#include <atomic>
#include <ostream>
#include <streambuf>
#include <string>

#include "prometheus/text_serializer.h"

namespace carbonroute::exporter {
namespace {

// An output stream buffer that appends to a std::string the caller reserved,
// where std::ostringstream would grow by doubling and then copy the page out.
class AppendToString : public std::streambuf {
 public:
  explicit AppendToString(std::string& out) : out_(out) {}

 protected:
  std::streamsize xsputn(const char* text, std::streamsize n) override {
    out_.append(text, static_cast<std::size_t>(n));
    return n;
  }
  int_type overflow(int_type c) override {
    if (!traits_type::eq_int_type(c, traits_type::eof())) out_.push_back(traits_type::to_char_type(c));
    return traits_type::not_eof(c);
  }

 private:
  std::string& out_;
};

}  // namespace

HttpHandler MetricsPageHandler(std::shared_ptr<prometheus::Registry> registry) {
  auto last_size = std::make_shared<std::atomic<std::size_t>>(0);
  return [registry = std::move(registry), last_size](const HttpServerRequest&) {
    HttpServerResponse response{200, "text/plain; version=0.0.4; charset=utf-8", {}};
    const std::size_t expected = last_size->load(std::memory_order_relaxed);
    response.body.reserve(expected + expected / 16 + 4096);
    AppendToString buffer(response.body);
    std::ostream out(&buffer);
    prometheus::TextSerializer().Serialize(out, registry->Collect());
    last_size->store(response.body.size(), std::memory_order_relaxed);
    return response;
  };
}

}  // namespace carbonroute::exporter
