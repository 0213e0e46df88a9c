// Lock costs, each of our locks beside its pthread baseline:
//   Uncontended/L      one thread, lock + unlock
//   Contended/L/threads:N   N threads (1, 2, 4) hammering one lock around a tiny critical
//                           section; items_per_second is the total acquisition rate
//   ReadSide/L/threads:N    rw locks: lock_shared + unlock_shared
// Run: build/bench_locks [--benchmark_filter=...]. Figures go in the closing notes, not tests;
// tests/bench/ratios.sh prints each lock's ratio to its pthread model.
#include <benchmark/benchmark.h>

#include <cstdint>

#include "locks/futex_mutex.h"
#include "locks/mcs_lock.h"
#include "locks/pi_mutex.h"
#include "locks/pi_rw_sem.h"
#include "locks/pthread_locks.h"
#include "locks/qspinlock.h"
#include "locks/rw_sem.h"
#include "locks/tas_lock.h"
#include "locks/ticket_lock.h"
#include "locks/ttas_lock.h"

namespace {

using namespace rtgate::locks;

template <class L>
void Uncontended(benchmark::State& state) {
  L lock;
  for (auto _ : state) {
    lock.lock();
    benchmark::ClobberMemory();
    lock.unlock();
  }
  state.SetItemsProcessed(state.iterations());
}

template <class L>
struct Shared {
  L lock;
  alignas(64) std::uint64_t counter = 0;
};

template <class L>
void Contended(benchmark::State& state) {
  static Shared<L> shared;
  for (auto _ : state) {
    shared.lock.lock();
    ++shared.counter;
    benchmark::ClobberMemory();
    shared.lock.unlock();
  }
  state.SetItemsProcessed(state.iterations());
}

template <class L>
void ReadSide(benchmark::State& state) {
  static L lock;
  for (auto _ : state) {
    lock.lock_shared();
    benchmark::ClobberMemory();
    lock.unlock_shared();
  }
  state.SetItemsProcessed(state.iterations());
}

#define LOCK_BENCH(L)                 \
  BENCHMARK_TEMPLATE(Uncontended, L); \
  BENCHMARK_TEMPLATE(Contended, L)->Threads(1)->Threads(2)->Threads(4)->UseRealTime()

#define RW_BENCH(L) \
  LOCK_BENCH(L);    \
  BENCHMARK_TEMPLATE(ReadSide, L)->Threads(1)->Threads(2)->Threads(4)->UseRealTime()

// Spinlocks, then their baseline.
LOCK_BENCH(TasLock);
LOCK_BENCH(TtasLock);
LOCK_BENCH(TicketLock);
LOCK_BENCH(McsLock);
LOCK_BENCH(QSpinLock);
LOCK_BENCH(PthreadSpinlock);
// Sleeping locks, then their baselines.
LOCK_BENCH(FutexMutex);
LOCK_BENCH(PiMutex);
LOCK_BENCH(PthreadMutex);
LOCK_BENCH(PthreadMutexAdaptive);
LOCK_BENCH(PthreadMutexPi);
// Reader/writer locks, then their baselines.
RW_BENCH(RwSem);
RW_BENCH(PiRwSem);
RW_BENCH(PthreadRwlockReader);
RW_BENCH(PthreadRwlockWriter);
RW_BENCH(StdSharedMutex);

}  // namespace

BENCHMARK_MAIN();
