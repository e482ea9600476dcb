// Timeline trace in the Chrome/Perfetto JSON Trace Event Format, for ui.perfetto.dev or chrome://tracing.
//
// Contract: one process; one named track (a JSON thread) per hardware block, declared with track() at
// elaboration whether or not tracing is on. complete() records a span ("X" event), counter() a sampled
// value ("C" event). Times are integer picoseconds (SystemC's resolution), so a duration cannot be
// negative; they are written as exact decimal microseconds. When the trace is not open, complete() and
// counter() are one inline bool test: nothing is formatted or allocated.
//
// Events are buffered and written by close(), sorted by start time with longer spans first at equal
// starts, so that enclosing spans precede the spans they contain (importers nest equal-start "X" events
// in file order). Perfetto draws one stack per thread and drops spans that overlap without nesting, so
// a span that partly overlaps another on its track goes to an extra lane of that track ("DMA (2)", ...):
// every thread in the file holds properly nested spans. The file is opened as sim/files.h's OutputFile
// opens one: close() writes a temporary file beside a regular file and renames it over it, so the path holds
// either nothing or complete JSON; a device or FIFO is written to in place, never replaced, and opening one
// never blocks (a FIFO without a reader is refused). The destructor calls close(), so a job that ends early by
// exception still leaves a valid trace. Memory: about 100 bytes per event plus its arguments, for at most
// the `max_events` open() allows; later events are dropped and counted (dropped()), and the trace says
// so in its process name.
#pragma once

#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "sim/files.h"

namespace ethosu::sim {

// One entry of an event's "args"; holds views, so it lives only for the call that records it.
class TraceArg {
 public:
  template <typename T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  TraceArg(std::string_view key, T value) : key_(key) {
    if constexpr (std::is_signed_v<T>) {
      kind_ = Kind::INT;
      int_ = value;
    } else {
      kind_ = Kind::UINT;
      uint_ = value;
    }
  }
  TraceArg(std::string_view key, double value) : key_(key), kind_(Kind::DOUBLE), double_(value) {}
  TraceArg(std::string_view key, std::string_view value) : key_(key), kind_(Kind::STRING), string_(value) {}
  TraceArg(std::string_view key, const char* value) : TraceArg(key, std::string_view(value)) {}

  // Appends `"key":value` as JSON.
  void append_json(std::string& out) const;

 private:
  enum class Kind { INT, UINT, DOUBLE, STRING };
  std::string_view key_;
  Kind kind_;
  int64_t int_ = 0;
  uint64_t uint_ = 0;
  double double_ = 0;
  std::string_view string_;
};

class Trace {
 public:
  using TrackId = uint32_t;

  Trace() = default;
  ~Trace();
  Trace(const Trace&) = delete;
  Trace& operator=(const Trace&) = delete;

  // Starts recording; creates `<path>.tmp` now so that a bad path fails before the job runs
  // (ethosu::InputError). Closes a trace already open first.
  static constexpr size_t kDefaultMaxEvents = size_t{2} << 20;  // a few hundred MB of host memory at most
  void open(const std::filesystem::path& path, std::string process_name, size_t max_events = kDefaultMaxEvents);
  // Events dropped over the limit since open().
  uint64_t dropped() const noexcept { return dropped_; }
  bool enabled() const noexcept { return enabled_; }

  // Tracks appear in declaration order.
  TrackId track(std::string name);

  void complete(TrackId track, std::string_view name, std::string_view category, uint64_t start_ps,
                uint64_t duration_ps, std::initializer_list<TraceArg> args = {}) {
    if (enabled_) record_complete(track, name, category, start_ps, duration_ps, args);
  }
  void counter(std::string_view name, uint64_t time_ps, double value) {
    if (enabled_) record_counter(name, time_ps, value);
  }

  // Sorts, writes and renames into place; the trace is then disabled. No-op when not open. Throws
  // ethosu::InputError when the file cannot be written.
  void close();

 private:
  static constexpr TrackId kNoTrack = UINT32_MAX;  // counter events
  struct Event {
    uint64_t start_ps, duration_ps;
    TrackId track;  // kNoTrack for counters
    std::string name, category;
    std::string args;  // JSON object text
  };

  void record_complete(TrackId track, std::string_view name, std::string_view category, uint64_t start_ps,
                       uint64_t duration_ps, std::initializer_list<TraceArg> args);
  void record_counter(std::string_view name, uint64_t time_ps, double value);

  bool enabled_ = false;
  size_t max_events_ = kDefaultMaxEvents;
  uint64_t dropped_ = 0;
  std::optional<OutputFile> out_;
  std::string process_name_;
  std::vector<std::string> tracks_;
  std::vector<Event> events_;
};

}  // namespace ethosu::sim
