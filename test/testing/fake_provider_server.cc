#include "test/testing/fake_provider_server.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <memory>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "test/testing/loopback_listener.h"

namespace carbonroute::testing {
namespace {

void SendAll(int fd, const std::string& data) {
  std::size_t sent = 0;
  while (sent < data.size()) {
    const ssize_t n = send(fd, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) return;
    sent += static_cast<std::size_t>(n);
  }
}

}  // namespace

FakeProviderServer::FakeProviderServer() {
  listen_fd_ = ListenOnLoopback("FakeProviderServer", port_);
  if (pipe(wake_fds_) != 0) wake_fds_[0] = wake_fds_[1] = -1;
  thread_ = std::thread([this] { Serve(); });
}

FakeProviderServer::~FakeProviderServer() {
  const char byte = 'x';
  if (write(wake_fds_[1], &byte, 1) < 0) {
  }
  thread_.join();
  close(listen_fd_);
  close(wake_fds_[0]);
  close(wake_fds_[1]);
}

std::string FakeProviderServer::base_url() const {
  return absl::StrCat("http://127.0.0.1:", port_);
}

void FakeProviderServer::Route(const std::string& path, Handler handler) {
  absl::MutexLock lock(&mutex_);
  routes_[path] = std::move(handler);
}

void FakeProviderServer::Script(const std::string& path, std::vector<FakeResponse> responses) {
  auto queue = std::make_shared<std::vector<FakeResponse>>(std::move(responses));
  auto next = std::make_shared<std::size_t>(0);
  Route(path, [queue, next](const FakeRequest&) {
    const std::size_t i = std::min(*next, queue->size() - 1);
    ++*next;
    return (*queue)[i];
  });
}

int FakeProviderServer::Count(const std::string& path) const {
  absl::MutexLock lock(&mutex_);
  int count = 0;
  for (const FakeRequest& request : requests_) count += request.path == path;
  return count;
}

std::vector<FakeRequest> FakeProviderServer::requests() const {
  absl::MutexLock lock(&mutex_);
  return requests_;
}

void FakeProviderServer::Serve() {
  for (;;) {
    pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {wake_fds_[0], POLLIN, 0}};
    if (poll(fds, 2, -1) < 0) continue;
    if (fds[1].revents != 0) break;
    const int fd = accept(listen_fd_, nullptr, nullptr);
    if (fd >= 0) HandleConnection(fd);
  }
  for (int fd : held_fds_) close(fd);
}

void FakeProviderServer::HandleConnection(int fd) {
  std::string head;
  char buffer[4096];
  while (head.find("\r\n\r\n") == std::string::npos) {
    const ssize_t n = recv(fd, buffer, sizeof(buffer), 0);
    if (n <= 0) {
      close(fd);
      return;
    }
    head.append(buffer, static_cast<std::size_t>(n));
  }
  FakeRequest request;
  std::vector<std::string> lines = absl::StrSplit(head.substr(0, head.find("\r\n\r\n")), "\r\n");
  std::vector<std::string> first = absl::StrSplit(lines[0], ' ');
  request.method = !first.empty() ? first[0] : "";
  request.target = first.size() > 1 ? first[1] : "/";
  request.path = request.target.substr(0, request.target.find('?'));
  for (std::size_t i = 1; i < lines.size(); ++i) {
    const std::size_t colon = lines[i].find(':');
    if (colon == std::string::npos) continue;
    request.headers[absl::AsciiStrToLower(lines[i].substr(0, colon))] =
        std::string(absl::StripAsciiWhitespace(lines[i].substr(colon + 1)));
  }
  Handler handler;
  {
    absl::MutexLock lock(&mutex_);
    requests_.push_back(request);
    auto it = routes_.find(request.path);
    if (it != routes_.end()) handler = it->second;
  }
  FakeResponse response =
      handler ? handler(request) : FakeResponse{404, "{\"error\":\"not scripted\"}", {}};
  if (response.mode == FakeResponse::Mode::kHang) {
    held_fds_.push_back(fd);
    return;
  }
  const std::size_t declared =
      response.body.size() + (response.mode == FakeResponse::Mode::kTruncated ? 100 : 0);
  std::string out = absl::StrCat("HTTP/1.1 ", response.status,
                                 " Scripted\r\nContent-Type: ", response.content_type,
                                 "\r\nContent-Length: ", declared, "\r\nConnection: close\r\n");
  for (const auto& [name, value] : response.headers)
    absl::StrAppend(&out, name, ": ", value, "\r\n");
  absl::StrAppend(&out, "\r\n", response.body);
  SendAll(fd, out);
  close(fd);
}

}  // namespace carbonroute::testing
