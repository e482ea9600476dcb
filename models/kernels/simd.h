// Internal: run-time ISA dispatch for plain loops the compiler vectorises.
//
// ETHOSU_SIMD_CLONES makes GCC/Clang emit AVX-512, AVX2 and baseline versions of a function and
// pick one at load time (ifunc), so binaries stay portable without -march flags.
#pragma once

#if defined(__x86_64__) && defined(__ELF__)
#define ETHOSU_SIMD_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define ETHOSU_SIMD_CLONES
#endif
