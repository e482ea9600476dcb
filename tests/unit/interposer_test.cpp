// The interposer layer (host/backends/common/interposer.h) with a shim of the test's own: which calls reach the
// shim and with what, which go on to libc with the program's arguments, and that errno is the program's.
#include "host/backends/common/interposer.h"

#include <dirent.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "host/backends/common/dispatch.h"

// The _FORTIFY_SOURCE forms, which glibc's headers declare only in fortified builds.
extern "C" {
int __open_2(const char* path, int flags);
int __open64_2(const char* path, int flags);
int __openat_2(int dirfd, const char* path, int flags);
int __openat64_2(int dirfd, const char* path, int flags);
}

namespace {

using ethosu::interpose::Interposer;
using ethosu::interpose::open_takes_mode;

constexpr const char* kClaimedPrefix = "/interposer-test/";
constexpr const char* kDevice = "/interposer-test/device";
constexpr int kDeviceFd = 4242;         // what the shim's open() answers
constexpr int kStrangeErrno = EBADMSG;  // what the shim leaves in errno, which the program must never see

// Claims the paths under kClaimedPrefix and answers for one descriptor, `mine`; records what it is told. Every
// hook sets errno, so that a test sees the layer restore it.
class TestShim final : public Interposer {
 public:
  int mine = -1;
  std::vector<std::pair<int, int>> opens;  // dirfd, flags
  std::vector<std::pair<std::string, int>> opened_files;
  std::vector<std::pair<int, int>> copies;
  std::vector<std::pair<int, bool>> closings;  // fd, whether it was still open when the shim heard of it
  std::vector<std::pair<unsigned, unsigned>> closed_ranges;
  std::vector<bool> stat_follows;
  int mmaps_asked = 0;

  bool claims_path(int, const char* path) override {
    return path && std::strncmp(path, kClaimedPrefix, std::strlen(kClaimedPrefix)) == 0;
  }
  std::optional<int> open(int dirfd, const char*, int flags) override {
    opens.emplace_back(dirfd, flags);
    errno = kStrangeErrno;
    return kDeviceFd;
  }
  std::optional<int> stat(const char* path, bool follow, struct stat& status) override {
    stat_follows.push_back(follow);
    if (std::strcmp(path, kDevice) != 0) return fail<int>(ENOENT);
    status.st_mode = S_IFCHR | 0666;
    status.st_rdev = makedev(261, 0);
    status.st_ino = 1000;
    status.st_nlink = 1;
    return 0;
  }
  std::optional<int> access(const char*, int mode) override { return mode & W_OK ? fail<int>(EACCES) : 0; }
  std::optional<ssize_t> readlink(const char*, char* buf, size_t size) override {
    const size_t n = std::min<size_t>(size, 3);
    std::memcpy(buf, "abc", n);
    return static_cast<ssize_t>(n);
  }
  std::optional<int> ioctl(int fd, unsigned long, void*) override {
    if (fd != mine) return decline<int>();
    return 7;
  }
  std::optional<void*> mmap(void*, size_t, int, int, int fd, off_t) override {
    ++mmaps_asked;
    if (fd != mine) return decline<void*>();
    errno = ENODEV;
    return MAP_FAILED;
  }
  std::optional<ssize_t> read(int fd, void*, size_t) override {
    if (fd != mine) return decline<ssize_t>();
    return fail<ssize_t>(EINVAL);
  }
  std::optional<int> stat_fd(int fd, struct stat& status) override {
    if (fd != mine) return decline<int>();
    return stat(kDevice, true, status);
  }
  void opened(const char* path, int fd) override {
    opened_files.emplace_back(path, fd);
    errno = kStrangeErrno;
  }
  void closing(int fd) override {
    closings.emplace_back(fd, ethosu::interpose::libc().fcntl(fd, F_GETFD) != -1);
    errno = kStrangeErrno;
  }
  void duplicated(int from, int to) override {
    copies.emplace_back(from, to);
    errno = kStrangeErrno;
  }
  void closed_range(unsigned first, unsigned last) override {
    closed_ranges.emplace_back(first, last);
    errno = kStrangeErrno;
  }

