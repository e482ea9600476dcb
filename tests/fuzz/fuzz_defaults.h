// libFuzzer defaults a target sets for itself from LLVMFuzzerInitialize: a maximum input length, unless the
// command line gives one. Streams of a few hundred commands reach every decoder and engine path; long ones only
// make a slow target slower (an exec of a 64 KiB stream costs about 50 of a 1 KiB one under the sanitizers).
#pragma once

#include <cstring>
#include <string>
#include <vector>

namespace ethosu::fuzz {

inline void default_max_len(int* argc, char*** argv, size_t max_len) {
  for (int i = 1; i < *argc; ++i)
    if (std::strncmp((*argv)[i], "-max_len=", 9) == 0) return;
  static std::string flag;
  static std::vector<char*> args;
  flag = "-max_len=" + std::to_string(max_len);
  args.assign(*argv, *argv + *argc);
  args.insert(args.begin() + 1, flag.data());  // flags before the corpus folders
  args.push_back(nullptr);
  *argc += 1;
  *argv = args.data();
}

}  // namespace ethosu::fuzz
