// The JSON text writer of reports (host/run/json_writer.h): nlohmann's dump(1) layout, valid strings, exact numbers.
#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "host/run/json_writer.h"

namespace ethosu::host {
namespace {

TEST(JsonWriter, LayoutIsNlohmannsIndentOne) {
  const auto doc = nlohmann::json::parse(R"({"a": [], "b": {}, "c": [1, [2, {}], {"d": "e"}], "f": {"g": {"h": [true, null, -3]}},
                                             "i": 2.5, "j": 18446744073709551615})");
  std::string out;
  JsonWriter w(out);
  w.value(doc);
  EXPECT_EQ(out, doc.dump(1));
}

TEST(JsonWriter, DeepNestingKeepsItsIndentation) {
  nlohmann::json doc = {{"leaf", 1}};
  for (int level = 0; level < 80; ++level) doc = nlohmann::json::array({doc, level});
  std::string out;
  JsonWriter w(out);
  w.value(doc);
  EXPECT_EQ(out, doc.dump(1));
}

TEST(JsonWriter, StringsWithQuotesBackslashesAndControlCharactersStayValid) {
  const std::string tricky[] = {"plain", "", "say \"hi\"", "C:\\path\\", "line\nbreak\ttab\r", std::string("nul\0byte", 8),
                                "\x01\x1f\x7f", "caf\xc3\xa9 \xe2\x82\xac", std::string(100, 'k')};
  std::string out;
  JsonWriter w(out);
  w.begin_object();
  for (const auto& s : tricky) {
    w.key(s);
    w.value(s);
  }
  w.end_object();
  const auto parsed = nlohmann::json::parse(out);
  ASSERT_EQ(parsed.size(), std::size(tricky));
  for (const auto& s : tricky) EXPECT_EQ(parsed.at(s), s);
}

TEST(JsonWriter, InvalidUtf8IsRejectedNotWritten) {
  std::string out;
  JsonWriter w(out);
  EXPECT_THROW(w.value(std::string_view("bad \xff byte")), nlohmann::json::type_error);
}

TEST(JsonWriter, NumbersReadBackExactlyAndKeepTheirType) {
  const double doubles[] = {0.0,  1.0,    0.5,  1e9,     1.0 / 3, 1e-7,   123456789.125, 1e300, -2.75,
                            5e-324, 1e-4, 9.5e-5, 1e15, 9.99e14, -1e20,   0.1 + 0.2};
  const uint64_t integers[] = {0, 7, 4294967296u, std::numeric_limits<uint64_t>::max()};
  std::string out;
  JsonWriter w(out);
  w.begin_array();
  for (const double d : doubles) w.value(d);
  for (const uint64_t i : integers) w.value(i);
  w.value(std::nan(""));
  w.value(std::numeric_limits<double>::infinity());
  w.end_array();
  const auto parsed = nlohmann::json::parse(out);
  EXPECT_EQ(out, parsed.dump(1));  // the same notation as nlohmann's
  size_t k = 0;
  for (const double d : doubles) {
    EXPECT_TRUE(parsed[k].is_number_float()) << out;
    EXPECT_EQ(parsed[k++].get<double>(), d);
  }
  for (const uint64_t i : integers) {
    EXPECT_TRUE(parsed[k].is_number_unsigned());
    EXPECT_EQ(parsed[k++].get<uint64_t>(), i);
  }
  EXPECT_TRUE(parsed[k++].is_null());  // as nlohmann writes NaN and infinities
  EXPECT_TRUE(parsed[k++].is_null());
}

}  // namespace
}  // namespace ethosu::host
