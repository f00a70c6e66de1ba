// ThreadSanitizer annotations for Debian's absl::Mutex, CondVar and
// Notification (linked into the test binaries of the TSan build only,
// scripts/check-sanitizers thread).
//
// Debian's libabsl_synchronization is not built with -fsanitize=thread, so
// ThreadSanitizer cannot see that an absl::Mutex orders the accesses it
// guards, and reports every guarded access from two threads as a race. These
// definitions take the place of the library's (the executable's symbols come
// first), call the library's own through dlsym(RTLD_NEXT), and tell
// ThreadSanitizer what they did with __tsan_acquire/__tsan_release, the
// annotations abseil makes itself when it is built with ThreadSanitizer
// (absl/synchronization/mutex.cc, ABSL_TSAN_MUTEX_*). An annotation on the
// object's address: a lock acquires what every earlier unlock released.
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"

extern "C" void __tsan_acquire(void* address);
extern "C" void __tsan_release(void* address);
extern "C" void AnnotateIgnoreReadsBegin(const char* file, int line);
extern "C" void AnnotateIgnoreReadsEnd(const char* file, int line);

namespace {

template <typename Function>
Function Real(const char* mangled) {
  void* found = dlsym(RTLD_NEXT, mangled);
  if (found == nullptr) {
    std::fprintf(stderr, "tsan_absl_mutex: %s not found in libabsl_synchronization\n", mangled);
    std::abort();
  }
  return reinterpret_cast<Function>(found);
}

#define CARBONROUTE_REAL(type, mangled) static const auto real = Real<type>(mangled)

void Acquire(const void* address) { __tsan_acquire(const_cast<void*>(address)); }
void Release(const void* address) { __tsan_release(const_cast<void*>(address)); }

// A Condition is evaluated inside the library, after it has taken the mutex
// again (or by the thread about to release it): the evaluation must first
// acquire what the mutex's last holder released.
struct AnnotatedCondition {
  const absl::Condition* condition;
  const absl::Mutex* mutex;
  static bool Evaluate(void* self) {
    // The thread releasing the mutex evaluates waiters' conditions, reading
    // this object and the caller's Condition on the waiter's stack; the
    // library orders that, unseen. The evaluation's reads (of state the
    // mutex guards, which it holds) are not recorded; its writes are.
    const auto* annotated = static_cast<const AnnotatedCondition*>(self);
    AnnotateIgnoreReadsBegin(__FILE__, __LINE__);
    Acquire(annotated->mutex);
    const bool met = annotated->condition->Eval();
    AnnotateIgnoreReadsEnd(__FILE__, __LINE__);
    return met;
  }
};

}  // namespace