 private:
  template <typename T>
  std::optional<T> decline() {
    errno = kStrangeErrno;
    return std::nullopt;
  }
  template <typename T>
  std::optional<T> fail(int error) {
    errno = error;
    return T(-1);
  }
};

TestShim* g_shim = nullptr;

class InterposerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    g_shim = &shim;
    umask_ = umask(0);
    dir_ = ::testing::TempDir() + "interposer_test_" + std::to_string(getpid());
    ASSERT_EQ(mkdir(dir_.c_str(), 0700), 0);
  }
  void TearDown() override {
    g_shim = nullptr;
    umask(umask_);
    std::filesystem::remove_all(dir_);
  }
  std::string file(const char* name) const { return dir_ + "/" + name; }
  static mode_t mode_of(int fd) {
    struct stat st{};
    EXPECT_EQ(fstat(fd, &st), 0);
    return st.st_mode & 07777;
  }

  TestShim shim;
  std::string dir_;
  mode_t umask_ = 0;
};

}  // namespace

// The shim under test while a test runs; otherwise (GoogleTest's own calls) one that declines everything.
ethosu::interpose::Interposer& ethosu::interpose::interposer() {
  static Interposer* const passing_on = new TestShim;
  return g_shim ? *g_shim : *passing_on;
}

namespace {

TEST(OpenTakesMode, OnlyWithOCreatOrTheWholeOfOTmpfile) {
  EXPECT_FALSE(open_takes_mode(O_RDONLY));
  EXPECT_FALSE(open_takes_mode(O_RDWR | O_CLOEXEC | O_TRUNC));
  EXPECT_TRUE(open_takes_mode(O_WRONLY | O_CREAT));
  EXPECT_TRUE(open_takes_mode(O_RDWR | O_TMPFILE));
  EXPECT_FALSE(open_takes_mode(O_RDONLY | O_DIRECTORY));  // a part of O_TMPFILE's bits
}

TEST_F(InterposerTest, EveryFormOfOpenOfAClaimedPathGoesToTheShim) {
  const int flags = O_RDWR | O_CLOEXEC;
  errno = 0;
  EXPECT_EQ(open(kDevice, flags), kDeviceFd);
  EXPECT_EQ(open64(kDevice, flags), kDeviceFd);
  EXPECT_EQ(openat(AT_FDCWD, kDevice, flags), kDeviceFd);
  EXPECT_EQ(openat64(3, kDevice, flags), kDeviceFd);
  EXPECT_EQ(__open_2(kDevice, flags), kDeviceFd);
  EXPECT_EQ(__open64_2(kDevice, flags), kDeviceFd);
  EXPECT_EQ(__openat_2(5, kDevice, flags), kDeviceFd);
  EXPECT_EQ(__openat64_2(6, kDevice, flags), kDeviceFd);
  EXPECT_EQ(errno, kStrangeErrno);  // an answer is the shim's, errno included
  const std::vector<std::pair<int, int>> expected = {{AT_FDCWD, flags}, {AT_FDCWD, flags}, {AT_FDCWD, flags},
                                                     {3, flags},        {AT_FDCWD, flags}, {AT_FDCWD, flags},
                                                     {5, flags},        {6, flags}};
  EXPECT_EQ(shim.opens, expected);
  EXPECT_TRUE(shim.opened_files.empty());
}

TEST_F(InterposerTest, OpenOfAnotherPathGoesOnWithItsModeAndTheShimHearsOfIt) {
  const std::string a = file("a"), b = file("b");
  errno = 0;
  const int fd_a = open(a.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0640);
  ASSERT_GE(fd_a, 0);
  EXPECT_EQ(mode_of(fd_a), 0640u);
  const int fd_b = openat(AT_FDCWD, b.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0604);
  ASSERT_GE(fd_b, 0);
  EXPECT_EQ(mode_of(fd_b), 0604u);
  EXPECT_EQ(errno, 0);  // the notification's errno is not the program's
  const std::vector<std::pair<std::string, int>> expected = {{a, fd_a}, {b, fd_b}};
  EXPECT_EQ(shim.opened_files, expected);
  EXPECT_TRUE(shim.opens.empty());

  const int tmp = openat(AT_FDCWD, dir_.c_str(), O_WRONLY | O_TMPFILE, 0600);
  if (tmp >= 0) {  // where the file system has O_TMPFILE
    EXPECT_EQ(mode_of(tmp), 0600u);
  }
  EXPECT_EQ(open(file("missing").c_str(), O_RDONLY), -1);
  EXPECT_EQ(errno, ENOENT);
  for (int fd : {fd_a, fd_b, tmp}) close(fd);
}

TEST_F(InterposerTest, OtherDescriptorsGoOnAndAHookThatDeclinesLeavesErrnoAlone) {
  int p[2];
  ASSERT_EQ(pipe(p), 0);
  ASSERT_EQ(write(p[1], "abc", 3), 3);
  errno = 0;
  int pending = 0;
  EXPECT_EQ(ioctl(p[0], FIONREAD, &pending), 0);
  EXPECT_EQ(pending, 3);
  char buf[3];
  EXPECT_EQ(read(p[0], buf, sizeof buf), 3);
  EXPECT_EQ(errno, 0);
  EXPECT_EQ(ioctl(p[0], TCGETS, buf), -1);  // libc's own failure, errno and all
  EXPECT_EQ(errno, ENOTTY);
  close(p[0]);
  close(p[1]);
}

TEST_F(InterposerTest, TheShimAnswersForItsDescriptors) {
  int p[2];
  ASSERT_EQ(pipe(p), 0);
  shim.mine = p[0];
  EXPECT_EQ(ioctl(p[0], FIONREAD, nullptr), 7);
  char c;
  EXPECT_EQ(read(p[0], &c, 1), -1);
  EXPECT_EQ(errno, EINVAL);
  EXPECT_EQ(mmap(nullptr, 4096, PROT_READ, MAP_SHARED, p[0], 0), MAP_FAILED);
  EXPECT_EQ(errno, ENODEV);
  EXPECT_EQ(mmap64(nullptr, 4096, PROT_READ, MAP_SHARED, p[0], 0), MAP_FAILED);
  EXPECT_EQ(shim.mmaps_asked, 2);
  void* anonymous = mmap(nullptr, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, p[0], 0);
  ASSERT_NE(anonymous, MAP_FAILED);
  EXPECT_EQ(shim.mmaps_asked, 2);  // an anonymous mapping is nobody's
  munmap(anonymous, 4096);

  struct stat st{};
  ASSERT_EQ(fstat(p[0], &st), 0);
  EXPECT_EQ(st.st_rdev, makedev(261, 0));
  struct statx stx{};
  ASSERT_EQ(statx(p[0], "", AT_EMPTY_PATH, STATX_BASIC_STATS, &stx), 0);
  EXPECT_EQ(stx.stx_rdev_major, 261u);
  ASSERT_EQ(fstatat(p[1], "", &st, AT_EMPTY_PATH), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));  // not the shim's
  close(p[0]);
  close(p[1]);
}

