#include "sim/trace.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "sim/error.h"

namespace ethosu::sim {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

class TraceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("ethosu_trace_test_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    path_ = dir_ / "trace.json";
  }
  void TearDown() override { fs::remove_all(dir_); }

  json read() const {
    std::ifstream in(path_);
    std::stringstream s;
    s << in.rdbuf();
    return json::parse(s.str());  // throws on malformed JSON
  }
  static std::vector<json> of_phase(const json& j, const std::string& ph) {
    std::vector<json> out;
    for (const json& e : j.at("traceEvents")) {
      if (e.at("ph") == ph) out.push_back(e);
    }
    return out;
  }
  // tid -> thread_name
  static std::map<int, std::string> thread_names(const json& j) {
    std::map<int, std::string> out;
    for (const json& e : of_phase(j, "M")) {
      if (e.at("name") == "thread_name") out[e.at("tid").get<int>()] = e.at("args").at("name");
    }
    return out;
  }

  fs::path dir_, path_;
};

TEST_F(TraceTest, StructureAndTypes) {
  Trace t;
  const auto cc = t.track("CC");
  const auto mac = t.track("MAC");
  t.open(path_, "ethos-u65-256");
  t.complete(mac, "conv \"a\"\n", "op", 2000000, 1234567, {{"blocks", 12}, {"util", 0.5}, {"kind", "conv"}});
  t.complete(cc, "stream", "cmd", 1000000, 5000000);
  t.counter("axi1.outstanding", 1500000, 3);
  t.close();

  const json j = read();
  EXPECT_EQ(j.at("displayTimeUnit"), "ns");
  ASSERT_TRUE(j.at("traceEvents").is_array());
  for (const json& e : j.at("traceEvents")) {
    EXPECT_TRUE(e.at("pid").is_number_integer()) << e;
    EXPECT_EQ(e.at("pid"), 1);
    if (e.at("ph") != "C") {
      EXPECT_TRUE(e.at("tid").is_number_integer()) << e;
    }
    if (e.at("ph") != "M") {
      EXPECT_TRUE(e.at("ts").is_number()) << e;
    }
  }
  const auto names = thread_names(j);
  ASSERT_EQ(names.size(), 2u);
  EXPECT_EQ(names.begin()->second, "CC");  // declaration order
  EXPECT_EQ(std::next(names.begin())->second, "MAC");
  int sort_indices = 0;
  for (const json& e : of_phase(j, "M")) sort_indices += e.at("name") == "thread_sort_index";
  EXPECT_EQ(sort_indices, 2);

  const auto spans = of_phase(j, "X");
  ASSERT_EQ(spans.size(), 2u);
  EXPECT_EQ(spans[0].at("name"), "stream");
  EXPECT_DOUBLE_EQ(spans[0].at("ts").get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(spans[0].at("dur").get<double>(), 5.0);
  EXPECT_EQ(spans[1].at("name"), "conv \"a\"\n");  // escaped and parsed back
  EXPECT_DOUBLE_EQ(spans[1].at("ts").get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(spans[1].at("dur").get<double>(), 1.234567);  // exact picoseconds
  EXPECT_EQ(spans[1].at("cat"), "op");
  EXPECT_EQ(spans[1].at("args").at("blocks"), 12);
  EXPECT_EQ(spans[1].at("args").at("kind"), "conv");
  EXPECT_EQ(names.at(spans[1].at("tid").get<int>()), "MAC");
  const auto counters = of_phase(j, "C");
  ASSERT_EQ(counters.size(), 1u);
  EXPECT_EQ(counters[0].at("args").at("value"), 3);
  EXPECT_FALSE(fs::exists(path_.string() + ".tmp"));
}

TEST_F(TraceTest, SortedWithEnclosingSpansFirst) {
  Trace t;
  const auto tr = t.track("AO");
  t.open(path_, "p");
  // Emitted child-first, as a block that reports its parts before the whole would.
  t.complete(tr, "child", "c", 100000, 10000);
  t.complete(tr, "late", "c", 900000, 10000);
  t.complete(tr, "parent", "c", 100000, 50000);
  t.counter("x", 50000, 1.0);
  t.close();

  const json j = read();
  double last = -1;
  for (const json& e : j.at("traceEvents")) {
    if (e.at("ph") == "M") continue;
    EXPECT_GE(e.at("ts").get<double>(), last);
    last = e.at("ts").get<double>();
  }
  const auto spans = of_phase(j, "X");
  ASSERT_EQ(spans.size(), 3u);
  EXPECT_EQ(spans[0].at("name"), "parent");
  EXPECT_EQ(spans[1].at("name"), "child");
  EXPECT_EQ(spans[0].at("tid"), spans[1].at("tid"));  // nested: same lane
}

TEST_F(TraceTest, PartialOverlapGoesToAnotherLaneAndEveryThreadNests) {
  Trace t;
  const auto dma = t.track("DMA");
  const auto mac = t.track("MAC");
  t.open(path_, "p");
  t.complete(dma, "a", "dma", 0, 100);
  t.complete(dma, "b", "dma", 50, 100);   // overlaps a without nesting
  t.complete(dma, "c", "dma", 60, 20);    // nests in a (and in b)
  t.complete(dma, "d", "dma", 100, 10);   // starts where a ends: fits lane 1 again
  t.complete(mac, "m", "mac", 0, 0);      // zero duration
  t.close();

  const json j = read();
  const auto names = thread_names(j);
  ASSERT_EQ(names.size(), 3u);
  std::map<std::string, int> tid_of;
  for (const auto& [tid, name] : names) tid_of[name] = tid;
  ASSERT_TRUE(tid_of.count("DMA (2)"));
  for (const json& e : of_phase(j, "X")) {
    if (e.at("name") == "b") {
      EXPECT_EQ(e.at("tid"), tid_of.at("DMA (2)"));
    }
    if (e.at("name") != "b" && e.at("name") != "m") {
      EXPECT_EQ(e.at("tid"), tid_of.at("DMA"));
    }
    EXPECT_GE(e.at("dur").get<double>(), 0.0);
  }
  // Nesting rule per thread, in file order: each span lies inside or after every span still open.
  std::map<int, std::vector<std::pair<double, double>>> open;
  for (const json& e : of_phase(j, "X")) {
    auto& stack = open[e.at("tid").get<int>()];
    const double ts = e.at("ts").get<double>(), end = ts + e.at("dur").get<double>();
    while (!stack.empty() && stack.back().second <= ts) stack.pop_back();
    if (!stack.empty()) {
      EXPECT_LE(end, stack.back().second) << e;
    }
    stack.emplace_back(ts, end);
  }
}

TEST_F(TraceTest, DisabledWritesNothing) {
  {
    Trace t;
    const auto tr = t.track("CC");
    EXPECT_FALSE(t.enabled());
    t.complete(tr, "x", "y", 0, 1);
    t.counter("c", 0, 1);
    t.close();
  }
  EXPECT_TRUE(fs::is_empty(dir_));
}

TEST_F(TraceTest, EarlyExitStillLeavesValidJson) {
  try {
    Trace t;
    const auto tr = t.track("CC");
    t.open(path_, "p");
    t.complete(tr, "started", "op", 0, 1000);
    EXPECT_FALSE(fs::is_empty(dir_));  // the temporary file beside it
    EXPECT_FALSE(fs::exists(path_));   // nothing half-written at the final path
    throw std::runtime_error("job aborted");
  } catch (const std::runtime_error&) {
  }
  const json j = read();
  EXPECT_EQ(of_phase(j, "X").size(), 1u);
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1);  // no temporary left
}

TEST_F(TraceTest, ADeviceIsWrittenToNeverReplaced) {
  // Run as root, replacing /dev/null with a regular file once broke a machine.
  Trace t;
  const auto tr = t.track("CC");
  t.open("/dev/null", "p");
  t.complete(tr, "x", "y", 0, 1);
  t.close();
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
  EXPECT_THROW(t.open(dir_, "p"), InputError);  // a directory
}

TEST_F(TraceTest, EventsOverTheLimitAreDroppedAndSaidSo) {
  Trace t;
  const auto tr = t.track("CC");
  t.open(path_, "p", 2);
  for (uint64_t i = 0; i < 5; ++i) t.complete(tr, "x", "y", i * 10, 1);
  EXPECT_EQ(t.dropped(), 3u);
  t.close();
  const json j = read();
  EXPECT_EQ(of_phase(j, "X").size(), 2u);
  const std::string name = of_phase(j, "M").at(0).at("args").at("name");
  EXPECT_NE(name.find("3 events over the limit of 2 dropped"), std::string::npos) << name;
}

TEST_F(TraceTest, ReopenStartsAFreshFile) {
  Trace t;
  const auto tr = t.track("CC");
  t.open(path_, "job1");
  t.complete(tr, "one", "op", 0, 1);
  const fs::path second = dir_ / "second.json";
  t.open(second, "job2");  // closes job1's trace
  t.complete(tr, "two", "op", 0, 1);
  t.close();
  EXPECT_EQ(of_phase(read(), "X").at(0).at("name"), "one");
  path_ = second;
  const json j = read();
  ASSERT_EQ(of_phase(j, "X").size(), 1u);
  EXPECT_EQ(of_phase(j, "X")[0].at("name"), "two");
}

TEST_F(TraceTest, AFifoWithoutAReaderIsRefusedWithoutWaitingForOne) {
  // A trace opened with a blocking open(2) waited for ever for a reader (`run --trace FIFO`, and Python's run()
  // with the interpreter locked). The child is killed by the alarm should it block.
  const fs::path fifo = dir_ / "fifo.json";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EXIT(
      {
        ::alarm(10);
        Trace t;
        try {
          t.open(fifo, "p");
        } catch (const InputError& e) {
          std::exit(std::string(e.what()).find("fifo.json: cannot write") != std::string::npos ? 0 : 2);
        }
        std::exit(1);
      },
      ::testing::ExitedWithCode(0), "");
  EXPECT_TRUE(fs::is_fifo(fifo));  // written through, never replaced
}

TEST_F(TraceTest, AFifoWithAReaderGetsTheWholeTrace) {
  const fs::path fifo = dir_ / "fifo.json";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string received;
  std::thread reader([&] {
    std::ifstream in(fifo);
    std::stringstream s;
    s << in.rdbuf();
    received = s.str();
  });
  // Open once the reader has: the FIFO then has both ends (opening it for reading waits for the writer).
  Trace t;
  const auto tr = t.track("CC");
  for (int tries = 0;; ++tries) {
    try {
      t.open(fifo, "p");
      break;
    } catch (const InputError&) {
      ASSERT_LT(tries, 1000) << "the reader never opened the FIFO";
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  // More than a pipe holds (64 KiB), so that writing waits for the reader rather than failing.
  for (uint64_t i = 0; i < 20000; ++i) t.complete(tr, "op", "kernel", i * 10, 5);
  t.close();
  reader.join();
  EXPECT_EQ(of_phase(json::parse(received), "X").size(), 20000u);
}

TEST_F(TraceTest, ALinkPlantedAtTheTemporaryIsNotFollowed) {
  // The temporary beside the trace has a name others can predict: a link there must not make the trace
  // overwrite its target.
  const fs::path victim = dir_ / "victim";
  std::ofstream(victim) << "precious";
  fs::path tmp = path_;
  tmp += ".tmp" + std::to_string(::getpid());
  fs::create_symlink(victim, tmp);
  Trace t;
  EXPECT_THROW(t.open(path_, "p"), InputError);
  std::ifstream in(victim);
  std::string text;
  std::getline(in, text);
  EXPECT_EQ(text, "precious");
}

TEST_F(TraceTest, UnwritablePathIsInputError) {
  Trace t;
  EXPECT_THROW(t.open(dir_ / "no" / "such" / "dir" / "t.json", "p"), InputError);
  EXPECT_FALSE(t.enabled());
}

}  // namespace
}  // namespace ethosu::sim
