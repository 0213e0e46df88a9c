// The lock catalogue: every lock by name, with the properties a suite needs to decide whether
// and how to run it (spins? PI? FIFO-fair? safe when SCHED_FIFO threads outnumber CPUs?), and a
// factory for a type-erased instance.
//
// Each lock header registers itself with RTGATE_LOCK next to its class; the build generates one
// translation unit that includes every header in locks/, so there is no list to edit. A lock
// with per-thread state gives its class a static prepare_thread(), which the registration finds.
#pragma once

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <typeindex>
#include <typeinfo>
#include <vector>

#include "locks/lockable.h"

namespace rtgate::locks {

enum class LockKind { kSpin, kSleep, kRw };
enum class PiSupport { kNone, kWriterOnly, kFull };

inline const char* to_string(LockKind k) {
  return k == LockKind::kSpin ? "spin" : k == LockKind::kSleep ? "sleep" : "rw";
}
inline const char* to_string(PiSupport p) {
  return p == PiSupport::kNone ? "none" : p == PiSupport::kWriterOnly ? "writer-only" : "full";
}

// A lock behind virtual calls, for suites that iterate the catalogue. Locks without a shared
// mode take the exclusive one for lock_shared().
class AnyLock {
 public:
  virtual ~AnyLock() = default;
  virtual void lock() = 0;
  virtual void unlock() = 0;
  virtual bool try_lock() = 0;
  virtual void lock_shared() = 0;
  virtual void unlock_shared() = 0;
  virtual bool try_lock_shared() = 0;
};

template <Lockable L>
class LockAdapter final : public AnyLock {
 public:
  void lock() override { lock_.lock(); }
  void unlock() override { lock_.unlock(); }
  bool try_lock() override { return lock_.try_lock(); }
  void lock_shared() override {
    if constexpr (SharedLockable<L>) {
      lock_.lock_shared();
    } else {
      lock_.lock();
    }
  }
  void unlock_shared() override {
    if constexpr (SharedLockable<L>) {
      lock_.unlock_shared();
    } else {
      lock_.unlock();
    }
  }
  bool try_lock_shared() override {
    if constexpr (SharedLockable<L>) {
      return lock_.try_lock_shared();
    } else {
      return lock_.try_lock();
    }
  }

 private:
  L lock_;
};

struct LockInfo {
  std::string name;  // lowercase, e.g. "pi_mutex"
  LockKind kind = LockKind::kSleep;
  PiSupport pi = PiSupport::kNone;
  bool fifo = false;                      // waiters are served in arrival order
  bool safe_fifo_oversubscribed = false;  // no livelock when FIFO threads outnumber CPUs
  std::string summary;
  std::function<std::unique_ptr<AnyLock>()> make;
  // The lock's per-thread state set up ahead of the measured path (the lock type's static
  // prepare_thread(), when it has one): run by prepare_lock_thread() in every thread that may
  // take a lock, where allocating is allowed.
  void (*prepare_thread)() noexcept = nullptr;
  std::type_index type{typeid(void)};  // the registered class, for tests written per type
};

class LockCatalogue {
 public:
  static LockCatalogue& instance() {
    static LockCatalogue catalogue;
    return catalogue;
  }
  void add(LockInfo info) {
    if (find(info.name) != nullptr) {
      std::fprintf(stderr, "rtgate: lock '%s' is registered twice\n", info.name.c_str());
      std::abort();
    }
    const auto pos = std::lower_bound(locks_.begin(), locks_.end(), info,
                                      [](const auto& a, const auto& b) { return a.name < b.name; });
    locks_.insert(pos, std::move(info));
  }
  // Every lock, sorted by name.
  const std::vector<LockInfo>& all() const { return locks_; }
  const LockInfo* find(const std::string& name) const {
    for (const LockInfo& l : locks_) {
      if (l.name == name) return &l;
    }
    return nullptr;
  }
  // The entry of lock class L, or nullptr when L is not registered.
  template <class L>
  const LockInfo* of() const {
    for (const LockInfo& l : locks_) {
      if (l.type == std::type_index(typeid(L))) return &l;
    }
    return nullptr;
  }

 private:
  std::vector<LockInfo> locks_;
};

template <Lockable L>
struct LockRegistrar {
  explicit LockRegistrar(LockInfo info) {
    info.make = [] { return std::make_unique<LockAdapter<L>>(); };
    info.type = std::type_index(typeid(L));
    if constexpr (requires { L::prepare_thread(); }) {
      info.prepare_thread = []() noexcept { static_cast<void>(L::prepare_thread()); };
    }
    LockCatalogue::instance().add(std::move(info));
  }
};

}  // namespace rtgate::locks

// RTGATE_LOCK(TicketLock, {.name = "ticket", .kind = LockKind::kSpin, ...});
#define RTGATE_LOCK(Type, ...) \
  inline const ::rtgate::locks::LockRegistrar<Type> rtgate_lock_registrar_##Type { __VA_ARGS__ }