TEST_F(InterposerTest, CopiesAreReportedOnlyWhenMade) {
  int p[2];
  ASSERT_EQ(pipe(p), 0);
  const int a = dup(p[0]);
  const int b = dup2(p[0], 100);
  const int c = dup3(p[0], 101, O_CLOEXEC);
  const int d = fcntl(p[0], F_DUPFD_CLOEXEC, 200);
  const int e = fcntl64(p[0], F_DUPFD, 300);
  EXPECT_EQ(b, 100);
  EXPECT_EQ(c, 101);
  EXPECT_GE(d, 200);
  EXPECT_GE(e, 300);
  errno = 0;
  EXPECT_EQ(dup2(p[0], p[0]), p[0]);   // copies nothing
  EXPECT_EQ(fcntl(p[0], F_GETFD), 0);  // not a copy
  EXPECT_EQ(errno, 0);
  EXPECT_EQ(dup(-1), -1);
  EXPECT_EQ(errno, EBADF);
  const std::vector<std::pair<int, int>> expected = {{p[0], a}, {p[0], b}, {p[0], c}, {p[0], d}, {p[0], e}};
  EXPECT_EQ(shim.copies, expected);
  for (int fd : {a, b, c, d, e, p[0], p[1]}) close(fd);
}

TEST_F(InterposerTest, CloseIsToldBeforeAndCloseRangeAfter) {
  int p[2];
  ASSERT_EQ(pipe(p), 0);
  errno = 0;
  EXPECT_EQ(close(p[0]), 0);
  EXPECT_EQ(errno, 0);
  ASSERT_EQ(shim.closings.size(), 1u);
  EXPECT_EQ(shim.closings[0], std::make_pair(p[0], true));
  EXPECT_EQ(close(p[0]), -1);
  EXPECT_EQ(errno, EBADF);

  const unsigned fd = static_cast<unsigned>(p[1]);
  errno = 0;
  ASSERT_EQ(close_range(fd, fd, CLOSE_RANGE_CLOEXEC), 0);
  EXPECT_TRUE(shim.closed_ranges.empty());  // nothing closed yet
  ASSERT_EQ(close_range(fd, fd, 0), 0);
  EXPECT_EQ(errno, 0);
  const std::vector<std::pair<unsigned, unsigned>> expected = {{fd, fd}};
  EXPECT_EQ(shim.closed_ranges, expected);
}

