#include "kube/controller_loop.h"

#include <algorithm>
#include <utility>

namespace carbonroute::kube {

ControllerLoop::ControllerLoop(ControllerLoopOptions options, const KubeClient& api, Clock& clock,
                               Reconciler& reconciler, LeaseElection* lease)
    : options_(std::move(options)),
      api_(api),
      clock_(clock),
      reconciler_(reconciler),
      lease_(lease),
      last_pass_end_unix_(absl::ToUnixSeconds(clock.Now())) {}

ControllerLoop::~ControllerLoop() { watches_.clear(); }

void ControllerLoop::RunOnce() {
  ControllerPass pass;
  pass.now = clock_.Now();
  pass.leading = lease_ == nullptr || lease_->Tick(pass.now);
  if (!pass.leading && lease_ != nullptr) pass.lease_error = lease_->last_error();
  pass.became_leader = pass.leading && !led_last_pass_;
  led_last_pass_ = pass.leading;
  leading_ = pass.leading;
  if (pass.became_leader) next_list_ = absl::InfinitePast();  // a new leader looks at once
  const bool due = changed_.exchange(false) || pass.now >= next_list_;
  if (due && (pass.leading || options_.list_while_following)) {
    absl::StatusOr<ListedVersions> versions = reconciler_.List(pass.now);
    if (versions.ok()) {
      pass.listed = true;
      last_list_ok_unix_ = absl::ToUnixSeconds(pass.now);
      next_list_ = pass.now + options_.resync;
      for (auto& watch : watches_) {
        const auto version = versions->find(watch->collection().path);
        if (version != versions->end()) watch->Start(version->second);
      }
    } else {
      next_list_ = pass.now + std::min(options_.resync, kListRetry);
    }
  }
  reconciler_.Reconcile(pass);
  last_pass_end_unix_ = absl::ToUnixSeconds(clock_.Now());
}

absl::Time ControllerLoop::NextWake() const {
  absl::Time wake = reconciler_.NextDue();
  if (led_last_pass_ || options_.list_while_following) wake = std::min(wake, next_list_);
  if (lease_ != nullptr) wake = std::min(wake, lease_->next_tick());
  return wake;
}

bool ControllerLoop::turning() const {
  return Turning(clock_.Now() - absl::FromUnixSeconds(last_pass_end_unix_), options_.resync);
}

bool ControllerLoop::healthy() const {
  if (!leading_ && !options_.list_while_following) return true;
  return clock_.Now() - absl::FromUnixSeconds(last_list_ok_unix_) <= 3 * options_.resync;
}

void ControllerLoop::Run(absl::Notification& stop) {
  for (const WatchedCollection& collection : options_.watched) {
    watches_.push_back(std::make_unique<ChangeWatch>(api_, collection, options_.watch_timeout,
                                                     [this] { changed_ = true; }));
  }
  while (!stop.HasBeenNotified()) {
    RunOnce();
    absl::Time wake = NextWake();
    if (!watches_.empty()) wake = std::min(wake, clock_.Now() + kWatchLatency);
    if (clock_.WaitUntil(wake, stop)) break;
  }
  watches_.clear();  // stops them
}

}  // namespace carbonroute::kube
