// File: net/curl_http_client.h
//
// HttpClient over libcurl: the only file that includes <curl/curl.h>.
// Redirects are followed (at most 5; libcurl drops credentials on a redirect
// to another host).
// curl_global_init runs once per process, on the first Create(). TLS peer
// verification is always on; gzip/deflate responses are decoded; proxies
// follow libcurl's environment variables (HTTPS_PROXY, NO_PROXY).
//
// Thread safety: Send() may be called concurrently: each call takes an idle
// handle from a pool (or makes one), so concurrent calls run in parallel, and
// a handle keeps its connections open for the next call that takes it.
#ifndef CARBONROUTE_NET_CURL_HTTP_CLIENT_H_
#define CARBONROUTE_NET_CURL_HTTP_CLIENT_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "net/http_client.h"

namespace carbonroute::net {

class CurlHttpClient final : public HttpClient {
 public:
  // kInternal if libcurl cannot be initialised.
  static absl::StatusOr<std::unique_ptr<CurlHttpClient>> Create(std::string user_agent);
  ~CurlHttpClient() override;

  CurlHttpClient(const CurlHttpClient&) = delete;
  CurlHttpClient& operator=(const CurlHttpClient&) = delete;

  absl::StatusOr<HttpResponse> Send(const HttpRequest& request) override;

 private:
  explicit CurlHttpClient(std::string user_agent) : user_agent_(std::move(user_agent)) {}
  // An idle handle, or a new one (nullptr if libcurl cannot make one).
  void* TakeHandle();
  void ReturnHandle(void* handle);

  absl::Mutex mutex_;
  std::vector<void*> idle_ ABSL_GUARDED_BY(mutex_);  // CURL*, not in use
  const std::string user_agent_;
};

}  // namespace carbonroute::net

#endif  // CARBONROUTE_NET_CURL_HTTP_CLIENT_H_
