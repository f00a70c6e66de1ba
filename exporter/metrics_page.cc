#include "exporter/metrics_page.h"

#include <atomic>
#include <ostream>
#include <streambuf>
#include <string>

#include "absl/strings/str_cat.h"
#include "exporter/process_metrics.h"
#include "prometheus/text_serializer.h"

namespace carbonroute::exporter {
namespace {

// An output stream buffer that appends to a std::string the caller reserved,
// where std::ostringstream would grow by doubling and then copy the page out.
// Writes go to a 16 KiB put area first: the serializer emits the page in
// pieces of a few bytes, and a put area turns each into a memcpy rather than
// a virtual call and a string append.
class AppendToString : public std::streambuf {
 public:
  explicit AppendToString(std::string& out) : out_(out) {
    setp(buffer_, buffer_ + sizeof(buffer_));
  }
  ~AppendToString() override { Flush(); }

  void Flush() {
    out_.append(pbase(), static_cast<std::size_t>(pptr() - pbase()));
    setp(buffer_, buffer_ + sizeof(buffer_));
  }

 protected:
  int_type overflow(int_type c) override {
    Flush();
    if (!traits_type::eq_int_type(c, traits_type::eof())) sputc(traits_type::to_char_type(c));
    return traits_type::not_eof(c);
  }
  int sync() override {
    Flush();
    return 0;
  }

 private:
  std::string& out_;
  char buffer_[16 * 1024];
};

}  // namespace

net::HttpHandler MetricsPageHandler(std::shared_ptr<prometheus::Registry> registry,
                                    std::function<void()> before_scrape) {
  auto last_size = std::make_shared<std::atomic<std::size_t>>(0);
  AddBuildInfo(*registry);
  return [registry = std::move(registry), last_size,
          before_scrape = std::move(before_scrape)](const net::HttpServerRequest&) {
    if (before_scrape) before_scrape();
    net::HttpServerResponse response{200, "text/plain; version=0.0.4; charset=utf-8", {}};
    const std::size_t expected = last_size->load(std::memory_order_relaxed);
    response.body.reserve(expected + expected / 16 + 4096);
    AppendToString buffer(response.body);
    std::ostream out(&buffer);
    std::vector<prometheus::MetricFamily> families = registry->Collect();
    for (prometheus::MetricFamily& family : ProcessMetrics().Collect()) {
      families.push_back(std::move(family));
    }
    prometheus::TextSerializer().Serialize(out, families);
    buffer.Flush();
    last_size->store(response.body.size(), std::memory_order_relaxed);
    return response;
  };
}

net::HttpHandler LandingPageHandler(const std::string& title,
                                    const std::vector<std::pair<std::string, std::string>>& paths) {
  std::string page =
      absl::StrCat("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>",
                   title, "</title></head>\n<body><h1>", title, "</h1>\n<ul>\n");
  for (const auto& [path, what] : paths) {
    absl::StrAppend(&page, "<li><a href=\"", path, "\">", path, "</a>: ", what, "</li>\n");
  }
  absl::StrAppend(&page, "</ul>\n</body></html>\n");
  return [page = std::move(page)](const net::HttpServerRequest& request) {
    if (request.path != "/") return net::HttpServerResponse{404, "text/plain", "not found\n"};
    return net::HttpServerResponse{200, "text/html; charset=utf-8", page};
  };
}

}  // namespace carbonroute::exporter
