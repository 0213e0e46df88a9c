// The lock concepts every lock in locks/ satisfies, so std::lock_guard, std::unique_lock and
// std::shared_lock work with all of them and the suites can be written once.
#pragma once

#include <concepts>

namespace rtgate::locks {

template <class L>
concept Lockable = requires(L& l) {
  l.lock();
  l.unlock();
  { l.try_lock() } -> std::same_as<bool>;
};

template <class L>
concept SharedLockable = Lockable<L> && requires(L& l) {
  l.lock_shared();
  l.unlock_shared();
  { l.try_lock_shared() } -> std::same_as<bool>;
};

}  // namespace rtgate::locks
