// ethosu-sim: command-line front end. Exit status: 0 ok, 1 simulated fault or output mismatch,
// 2 usage or input error.
#include <cstdint>
#include <cstdio>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "host/cli/args.h"
#include "host/cli/commands.h"
#include "models/kernels/simd_loops.h"
#include "sim/error.h"

#if defined(__GLIBC__)
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace {

// Sanitizer runtimes initialise from .preinit_array too and must see the first malloc: they keep the defaults.
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer) || __has_feature(thread_sanitizer)
#define ETHOSU_CLI_SANITIZER_RUNTIME 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define ETHOSU_CLI_SANITIZER_RUNTIME 1
#endif

#if defined(__GLIBC__) && defined(MADV_HUGEPAGE) && !defined(ETHOSU_CLI_SANITIZER_RUNTIME)
// A run touches some 20 MB of fresh heap (packed weights, regions, the weight cache's keys), and libsystemc's
// static constructors zero-fill a 3 MB buffer before main() starts. In 4 KB pages that is thousands of page
// faults, in a virtual machine as much CPU as a MobileNetV2 run itself; in transparent huge pages (where the kernel
// grants them on request, as Debian's default "madvise" mode does) it is a few dozen. So this runs from the
// executable's .preinit_array, before any shared library's constructors: keep large allocations on the heap, grow
// and keep it in 64 MB steps, ask for huge pages in it, and fault in its first two huge pages at once, where
// libsystemc's buffer lands. Memory beyond those is still only committed where it is touched.
void prefer_huge_pages(int, char**, char**) {
  constexpr uintptr_t kHuge = uintptr_t{2} << 20, kStep = uintptr_t{64} << 20, kBelow = uintptr_t{64} << 10;
  // Start the heap just below a huge-page boundary: the first allocator bookkeeping, touched before the advice,
  // stays in the 4 KB pages below it, and everything from the boundary on can be huge pages.
  const auto start = reinterpret_cast<uintptr_t>(sbrk(0));
  const uintptr_t below = ((start + kBelow + kHuge - 1) & ~(kHuge - 1)) - kBelow;
  if (below > start && sbrk(static_cast<intptr_t>(below - start)) == reinterpret_cast<void*>(-1)) return;
  mallopt(M_MMAP_THRESHOLD, 32 << 20);  // glibc's largest
  mallopt(M_TRIM_THRESHOLD, 512 << 20);
  mallopt(M_TOP_PAD, static_cast<int>(kStep));
  const auto before = reinterpret_cast<uintptr_t>(sbrk(0));
  // Any allocation now grows the heap by the pad, and the trim threshold keeps it. A small one: the allocator writes
  // the free remainder's header right after the block, and a 4 KB page touched there before the advice would keep
  // that whole huge page in 4 KB pages (a 2 MB block put it inside the first huge page, where libsystemc's buffer
  // lands: 3.3 ms of first touches instead of 0.3). volatile: the compiler may drop an unused malloc/free pair.
  void* volatile grow = malloc(1);
  free(grow);
  const auto after = reinterpret_cast<uintptr_t>(sbrk(0));
  const uintptr_t begin = (before + kHuge - 1) & ~(kHuge - 1);
  if (after < begin + 2 * kHuge || madvise(reinterpret_cast<void*>(begin), after - begin, MADV_HUGEPAGE) != 0) return;
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23  // Linux 5.14; older kernels refuse it, and the pages fault in as before
#endif
  madvise(reinterpret_cast<void*>(begin), 2 * kHuge, MADV_POPULATE_WRITE);
}

__attribute__((section(".preinit_array"), used)) void (*preinit_huge_pages)(int, char**, char**) = prefer_huge_pages;
#endif

constexpr const char* kUsage =
    "usage: ethosu-sim <command> [options]\n"
    "\n"
    "A simulator of Arm's Ethos-U NPUs: the U65 (i.MX 93), the U55 and the U85 ('run --list-variants').\n"
    "\n"
    "commands:\n"
    "  disasm FILE        disassemble a command stream (bare, COP1/COP2 payload or Vela .tflite)\n"
    "  asm FILE -o OUT    assemble the text form into a command stream\n"
    "  validate FILE      per-region access extents and every problem the stream has\n"
    "  run ...            run a job (a corpus case directory, a raw stream with regions, or a Vela .tflite)\n"
    "  bench ...          simulated cycles next to Vela's estimate and host speed, per case\n"
    "  replay DIR...      run captured submissions again and compare with their recorded results\n"
    "  calibrate DIR...   fit timing parameters to jobs recorded on a board\n"
    "\n"
    "'ethosu-sim <command> --help' describes each command.\n"
    "ETHOSU_SIM_SIMD=NAME runs the kernels on a lesser SIMD target than this host's best (AVX2_VNNI, AVX2, SSE4,\n"
    "SCALAR, ...; a wrong name lists this host's).\n"
    "exit status: 0 ok, 1 simulated fault or output mismatch, 2 usage or input error\n";

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    std::cerr << kUsage;
    return 2;
  }
  const std::string cmd = args[0];
  args.erase(args.begin());
  if (cmd == "--help" || cmd == "-h" || cmd == "help") {
    std::cout << kUsage;
    return 0;
  }
  if (cmd == "--version") {
    std::cout << "ethosu-sim " << ETHOSU_SIM_VERSION << "\n";
    return 0;
  }
  const ethosu::cli::Subcommand* sub = ethosu::cli::find_subcommand(cmd);
  if (!sub) {
    std::cerr << "ethosu-sim: unknown command '" << cmd << "'\n\n" << kUsage;
    return 2;
  }
  for (const auto& a : args) {
    if (a == "--help" || a == "-h") {
      std::cout << sub->help;
      return 0;
    }
  }
  try {
    ethosu::kernels::apply_simd_environment();  // a bad ETHOSU_SIM_SIMD fails here rather than mid-run
    return sub->run(args);
  } catch (const ethosu::cli::UsageError& e) {
    std::cerr << "ethosu-sim " << cmd << ": " << e.what() << "\n\n" << sub->help;
    return 2;
  } catch (const ethosu::InputError& e) {
    std::cerr << "ethosu-sim " << cmd << ": error: " << e.what() << "\n";
    return 2;
  } catch (const std::bad_alloc&) {
    std::cerr << "ethosu-sim " << cmd << ": error: out of memory\n";
    return 2;
  } catch (const std::exception& e) {
    // Anything else a bad input can provoke (a path the file system refuses, a SystemC report) is still an
    // input error: a message and exit 2, never an abort.
    std::cerr << "ethosu-sim " << cmd << ": error: " << e.what() << "\n";
    return 2;
  }
}
