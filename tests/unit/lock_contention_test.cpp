// Lock contention from hand-made lock and mmap_lock events: waits paired per task, credited to
// the lock's symbol and to the first caller outside the locking code; mmap_lock read and write
// waits apart; merging keeps the top entries.
#include "framework/trace/lock_contention.h"

#include <gtest/gtest.h>

namespace rtgate::trace {
namespace {

TraceEvent ev(std::int64_t ts, Ev type, pid_t pid, std::uint64_t addr, std::int64_t value) {
  TraceEvent e;
  e.ts = ts;
  e.type = type;
  e.pid = pid;
  e.addr = addr;
  e.value = value;
  return e;
}

KernelSymbols symbols() {
  KernelSymbols k;
  k.add(0xffffffff81000000, 'T', "queued_spin_lock_slowpath");
  k.add(0xffffffff81000100, 'T', "_raw_spin_lock");
  k.add(0xffffffff81000200, 'T', "dput");
  k.add(0xffffffff81000400, 'T', "task_rq_lock");
  k.add(0xffffffff81000500, 'T', "try_to_wake_up");
  k.add(0xffffffff82000000, 'D', "rename_lock");
  k.add(0xffffffff82000040, 'D', "other_data");
  k.sort();
  return k;
}

TEST(LockContention, PairsWaitsPerTaskAndNamesLockAndCaller) {
  ContentionCounter c;
  c.add(ev(1000, Ev::kContentionBegin, 7, 0xffffffff82000000, 1));  // SPIN on rename_lock
  TraceEvent stack = ev(1000, Ev::kStack, 7, 0, 0);
  stack.stack = {0xffffffff81000010, 0xffffffff81000110, 0xffffffff81000234};
  c.add(stack);
  c.add(ev(1500, Ev::kContentionBegin, 8, 0xffffffff82000000, 1));  // no stack
  c.add(ev(4000, Ev::kContentionEnd, 7, 0xffffffff82000000, 0));
  c.add(ev(4000, Ev::kContentionEnd, 8, 0xffffffff82000000, 0));
  c.add(ev(9000, Ev::kContentionEnd, 9, 0x1234, 0));  // began before the trace: ignored
  const LockContention r = c.result(symbols());
  ASSERT_EQ(r.locks.size(), 2u);
  EXPECT_EQ(r.locks[0].lock, "rename_lock");
  EXPECT_EQ(r.locks[0].kind, "SPIN");
  EXPECT_EQ(r.locks[0].caller, "dput+0x34");
  EXPECT_EQ(r.locks[0].wait.count, 1u);
  EXPECT_EQ(r.locks[0].wait.total_ns, 3000);
  EXPECT_EQ(r.locks[1].caller, "");
  EXPECT_EQ(r.locks[1].wait.total_ns, 2500);
}

TEST(LockContention, ALockingHelperIsNamedBesideItsCaller) {
  ContentionCounter c;
  c.add(ev(0, Ev::kContentionBegin, 7, 0xffff888100000000, 1));
  TraceEvent stack = ev(0, Ev::kStack, 7, 0, 0);
  stack.stack = {0xffffffff81000010, 0xffffffff81000410, 0xffffffff81000520};
  c.add(stack);
  c.add(ev(10, Ev::kContentionEnd, 7, 0xffff888100000000, 0));
  const LockContention r = c.result(symbols());
  ASSERT_EQ(r.locks.size(), 1u);
  EXPECT_EQ(r.locks[0].lock, "0xffff888100000000") << "a heap lock has no symbol";
  EXPECT_EQ(r.locks[0].caller, "try_to_wake_up+0x20 via task_rq_lock");
}

TEST(LockContention, MmapLockReadAndWriteWaits) {
  ContentionCounter c;
  c.add(ev(0, Ev::kMmapStartLocking, 1, 0xa, 1));
  TraceEvent got = ev(700, Ev::kMmapAcquired, 1, 0xa, 1);
  got.prio2 = 1;
  c.add(got);
  c.add(ev(1000, Ev::kMmapStartLocking, 2, 0xa, 0));
  got = ev(1100, Ev::kMmapAcquired, 2, 0xa, 0);
  got.prio2 = 1;
  c.add(got);
  const LockContention r = c.result(symbols());
  EXPECT_EQ(r.mmap_lock_write.count, 1u);
  EXPECT_EQ(r.mmap_lock_write.max_ns, 700);
  EXPECT_EQ(r.mmap_lock_read.total_ns, 100);
}

TEST(LockContention, MergeCombinesEntriesAndKeepsTheTop) {
  LockContention a, b;
  for (int i = 0; i < 12; ++i) {
    a.locks.push_back({.lock = "l" + std::to_string(i), .kind = "SPIN", .caller = "",
                       .wait = {.count = 1, .total_ns = 100 + i, .max_ns = 100 + i}});
  }
  b.locks.push_back({.lock = "l5", .kind = "SPIN", .caller = "",
                     .wait = {.count = 2, .total_ns = 1000, .max_ns = 900}});
  LockContention m;
  m.merge(a);
  ASSERT_EQ(m.locks.size(), LockContention::kTop);
  EXPECT_EQ(m.other_waits, 2u) << "the two smallest entries beyond the top";
  m.merge(b);
  ASSERT_EQ(m.locks.size(), LockContention::kTop);
  EXPECT_EQ(m.locks[0].lock, "l5");
  EXPECT_EQ(m.locks[0].wait.count, 3u);
  EXPECT_EQ(m.locks[0].wait.total_ns, 1105);
  EXPECT_EQ(m.locks[0].wait.max_ns, 900);
  EXPECT_EQ(m.other_waits, 2u);
  EXPECT_EQ(contention_flags(1 | 8), "SPIN|RT");
}

}  // namespace
}  // namespace rtgate::trace
