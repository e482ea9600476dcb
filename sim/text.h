// Small text helpers: trimming and case for the parsers of configuration files, hexadecimal for messages.
#pragma once

#include <cctype>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <type_traits>

namespace ethosu::sim {

inline std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

inline std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// "0x1f" for any integer; negative values as "-0x1f". The magnitude is taken in unsigned arithmetic: byte
// spans that saturate reach INT64_MIN, whose negation overflows.
template <typename T, std::enable_if_t<std::is_integral_v<T>, int> = 0>
std::string hex(T value) {
  const auto v = static_cast<std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>>(value);
  const uint64_t mag = v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  char buf[24];
  std::snprintf(buf, sizeof buf, v < 0 ? "-0x%llx" : "0x%llx", static_cast<unsigned long long>(mag));
  return buf;
}

// A 32-bit register or command word as written in manuals: "0x0001010f".
inline std::string hex_word(uint32_t v) {
  char buf[12];
  std::snprintf(buf, sizeof buf, "0x%08x", v);
  return buf;
}

}  // namespace ethosu::sim
