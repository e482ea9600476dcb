// How the entry points (descriptors.cpp, copies.cpp, ...) ask the shim and pass calls on, private to the layer
// but for open_takes_mode, which its unit test checks. Every rule of interposer.h's contract that is not one
// entry point's own is here.
#pragma once

#include <fcntl.h>

#include <cerrno>
#include <cstdarg>
#include <optional>

#include "host/backends/common/interposer.h"
#include "host/backends/common/libc.h"

namespace ethosu::interpose {

// Whether open()'s flags call for its mode argument: O_CREAT, or O_TMPFILE (whose bits include O_DIRECTORY's, so
// the whole of it must be there).
inline bool open_takes_mode(int flags) { return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE; }

// open()'s mode from its variadic arguments (0 when there is none: reading an argument that was not passed is
// undefined). The caller owns `args` (va_start, va_end).
inline mode_t mode_argument(int flags, va_list args) {
  return open_takes_mode(flags) ? static_cast<mode_t>(va_arg(args, int)) : 0;
}

// The shim's answer, or when it declines, the call passed on with errno as the program left it.
template <typename Ask, typename PassOn>
auto ask_or_pass_on(Ask ask, PassOn pass_on) {
  const int saved = errno;
  if (const auto answer = ask()) return *answer;
  errno = saved;
  return pass_on();
}

// A call about a path: the shim is asked only when it claims the path.
template <typename Ask, typename PassOn>
auto ask_about_path(int dirfd, const char* path, Ask ask, PassOn pass_on) {
  return ask_or_pass_on(
      [&]() -> decltype(ask()) {
        if (interposer().claims_path(dirfd, path)) return ask();
        return std::nullopt;
      },
      pass_on);
}

// Tells the shim something; it cannot change errno.
template <typename Notify>
void notify(Notify tell) {
  const int saved = errno;
  tell();
  errno = saved;
}

}  // namespace ethosu::interpose