TEST_F(InterposerTest, StatusOfAClaimedPathInEveryLayout) {
  struct stat st{};
  ASSERT_EQ(stat(kDevice, &st), 0);
  EXPECT_EQ(st.st_mode, S_IFCHR | 0666u);
  struct stat64 st64{};
  ASSERT_EQ(lstat64(kDevice, &st64), 0);
  EXPECT_EQ(st64.st_rdev, makedev(261, 0));
  EXPECT_EQ(st64.st_ino, 1000u);
  ASSERT_EQ(fstatat64(AT_FDCWD, kDevice, &st64, AT_SYMLINK_NOFOLLOW), 0);
  struct statx stx{};
  ASSERT_EQ(statx(AT_FDCWD, kDevice, 0, STATX_BASIC_STATS, &stx), 0);
  EXPECT_EQ(stx.stx_mode, S_IFCHR | 0666u);
  EXPECT_EQ(stx.stx_rdev_minor, 0u);
  EXPECT_EQ(stx.stx_mask, STATX_BASIC_STATS);
  EXPECT_EQ(shim.stat_follows, (std::vector<bool>{true, false, false, true}));

  // A failure leaves the program's buffer as it was.
  std::memset(&st, 0xAB, sizeof st);
  const struct stat before = st;
  EXPECT_EQ(stat("/interposer-test/missing", &st), -1);
  EXPECT_EQ(errno, ENOENT);
  EXPECT_EQ(std::memcmp(&st, &before, sizeof st), 0);

  EXPECT_EQ(access(kDevice, R_OK), 0);
  EXPECT_EQ(faccessat(AT_FDCWD, kDevice, W_OK, 0), -1);
  EXPECT_EQ(errno, EACCES);
  char link[8] = {};
  EXPECT_EQ(readlink(kDevice, link, 2), 2);
  EXPECT_STREQ(link, "ab");
}

TEST_F(InterposerTest, FilesAndDirectoriesThatAreNotTheShimsGoOn) {
  const std::string a = file("a");
  FILE* f = fopen(a.c_str(), "w");
  ASSERT_NE(f, nullptr);
  std::fclose(f);
  struct stat st{};
  ASSERT_EQ(stat(a.c_str(), &st), 0);
  EXPECT_TRUE(S_ISREG(st.st_mode));
  EXPECT_EQ(access(a.c_str(), W_OK), 0);
  char target;
  EXPECT_EQ(readlink(a.c_str(), &target, 1), -1);  // not a link
  EXPECT_EQ(errno, EINVAL);
  EXPECT_TRUE(shim.stat_follows.empty());

  DIR* dir = opendir(dir_.c_str());
  ASSERT_NE(dir, nullptr);
  EXPECT_GE(dirfd(dir), 0);
  int names = 0;
  while (readdir(dir)) ++names;
  rewinddir(dir);
  while (readdir64(dir)) ++names;
  EXPECT_EQ(names, 6);  // ".", ".." and "a", twice
  EXPECT_EQ(closedir(dir), 0);
}

}  // namespace
