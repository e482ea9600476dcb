// libethosu-record.so's shim on the interposer layer (host/backends/common/interposer.h), which hands every call to
// the next definition with the client's arguments and returns its result and errno unchanged. The recorders
// (recorder.h) hear what opens, copies and closes a descriptor, pass on the ioctls of the descriptors they watch
// themselves, and finish a job before the client maps a buffer. With ETHOSU_RECORD_DIR unset they hear nothing.
#include <pthread.h>

#include <cstdlib>
#include <mutex>
#include <new>

#include "host/backends/common/interposer.h"
#include "host/backends/record/recorder.h"

namespace {

using ethosu::record::AccelRecorder;
using ethosu::record::enabled;
using ethosu::record::NxpRecorder;

void before_fork() { ethosu::record::lock().lock(); }
void after_fork_in_parent() { ethosu::record::lock().unlock(); }
void after_fork_in_child() {
  // The lock belongs to the parent's forking thread, which the child's thread is not (a recursive mutex refuses
  // the unlock): the child starts with a fresh one. The parent's jobs and descriptors are the parent's to record.
  new (&ethosu::record::lock()) std::recursive_mutex;
  AccelRecorder::instance().forget_all();
  NxpRecorder::instance().forget_all();
}

// Jobs still waiting for their results when the process ends are recorded then.
void at_exit() {
  AccelRecorder::instance().finish_all();
  NxpRecorder::instance().finish_all();
}

// Claims nothing: every call goes on to the next definition.
class RecordInterposer final : public ethosu::interpose::Interposer {
 public:
  // The recorders take absolute /dev paths only, so a path relative to an openat() directory is no node of theirs.
  void opened(const char* path, int fd) override {
    if (!enabled()) return;
    static std::once_flag hooks;
    std::call_once(hooks, [] {
      pthread_atfork(before_fork, after_fork_in_parent, after_fork_in_child);
      std::atexit(at_exit);
    });
    AccelRecorder::instance().opened(path, fd);
    NxpRecorder::instance().opened(path, fd);
  }

  void replacing(int fd) override {
    if (!enabled()) return;
    AccelRecorder::instance().replacing(fd);
    NxpRecorder::instance().replacing(fd);
  }

  void duplicated(int from, int to) override {
    if (!enabled()) return;
    AccelRecorder::instance().duplicated(from, to);
    NxpRecorder::instance().duplicated(from, to);
  }

  void closing(int fd) override {
    if (!enabled()) return;
    AccelRecorder::instance().closing(fd);
    NxpRecorder::instance().closing(fd);
  }

  std::optional<int> ioctl(int fd, unsigned long request, void* arg) override {
    if (!enabled()) return std::nullopt;
    if (AccelRecorder::instance().watches(fd)) return AccelRecorder::instance().ioctl(fd, request, arg);
    if (NxpRecorder::instance().watches(fd)) return static_cast<int>(NxpRecorder::instance().ioctl(fd, request, arg));
    return std::nullopt;
  }

  std::optional<void*> mmap(void*, size_t, int, int, int fd, off_t) override {
    if (enabled()) AccelRecorder::instance().before_mmap(fd);
    return std::nullopt;
  }
};

}  // namespace

// Stateless (the recorders keep their own), so never destroyed.
ethosu::interpose::Interposer& ethosu::interpose::interposer() {
  static RecordInterposer shim;
  return shim;
}
