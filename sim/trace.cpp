#include "sim/trace.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <iostream>
#include <stdexcept>

#include "sim/error.h"

namespace ethosu::sim {
namespace {

void append_escaped(std::string& out, std::string_view s) {
  out += '"';
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += ch;
    } else if (c < 0x20) {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\u00";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out += ch;
    }
  }
  out += '"';
}

// Picoseconds as exact decimal microseconds: 1234567 -> "1.234567", 5000000 -> "5".
void append_us(std::string& out, uint64_t ps) {
  out += std::to_string(ps / 1000000);
  uint64_t frac = ps % 1000000;
  if (frac == 0) return;
  char digits[7] = "000000";
  for (int i = 5; i >= 0; --i, frac /= 10) digits[i] = static_cast<char>('0' + frac % 10);
  int len = 6;
  while (digits[len - 1] == '0') --len;
  out += '.';
  out.append(digits, static_cast<size_t>(len));
}

// JSON has no NaN or infinity; such values are written as strings.
void append_number(std::string& out, double d) {
  if (!std::isfinite(d)) {
    append_escaped(out, std::isnan(d) ? "nan" : (d > 0 ? "inf" : "-inf"));
    return;
  }
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, d);
  out.append(buf, ec == std::errc() ? end : buf);
}

}  // namespace

void TraceArg::append_json(std::string& out) const {
  append_escaped(out, key_);
  out += ':';
  switch (kind_) {
    case Kind::INT: out += std::to_string(int_); break;
    case Kind::UINT: out += std::to_string(uint_); break;
    case Kind::DOUBLE: append_number(out, double_); break;
    case Kind::STRING: append_escaped(out, string_); break;
  }
}

Trace::~Trace() {
  try {
    close();
  } catch (const std::exception& e) {
    std::cerr << "ethosu-sim: " << e.what() << "\n";
  }
}

void Trace::open(const std::filesystem::path& path, std::string process_name, size_t max_events) {
  close();
  out_.emplace(path);
  max_events_ = max_events;
  dropped_ = 0;
  process_name_ = std::move(process_name);
  events_.clear();
  enabled_ = true;
}

Trace::TrackId Trace::track(std::string name) {
  tracks_.push_back(std::move(name));
  return static_cast<TrackId>(tracks_.size() - 1);
}

void Trace::record_complete(TrackId track, std::string_view name, std::string_view category, uint64_t start_ps,
                            uint64_t duration_ps, std::initializer_list<TraceArg> args) {
  if (track >= tracks_.size()) throw std::logic_error("trace event on an undeclared track");
  if (events_.size() >= max_events_) {
    ++dropped_;
    return;
  }
  Event& e = events_.emplace_back(Event{start_ps, duration_ps, track, std::string(name), std::string(category), {}});
  e.args += '{';
  for (const TraceArg& a : args) {
    if (e.args.size() > 1) e.args += ',';
    a.append_json(e.args);
  }
  e.args += '}';
}

void Trace::record_counter(std::string_view name, uint64_t time_ps, double value) {
  if (events_.size() >= max_events_) {
    ++dropped_;
    return;
  }
  Event& e = events_.emplace_back(Event{time_ps, 0, kNoTrack, std::string(name), {}, "{\"value\":"});
  append_number(e.args, value);
  e.args += '}';
}

void Trace::close() {
  if (!enabled_) return;
  enabled_ = false;
  // However the writing ends, the file is released (an unfinished temporary removed) and the events freed.
  struct Release {
    Trace& t;
    ~Release() {
      t.out_.reset();
      t.events_.clear();
    }
  } release{*this};

  std::stable_sort(events_.begin(), events_.end(), [](const Event& a, const Event& b) {
    return a.start_ps != b.start_ps ? a.start_ps < b.start_ps : a.duration_ps > b.duration_ps;
  });

  // Lanes: each lane keeps the end times of its open spans; a span goes to the first lane where it
  // nests inside the innermost open span (or where nothing is open).
  std::vector<std::vector<std::vector<uint64_t>>> lanes(tracks_.size());
  std::vector<uint32_t> lane_of(events_.size(), 0);
  for (size_t i = 0; i < events_.size(); ++i) {
    const Event& e = events_[i];
    if (e.track == kNoTrack) continue;
    const uint64_t end = e.start_ps + e.duration_ps;
    auto& track_lanes = lanes[e.track];
    size_t l = 0;
    for (; l < track_lanes.size(); ++l) {
      auto& open = track_lanes[l];
      while (!open.empty() && open.back() <= e.start_ps) open.pop_back();
      if (open.empty() || open.back() >= end) break;
    }
    if (l == track_lanes.size()) track_lanes.emplace_back();
    track_lanes[l].push_back(end);
    lane_of[i] = static_cast<uint32_t>(l);
  }

  // Thread ids in track order, a track's lanes consecutive; every declared track gets at least one.
  std::vector<uint32_t> first_tid(tracks_.size());
  // One process, pid 1; tid 0 carries only the process name.
  std::string text = "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
  text += "{\"ph\":\"M\",\"pid\":1,\"tid\":0,\"name\":\"process_name\",\"args\":{\"name\":";
  append_escaped(text, dropped_ ? process_name_ + " (trace cut short: " + std::to_string(dropped_) +
                                     " events over the limit of " + std::to_string(max_events_) + " dropped)"
                               : process_name_);
  text += "}}";
  uint32_t tid = 1;
  for (size_t t = 0; t < tracks_.size(); ++t) {
    first_tid[t] = tid;
    const size_t n = std::max<size_t>(1, lanes[t].size());
    for (size_t l = 0; l < n; ++l, ++tid) {
      const std::string label = l == 0 ? tracks_[t] : tracks_[t] + " (" + std::to_string(l + 1) + ")";
      text += ",\n{\"ph\":\"M\",\"pid\":1,\"tid\":" + std::to_string(tid) +
              ",\"name\":\"thread_name\",\"args\":{\"name\":";
      append_escaped(text, label);
      text += "}},\n{\"ph\":\"M\",\"pid\":1,\"tid\":" + std::to_string(tid) +
              ",\"name\":\"thread_sort_index\",\"args\":{\"sort_index\":" + std::to_string(tid) + "}}";
    }
  }
  for (size_t i = 0; i < events_.size(); ++i) {
    const Event& e = events_[i];
    if (e.track == kNoTrack) {
      text += ",\n{\"ph\":\"C\",\"pid\":1,\"name\":";
      append_escaped(text, e.name);
    } else {
      text += ",\n{\"ph\":\"X\",\"pid\":1"
              ",\"tid\":" + std::to_string(first_tid[e.track] + lane_of[i]) + ",\"name\":";
      append_escaped(text, e.name);
      text += ",\"cat\":";
      append_escaped(text, e.category);
      text += ",\"dur\":";
      append_us(text, e.duration_ps);
    }
    text += ",\"ts\":";
    append_us(text, e.start_ps);
    text += ",\"args\":" + e.args + "}";
    if (text.size() > (1u << 20)) {
      out_->write(text.data(), text.size());
      text.clear();
    }
  }
  text += "\n]}\n";
  out_->write(text.data(), text.size());
  out_->commit();
}

}  // namespace ethosu::sim
