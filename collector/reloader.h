// File: collector/reloader.h
//
// SIGHUP for carbonroute-collector: reads the configuration file again,
// applies the command line's node overrides to it, and hands it to the
// attached target (CollectorDaemon::ReloadPeers: collector/peer_set.h's). A
// file that no longer loads, or a configuration the target refuses, is logged
// and changes nothing. Only `rtt.peers` is reloaded: a warning names every
// other top-level section that differs from the file as it was at start
// (`providers`, `poll`, ...), and the target warns of the rest of `rtt`
// (`rtt.probe`, `rtt.static_matrix`, `rtt.kubernetes`, `rtt.peer_selection`):
// those need a restart.
//
// Ownership: borrows the attached target, which must stay alive until
// Attach(nullptr) returns.
// Thread safety: Reload() and Attach() may be called from any thread;
// Attach(nullptr) waits for a reload in progress.
#ifndef CARBONROUTE_COLLECTOR_RELOADER_H_
#define CARBONROUTE_COLLECTOR_RELOADER_H_

#include <functional>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "config/collector_config.h"

namespace carbonroute::collector {

// --node-name/--node-region/--node-location: each, if not empty, replaces the
// file's value, at start and at every reload.
struct NodeOverrides {
  std::string name, region, location;
  void ApplyTo(CollectorConfig& config) const;
};

class Reloader {
 public:
  // Receives the reloaded configuration; an error keeps the running one.
  using Target = std::function<absl::Status(const CollectorConfig&)>;

  // Reads the file as it is now: what the running collector started with.
  Reloader(std::string path, NodeOverrides overrides);

  Reloader(const Reloader&) = delete;
  Reloader& operator=(const Reloader&) = delete;

  // The target of later reloads; nullptr (the start) makes Reload() do nothing.
  void Attach(Target target);

  // Loads the file and applies it. Returns what went wrong (also logged):
  // the loader's error (kNotFound, kInvalidArgument) or the target's;
  // kFailedPrecondition when nothing is attached.
  absl::Status Reload();

 private:
  const std::string path_;
  const NodeOverrides overrides_;
  const std::string started_with_;  // the file's text at start
  absl::Mutex mutex_;
  Target target_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace carbonroute::collector

#endif  // CARBONROUTE_COLLECTOR_RELOADER_H_
