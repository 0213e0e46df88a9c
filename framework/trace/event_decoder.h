// EventDecoder: turns libtraceevent records of the analysis events into TraceEvents (fields looked
// up once per event type), and formats a kept record the way the kernel's trace file prints it,
// for the excerpt written beside the result.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <unordered_map>

#include "framework/trace/trace_event.h"

struct tep_handle;
struct tep_event;
struct tep_record;
struct tep_format_field;

namespace rtgate::trace {

class EventDecoder {
 public:
  explicit EventDecoder(tep_handle* tep) : tep_(tep) {}

  // The event, or nullopt for an event the analyses do not read. `keep_raw` copies the record
  // so that format() can print it later (the ring buffer page is reused).
  std::optional<TraceEvent> decode(tep_event* event, tep_record* record, int cpu, bool keep_raw);
  // "  <comm>-<pid> [cpu] <seconds>: <event>: <fields>" from a decoded event with its raw copy.
  std::string format(const TraceEvent& e) const;

 private:
  struct Fields {
    Ev type = Ev::kOther;
    std::string name;  // the event's name (irq_vectors: without _entry/_exit)
    tep_format_field* f[7] = {};
  };
  const Fields& fields_of(tep_event* event);

  tep_handle* tep_;
  std::unordered_map<int, Fields> fields_;
};

}  // namespace rtgate::trace
