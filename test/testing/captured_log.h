// File: test/testing/captured_log.h
//
// What the rooms log (spdlog's default logger, cli/logging.h), captured for a
// test: while a CapturedLog lives, every line goes to a string, one line per
// message ("<level> <message>"); the previous logger is put back when it dies.
//
// Thread safety: the capture is safe to write from any thread (an _mt sink);
// create and destroy it on the test's thread, with no other test running in
// the process (gtest runs a binary's tests one at a time).
#ifndef CARBONROUTE_TEST_TESTING_CAPTURED_LOG_H_
#define CARBONROUTE_TEST_TESTING_CAPTURED_LOG_H_

#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <memory>
#include <sstream>
#include <string>

namespace carbonroute::testing {

class CapturedLog {
 public:
  CapturedLog() : previous_(spdlog::default_logger()) {
    auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(stream_);
    sink->set_pattern("%l %v");
    auto logger = std::make_shared<spdlog::logger>("captured", std::move(sink));
    logger->set_level(spdlog::level::info);  // as the programs log by default
    spdlog::set_default_logger(std::move(logger));
  }
  ~CapturedLog() { spdlog::set_default_logger(previous_); }
  CapturedLog(const CapturedLog&) = delete;
  CapturedLog& operator=(const CapturedLog&) = delete;

  std::string text() const { return stream_.str(); }
  int lines() const {
    const std::string all = stream_.str();
    return static_cast<int>(std::count(all.begin(), all.end(), '\n'));
  }
  // How many times `text` occurs in what was logged.
  int Occurrences(const std::string& text) const {
    const std::string all = stream_.str();
    int count = 0;
    for (std::size_t at = all.find(text); at != std::string::npos; at = all.find(text, at + 1)) {
      ++count;
    }
    return count;
  }

 private:
  std::ostringstream stream_;
  std::shared_ptr<spdlog::logger> previous_;
};

}  // namespace carbonroute::testing

#endif  // CARBONROUTE_TEST_TESTING_CAPTURED_LOG_H_
