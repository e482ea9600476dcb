// The safe file primitives (sim/files.h): what reads refuse before they open anything, and what writes
// never replace.
#include "sim/files.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "sim/error.h"
#include "tests/unit/input_errors.h"

namespace ethosu::sim {
namespace {

using ethosu::testing::input_error_of;

namespace fs = std::filesystem;

class FilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("ethosu_files_test_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(FilesTest, ReadsRefuseWhatIsNotARegularFileWithoutOpeningIt) {
  const fs::path fifo = dir_ / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // Opening a FIFO without a writer would block for ever.
  EXPECT_NE(input_error_of([&] { read_file(fifo); }).find("fifo: is not a regular file"), std::string::npos);
  EXPECT_NE(input_error_of([&] { read_file(dir_); }).find("is a directory"), std::string::npos);
  EXPECT_NE(input_error_of([&] { read_file("/dev/zero"); }).find("is not a regular file"), std::string::npos);
  EXPECT_NE(input_error_of([&] { read_file(dir_ / "none"); }).find("none: no such file"), std::string::npos);
}

TEST_F(FilesTest, ReadsStopAtTheirLimit) {
  const fs::path f = dir_ / "big";
  std::ofstream(f) << std::string(5000, 'x');
  EXPECT_EQ(read_file(f, 5000).size(), 5000u);
  EXPECT_NE(input_error_of([&] { read_file(f, 4999); }).find("larger than the 4999-byte limit"), std::string::npos);
  EXPECT_EQ(read_text_file(f), std::string(5000, 'x'));
}

TEST_F(FilesTest, WritesReplaceRegularFilesWholeAndNothingElse) {
  const fs::path f = dir_ / "out";
  std::ofstream(f) << "old contents, longer than the new";
  write_text_file(f, "new");
  EXPECT_EQ(read_text_file(f), "new");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1);  // no temporary left
  // Through a symbolic link: the target is written, the link stays a link.
  const fs::path link = dir_ / "link";
  fs::create_symlink(f, link);
  write_text_file(link, "via link");
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(read_text_file(f), "via link");
  // A device is written to, never replaced by a regular file.
  write_text_file("/dev/null", "discarded");
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
  EXPECT_NE(input_error_of([&] { write_text_file(dir_, "x"); }).find("is a directory"), std::string::npos);
  EXPECT_NE(input_error_of([&] { write_text_file(dir_ / "no" / "dir" / "f", "x"); }).find("cannot create"),
            std::string::npos);
}

}  // namespace
}  // namespace ethosu::sim
