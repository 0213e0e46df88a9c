#include "framework/trace/event_decoder.h"

#include <traceevent/event-parse.h>

#include <cstring>
#include <string_view>

#include "base/text/utf8.h"

namespace rtgate::trace {
namespace {

std::uint64_t number(tep_format_field* f, const tep_record* r) {
  unsigned long long v = 0;
  if (f == nullptr || tep_read_number_field(f, r->data, &v) != 0) return 0;
  return v;
}

// A fixed char[] field (comm), up to its NUL.
std::string chars(tep_format_field* f, const tep_record* r) {
  if (f == nullptr || f->offset + f->size > r->size) return {};
  const char* p = static_cast<const char*>(r->data) + f->offset;
  return text::to_valid_utf8({p, strnlen(p, static_cast<std::size_t>(f->size))});
}

// A __data_loc or trailing char[] field (irq name, marker text): located through libtraceevent.
std::string dynamic_string(tep_format_field* f, tep_record* r) {
  if (f == nullptr) return {};
  unsigned offset = f->offset, size = static_cast<unsigned>(f->size);
  if (f->flags & TEP_FIELD_IS_DYNAMIC) {
    unsigned long long loc = 0;
    if (tep_read_number_field(f, r->data, &loc) != 0) return {};
    offset = static_cast<unsigned>(loc & 0xffff);
    size = static_cast<unsigned>(loc >> 16);
    if (f->flags & TEP_FIELD_IS_RELATIVE) offset += f->offset + static_cast<unsigned>(f->size);
  } else if (size == 0) {
    size = static_cast<unsigned>(r->size) - offset;  // char buf[]: the rest of the record
  }
  if (offset >= static_cast<unsigned>(r->size)) return {};
  size = std::min(size, static_cast<unsigned>(r->size) - offset);
  const char* p = static_cast<const char*>(r->data) + offset;
  return text::to_valid_utf8({p, strnlen(p, size)});
}

struct Known {
  std::string_view system, name;
  Ev type;
  std::initializer_list<const char*> fields;
};

const Known kKnown[] = {
    {"sched",
     "sched_switch",
     Ev::kSwitch,
     {"prev_pid", "prev_prio", "prev_comm", "next_pid", "next_prio", "next_comm", "prev_state"}},
    {"sched", "sched_waking", Ev::kWaking, {"pid", "prio", "comm", "target_cpu"}},
    {"sched", "sched_wakeup", Ev::kWakeup, {"pid", "prio", "comm", "target_cpu"}},
    {"sched", "sched_migrate_task", Ev::kMigrate, {"pid", "prio", "comm", "dest_cpu"}},
    {"sched", "sched_pi_setprio", Ev::kPiSetprio, {"pid", "oldprio", "comm", "newprio"}},
    {"irq", "irq_handler_entry", Ev::kIrqEntry, {"irq", "name"}},
    {"irq", "irq_handler_exit", Ev::kIrqExit, {"irq"}},
    {"irq", "softirq_entry", Ev::kSoftirqEntry, {"vec"}},
    {"irq", "softirq_exit", Ev::kSoftirqExit, {"vec"}},
    {"timer", "hrtimer_start", Ev::kHrtimerStart, {"hrtimer", "expires"}},
    {"timer", "hrtimer_expire_entry", Ev::kHrtimerExpire, {"hrtimer"}},
    {"ftrace", "print", Ev::kMarker, {"buf"}},
    {"lock", "contention_begin", Ev::kContentionBegin, {"lock_addr", "flags"}},
    {"lock", "contention_end", Ev::kContentionEnd, {"lock_addr", "ret"}},
    {"mmap_lock", "mmap_lock_start_locking", Ev::kMmapStartLocking, {"mm", "write"}},
    {"mmap_lock", "mmap_lock_acquire_returned", Ev::kMmapAcquired, {"mm", "write", "success"}},
    {"ftrace", "kernel_stack", Ev::kStack, {"size", "caller"}},
};

bool ends_with(std::string_view s, std::string_view tail) {
  return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

}  // namespace

const EventDecoder::Fields& EventDecoder::fields_of(tep_event* event) {
  auto it = fields_.find(event->id);
  if (it != fields_.end()) return it->second;
  Fields f;
  const std::string_view system = event->system, name = event->name;
  for (const Known& k : kKnown) {
    if (k.system != system || k.name != name) continue;
    f.type = k.type;
    int i = 0;
    for (const char* field : k.fields) f.f[i++] = tep_find_field(event, field);
  }
  if (system == "irq_vectors" && (ends_with(name, "_entry") || ends_with(name, "_exit"))) {
    const bool entry = ends_with(name, "_entry");
    f.type = entry ? Ev::kVectorEntry : Ev::kVectorExit;
    f.name = std::string(name.substr(0, name.size() - (entry ? 6 : 5)));
  }
  return fields_.emplace(event->id, std::move(f)).first->second;
}

namespace {

// A stacktrace trigger's return addresses: `n` of them in `caller`, bounded by the record.
std::vector<std::uint64_t> stack_of(tep_format_field* caller, int n, tep_record* r) {
  std::vector<std::uint64_t> out;
  if (caller == nullptr) return out;
  const auto* p = static_cast<const unsigned char*>(r->data) + caller->offset;
  const int room = (r->size - caller->offset) / 8;
  for (int i = 0; i < std::min(n, room); ++i) {
    std::uint64_t a = 0;
    std::memcpy(&a, p + 8 * i, 8);
    if (a != 0) out.push_back(a);
  }
  return out;
}

}  // namespace

std::optional<TraceEvent> EventDecoder::decode(tep_event* event, tep_record* r, int cpu,
                                               bool keep_raw) {
  const Fields& f = fields_of(event);
  if (f.type == Ev::kOther) return std::nullopt;
  TraceEvent e;
  e.ts = static_cast<std::int64_t>(r->ts);
  e.cpu = cpu;
  e.type = f.type;
  e.pid = tep_data_pid(tep_, r);
  auto num = [&](int i) { return number(f.f[i], r); };
  switch (f.type) {
    case Ev::kSwitch:
      e.pid = static_cast<pid_t>(num(0));
      e.prio = static_cast<int>(num(1));
      e.comm = chars(f.f[2], r);
      e.pid2 = static_cast<pid_t>(num(3));
      e.prio2 = static_cast<int>(num(4));
      e.comm2 = chars(f.f[5], r);
      e.value = static_cast<std::int64_t>(num(6));
      break;
    case Ev::kWaking:
    case Ev::kWakeup:
    case Ev::kMigrate:
      e.pid2 = static_cast<pid_t>(num(0));
      e.prio2 = static_cast<int>(num(1));
      // sched_migrate_task's comm is a __data_loc string, the wakeups' a char[16].
      e.comm2 = e.type == Ev::kMigrate ? dynamic_string(f.f[2], r) : chars(f.f[2], r);
      e.value = static_cast<std::int64_t>(num(3));
      break;
    case Ev::kPiSetprio:
      e.pid2 = static_cast<pid_t>(num(0));
      e.prio = static_cast<int>(num(1));
      e.comm2 = chars(f.f[2], r);
      e.prio2 = static_cast<int>(num(3));
      break;
    case Ev::kIrqEntry:
      e.value = static_cast<std::int64_t>(num(0));
      e.comm2 = dynamic_string(f.f[1], r);
      break;
    case Ev::kIrqExit:
    case Ev::kSoftirqEntry:
    case Ev::kSoftirqExit:
      e.value = static_cast<std::int64_t>(num(0));
      break;
    case Ev::kVectorEntry:
    case Ev::kVectorExit:
      e.comm2 = f.name;
      break;

    case Ev::kHrtimerExpire:
      e.addr = num(0);
      break;
    case Ev::kMarker:
      e.comm2 = dynamic_string(f.f[0], r);
      while (!e.comm2.empty() && e.comm2.back() == '\n') e.comm2.pop_back();
      break;
    case Ev::kHrtimerStart:
    case Ev::kContentionBegin:
    case Ev::kContentionEnd:
    case Ev::kMmapStartLocking:
      e.addr = num(0);
      e.value = static_cast<std::int64_t>(num(1));
      break;
    case Ev::kMmapAcquired:
      e.addr = num(0);
      e.value = static_cast<std::int64_t>(num(1));
      e.prio2 = static_cast<int>(num(2));
      break;
    case Ev::kStack:
      e.stack = stack_of(f.f[1], static_cast<int>(num(0)), r);
      break;
    case Ev::kOther:
      break;
  }
  if (keep_raw) {
    e.raw.assign(static_cast<const char*>(r->data), static_cast<std::size_t>(r->size));
    e.event_id = event->id;
  }
  return e;
}

std::string EventDecoder::format(const TraceEvent& e) const {
  if (e.raw.empty()) return {};
  tep_record r{};
  r.ts = static_cast<unsigned long long>(e.ts);
  r.cpu = e.cpu;
  r.size = static_cast<int>(e.raw.size());
  r.data = const_cast<char*>(e.raw.data());
  trace_seq s;
  trace_seq_init(&s);
  tep_print_event(tep_, &s, &r, "%16s-%-7d [%03d] %6.1000d: %s: %s", TEP_PRINT_COMM, TEP_PRINT_PID,
                  TEP_PRINT_CPU, TEP_PRINT_TIME, TEP_PRINT_NAME, TEP_PRINT_INFO);
  trace_seq_terminate(&s);
  std::string out(s.buffer, s.len);
  trace_seq_destroy(&s);
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

}  // namespace rtgate::trace
