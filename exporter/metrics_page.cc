#include "exporter/metrics_page.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "absl/strings/str_cat.h"
#include "exporter/process_metrics.h"
#include "exporter/text_exposition.h"

namespace carbonroute::exporter {
namespace {

// How much text the page prepares ahead of what the client has taken.
constexpr std::size_t kPieceBytes = 32 * 1024;

// The page: the registry's families one at a time, then each source's snapshot.
class MetricsPageStream : public net::BodyStream {
 public:
  MetricsPageStream(prometheus::Registry& registry,
                    const std::vector<std::shared_ptr<const ExpositionSource>>& sources)
      : families_(registry.Collect()) {
    for (prometheus::MetricFamily& family : ProcessMetrics().Collect()) {
      families_.push_back(std::move(family));
    }
    for (const auto& source : sources) snapshots_.push_back(source->Snapshot());
    text_.reserve(kPieceBytes + kPieceBytes / 4);
  }

  std::size_t Read(char* out, std::size_t max) override {
    if (taken_ == text_.size()) {
      text_.clear();
      taken_ = 0;
      Prepare();
    }
    const std::size_t n = std::min(max, text_.size() - taken_);
    std::memcpy(out, text_.data() + taken_, n);
    taken_ += n;
    return n;
  }

 private:
  // Appends the next family, or the next piece of a source, to text_ (nothing at the end).
  void Prepare() {
    while (text_.empty()) {
      if (next_family_ < families_.size()) {
        AppendFamily(text_, families_[next_family_]);
        families_[next_family_++] = {};  // its memory goes back as the page advances
      } else if (next_snapshot_ < snapshots_.size()) {
        if (!snapshots_[next_snapshot_]->WriteSome(text_, kPieceBytes)) {
          snapshots_[next_snapshot_++].reset();
        }
      } else {
        return;
      }
    }
  }

  std::vector<prometheus::MetricFamily> families_;
  std::vector<std::unique_ptr<ExpositionSnapshot>> snapshots_;
  std::size_t next_family_ = 0;
  std::size_t next_snapshot_ = 0;
  std::string text_;       // prepared, not all taken yet
  std::size_t taken_ = 0;  // of text_
};

}  // namespace

net::HttpHandler MetricsPageHandler(std::shared_ptr<prometheus::Registry> registry,
                                    std::function<void()> before_scrape,
                                    std::vector<std::shared_ptr<const ExpositionSource>> sources) {
  AddBuildInfo(*registry);
  return [registry = std::move(registry), before_scrape = std::move(before_scrape),
          sources = std::move(sources)](const net::HttpServerRequest&) {
    if (before_scrape) before_scrape();
    net::HttpServerResponse response{200, "text/plain; version=0.0.4; charset=utf-8", {}};
    response.stream = std::make_shared<MetricsPageStream>(*registry, sources);
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
