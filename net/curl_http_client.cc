#include "net/curl_http_client.h"

#include <curl/curl.h>

#include <mutex>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace carbonroute::net {
namespace {

size_t AppendBody(char* data, size_t size, size_t count, void* user) {
  static_cast<std::string*>(user)->append(data, size * count);
  return size * count;
}

// The write target of a streaming request: 2xx bodies go to on_body.
struct StreamTarget {
  CURL* curl;
  const std::function<bool(std::string_view)>* on_body;
  std::string* body;
  bool stopped = false;  // on_body answered false
};

size_t StreamBody(char* data, size_t size, size_t count, void* user) {
  auto* target = static_cast<StreamTarget*>(user);
  long status = 0;
  curl_easy_getinfo(target->curl, CURLINFO_RESPONSE_CODE, &status);
  if (status < 200 || status > 299) {
    target->body->append(data, size * count);
  } else if (!(*target->on_body)(std::string_view(data, size * count))) {
    target->stopped = true;
    return 0;  // libcurl ends the transfer with CURLE_WRITE_ERROR
  }
  return size * count;
}

int CheckCancelled(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  return (*static_cast<const std::function<bool()>*>(user))() ? 1 : 0;
}

size_t AppendHeader(char* data, size_t size, size_t count, void* user) {
  absl::string_view line(data, size * count);
  const std::size_t colon = line.find(':');
  if (colon != absl::string_view::npos) {
    auto* headers = static_cast<std::map<std::string, std::string>*>(user);
    (*headers)[absl::AsciiStrToLower(line.substr(0, colon))] =
        std::string(absl::StripAsciiWhitespace(line.substr(colon + 1)));
  }
  return size * count;
}

// The query string is left out of messages: some APIs take credentials there.
absl::Status TransportError(CURLcode code, absl::string_view url, const char* detail) {
  url = url.substr(0, url.find('?'));
  const std::string message = absl::StrCat(
      "HTTP request to ", url, " failed: ", *detail ? detail : curl_easy_strerror(code));
  switch (code) {
    case CURLE_OPERATION_TIMEDOUT:
      return absl::DeadlineExceededError(message);
    case CURLE_ABORTED_BY_CALLBACK:
      return absl::CancelledError(message);
    case CURLE_URL_MALFORMAT:
    case CURLE_UNSUPPORTED_PROTOCOL:
      return absl::InvalidArgumentError(message);
    default:
      return absl::UnavailableError(message);
  }
}

}  // namespace

absl::StatusOr<std::unique_ptr<CurlHttpClient>> CurlHttpClient::Create(std::string user_agent) {
  static const CURLcode init = curl_global_init(CURL_GLOBAL_DEFAULT);
  if (init != CURLE_OK) {
    return absl::InternalError(absl::StrCat("curl_global_init: ", curl_easy_strerror(init)));
  }
  std::unique_ptr<CurlHttpClient> client(new CurlHttpClient(std::move(user_agent)));
  void* handle = client->TakeHandle();
  if (handle == nullptr) return absl::InternalError("curl_easy_init failed");
  client->ReturnHandle(handle);
  return client;
}

CurlHttpClient::~CurlHttpClient() {
  absl::MutexLock lock(&mutex_);
  for (void* handle : idle_) curl_easy_cleanup(static_cast<CURL*>(handle));
}

void* CurlHttpClient::TakeHandle() {
  {
    absl::MutexLock lock(&mutex_);
    if (!idle_.empty()) {
      void* handle = idle_.back();
      idle_.pop_back();
      return handle;
    }
  }
  return curl_easy_init();
}

void CurlHttpClient::ReturnHandle(void* handle) {
  absl::MutexLock lock(&mutex_);
  idle_.push_back(handle);
}