namespace absl {
inline namespace debian3 {

void Mutex::Lock() {
  CARBONROUTE_REAL(void (*)(Mutex*), "_ZN4absl7debian35Mutex4LockEv");
  real(this);
  Acquire(this);
}
void Mutex::ReaderLock() {
  CARBONROUTE_REAL(void (*)(Mutex*), "_ZN4absl7debian35Mutex10ReaderLockEv");
  real(this);
  Acquire(this);
}
bool Mutex::TryLock() {
  CARBONROUTE_REAL(bool (*)(Mutex*), "_ZN4absl7debian35Mutex7TryLockEv");
  const bool locked = real(this);
  if (locked) Acquire(this);
  return locked;
}
bool Mutex::ReaderTryLock() {
  CARBONROUTE_REAL(bool (*)(Mutex*), "_ZN4absl7debian35Mutex13ReaderTryLockEv");
  const bool locked = real(this);
  if (locked) Acquire(this);
  return locked;
}
void Mutex::Unlock() {
  CARBONROUTE_REAL(void (*)(Mutex*), "_ZN4absl7debian35Mutex6UnlockEv");
  Release(this);
  real(this);
}
void Mutex::ReaderUnlock() {
  CARBONROUTE_REAL(void (*)(Mutex*), "_ZN4absl7debian35Mutex12ReaderUnlockEv");
  Release(this);
  real(this);
}
void Mutex::LockWhen(const Condition& condition) {
  CARBONROUTE_REAL(void (*)(Mutex*, const Condition&),
                   "_ZN4absl7debian35Mutex8LockWhenERKNS0_9ConditionE");
  AnnotatedCondition annotated{&condition, this};
  real(this, absl::Condition(&AnnotatedCondition::Evaluate, &annotated));
  Acquire(this);
}
void Mutex::ReaderLockWhen(const Condition& condition) {
  CARBONROUTE_REAL(void (*)(Mutex*, const Condition&),
                   "_ZN4absl7debian35Mutex14ReaderLockWhenERKNS0_9ConditionE");
  AnnotatedCondition annotated{&condition, this};
  real(this, absl::Condition(&AnnotatedCondition::Evaluate, &annotated));
  Acquire(this);
}
bool Mutex::LockWhenWithTimeout(const Condition& condition, Duration timeout) {
  CARBONROUTE_REAL(bool (*)(Mutex*, const Condition&, Duration),
                   "_ZN4absl7debian35Mutex19LockWhenWithTimeoutERKNS0_9ConditionENS0_8DurationE");
  AnnotatedCondition annotated{&condition, this};
  const bool met = real(this, absl::Condition(&AnnotatedCondition::Evaluate, &annotated), timeout);
  Acquire(this);  // held either way
  return met;
}
bool Mutex::LockWhenWithDeadline(const Condition& condition, Time deadline) {
  CARBONROUTE_REAL(bool (*)(Mutex*, const Condition&, Time),
                   "_ZN4absl7debian35Mutex20LockWhenWithDeadlineERKNS0_9ConditionENS0_4TimeE");
  AnnotatedCondition annotated{&condition, this};
  const bool met = real(this, absl::Condition(&AnnotatedCondition::Evaluate, &annotated), deadline);
  Acquire(this);
  return met;
}
void Mutex::Await(const Condition& condition) {
  CARBONROUTE_REAL(void (*)(Mutex*, const Condition&),
                   "_ZN4absl7debian35Mutex5AwaitERKNS0_9ConditionE");
  Release(this);
  AnnotatedCondition annotated{&condition, this};
  real(this, absl::Condition(&AnnotatedCondition::Evaluate, &annotated));
  Acquire(this);
}
bool Mutex::AwaitWithTimeout(const Condition& condition, Duration timeout) {
  CARBONROUTE_REAL(bool (*)(Mutex*, const Condition&, Duration),
                   "_ZN4absl7debian35Mutex16AwaitWithTimeoutERKNS0_9ConditionENS0_8DurationE");
  Release(this);
  AnnotatedCondition annotated{&condition, this};
  const bool met = real(this, absl::Condition(&AnnotatedCondition::Evaluate, &annotated), timeout);
  Acquire(this);
  return met;
}
bool Mutex::AwaitWithDeadline(const Condition& condition, Time deadline) {
  CARBONROUTE_REAL(bool (*)(Mutex*, const Condition&, Time),
                   "_ZN4absl7debian35Mutex17AwaitWithDeadlineERKNS0_9ConditionENS0_4TimeE");
  Release(this);
  AnnotatedCondition annotated{&condition, this};
  const bool met = real(this, absl::Condition(&AnnotatedCondition::Evaluate, &annotated), deadline);
  Acquire(this);
  return met;
}

void CondVar::Wait(Mutex* mutex) {
  CARBONROUTE_REAL(void (*)(CondVar*, Mutex*), "_ZN4absl7debian37CondVar4WaitEPNS0_5MutexE");
  Release(mutex);
  real(this, mutex);
  Acquire(mutex);
}
bool CondVar::WaitWithTimeout(Mutex* mutex, Duration timeout) {
  CARBONROUTE_REAL(bool (*)(CondVar*, Mutex*, Duration),
                   "_ZN4absl7debian37CondVar15WaitWithTimeoutEPNS0_5MutexENS0_8DurationE");
  Release(mutex);
  const bool timed_out = real(this, mutex, timeout);
  Acquire(mutex);
  return timed_out;
}
bool CondVar::WaitWithDeadline(Mutex* mutex, Time deadline) {
  CARBONROUTE_REAL(bool (*)(CondVar*, Mutex*, Time),
                   "_ZN4absl7debian37CondVar16WaitWithDeadlineEPNS0_5MutexENS0_4TimeE");
  Release(mutex);
  const bool timed_out = real(this, mutex, deadline);
  Acquire(mutex);
  return timed_out;
}

void Notification::Notify() {
  CARBONROUTE_REAL(void (*)(Notification*), "_ZN4absl7debian312Notification6NotifyEv");
  Release(this);
  real(this);
}
void Notification::WaitForNotification() const {
  CARBONROUTE_REAL(void (*)(const Notification*),
                   "_ZNK4absl7debian312Notification19WaitForNotificationEv");
  real(this);
  Acquire(this);
}
bool Notification::WaitForNotificationWithTimeout(Duration timeout) const {
  CARBONROUTE_REAL(
      bool (*)(const Notification*, Duration),
      "_ZNK4absl7debian312Notification30WaitForNotificationWithTimeoutENS0_8DurationE");
  const bool notified = real(this, timeout);
  if (notified) Acquire(this);
  return notified;
}
bool Notification::WaitForNotificationWithDeadline(Time deadline) const {
  CARBONROUTE_REAL(bool (*)(const Notification*, Time),
                   "_ZNK4absl7debian312Notification31WaitForNotificationWithDeadlineENS0_4TimeE");
  const bool notified = real(this, deadline);
  if (notified) Acquire(this);
  return notified;
}

}  // namespace debian3
}  // namespace absl

namespace {

// abseil's deadlock detector records lock order in a graph guarded by an
// internal spinlock that ThreadSanitizer cannot see either (it is not an
// absl::Mutex), so two threads taking nested locks (a limiter's mutex, then
// the clock's) are reported as racing inside GraphCycles::InsertEdge.
// ThreadSanitizer finds lock-order inversions itself (second_deadlock_stack),
// so the detector is off in this build.
const bool kDeadlockDetectionOff = [] {
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  return true;
}();

}  // namespace