absl::StatusOr<HttpResponse> CurlHttpClient::Send(const HttpRequest& request) {
  CURL* curl = static_cast<CURL*>(TakeHandle());
  if (curl == nullptr) return absl::InternalError("curl_easy_init failed");
  struct Release {
    CurlHttpClient* client;
    CURL* curl;
    ~Release() { client->ReturnHandle(curl); }
  } release{this, curl};
  curl_easy_reset(curl);
  HttpResponse response;
  char error[CURL_ERROR_SIZE] = "";
  curl_slist* headers = nullptr;
  for (const auto& [name, value] : request.headers) {
    headers = curl_slist_append(headers, absl::StrCat(name, ": ", value).c_str());
  }
  const long timeout_ms = static_cast<long>(absl::ToInt64Milliseconds(request.timeout));
  std::string url = request.url;
  std::string connect_to;  // "name:port:host:port": verify `tls_server_name`, connect to the host
  curl_slist* connect_to_list = nullptr;
  if (!request.tls_server_name.empty()) {
    CURLU* parsed = curl_url();
    char* host = nullptr;
    char* port = nullptr;
    if (curl_url_set(parsed, CURLUPART_URL, request.url.c_str(), 0) == CURLUE_OK &&
        curl_url_get(parsed, CURLUPART_HOST, &host, 0) == CURLUE_OK &&
        curl_url_get(parsed, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT) == CURLUE_OK &&
        curl_url_set(parsed, CURLUPART_HOST, request.tls_server_name.c_str(), 0) == CURLUE_OK) {
      char* rewritten = nullptr;
      if (curl_url_get(parsed, CURLUPART_URL, &rewritten, 0) == CURLUE_OK) {
        url = rewritten;
        curl_free(rewritten);
        connect_to = absl::StrCat(request.tls_server_name, ":", port, ":", host, ":", port);
        connect_to_list = curl_slist_append(nullptr, connect_to.c_str());
      }
    }
    curl_free(host);
    curl_free(port);
    curl_url_cleanup(parsed);
  }
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  if (connect_to_list != nullptr) curl_easy_setopt(curl, CURLOPT_CONNECT_TO, connect_to_list);
  curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, request.method.c_str());
  if (request.method == "POST" || !request.body.empty()) {
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, request.body.data());
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE,
                     static_cast<curl_off_t>(request.body.size()));
  }
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(curl, CURLOPT_USERAGENT, user_agent_.c_str());
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, timeout_ms);
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS,
                   static_cast<long>(absl::ToInt64Milliseconds(request.connect_timeout)));
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 1L);  // e.g. a proxy's 301 to a trailing slash
  curl_easy_setopt(curl, CURLOPT_MAXREDIRS, 5L);
  const long verify = request.insecure_skip_tls_verify ? 0L : 1L;
  curl_easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, verify);
  curl_easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, verify * 2);
  curl_easy_setopt(curl, CURLOPT_ACCEPT_ENCODING, "");  // every encoding libcurl can decode
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, error);
  if (!request.ca_file.empty()) curl_easy_setopt(curl, CURLOPT_CAINFO, request.ca_file.c_str());
  if (!request.client_cert_file.empty()) {
    curl_easy_setopt(curl, CURLOPT_SSLCERT, request.client_cert_file.c_str());
    curl_easy_setopt(curl, CURLOPT_SSLKEY, request.client_key_file.c_str());
  }
  // In-memory PEM (libcurl copies each blob; CURL_BLOB_COPY).
  auto blob = [](const std::string& pem) {
    return curl_blob{const_cast<char*>(pem.data()), pem.size(), CURL_BLOB_COPY};
  };
  curl_blob ca_blob = blob(request.ca_pem), cert_blob = blob(request.client_cert_pem),
            key_blob = blob(request.client_key_pem);
  if (!request.ca_pem.empty()) curl_easy_setopt(curl, CURLOPT_CAINFO_BLOB, &ca_blob);
  if (!request.client_cert_pem.empty()) {
    curl_easy_setopt(curl, CURLOPT_SSLCERT_BLOB, &cert_blob);
    curl_easy_setopt(curl, CURLOPT_SSLCERTTYPE, "PEM");
  }
  if (!request.client_key_pem.empty()) {
    curl_easy_setopt(curl, CURLOPT_SSLKEY_BLOB, &key_blob);
    curl_easy_setopt(curl, CURLOPT_SSLKEYTYPE, "PEM");
  }
  StreamTarget stream{curl, &request.on_body, &response.body};
  if (request.on_body) {
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, &StreamBody);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &stream);
  } else {
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, &AppendBody);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &response.body);
  }
  if (request.cancelled) {
    curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, &CheckCancelled);
    curl_easy_setopt(curl, CURLOPT_XFERINFODATA, &request.cancelled);
    curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
  }
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, &AppendHeader);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &response.headers);
  const CURLcode code = curl_easy_perform(curl);
  curl_slist_free_all(headers);
  curl_slist_free_all(connect_to_list);
  if (stream.stopped) {
    return absl::CancelledError(absl::StrCat("HTTP request to ",
                                             request.url.substr(0, request.url.find('?')),
                                             ": the stream was ended by its reader"));
  }
  if (code != CURLE_OK) return TransportError(code, request.url, error);
  long status = 0;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
  response.status = static_cast<int>(status);
  return response;
}

}  // namespace carbonroute::net
