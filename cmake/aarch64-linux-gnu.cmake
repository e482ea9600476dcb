# Toolchain file: cross-build for 64-bit Arm Linux on a Debian x86-64 host (multiarch arm64 libraries, Debian's
# g++-aarch64-linux-gnu), the programs run under qemu-user. Used by tests/cross/aarch64-qemu.sh; see that script
# for the packages.
#
# QEMU_CPU (environment, at configure time) picks the emulated CPU: "max" (default) has SVE and SVE2, so that every
# Highway target the build holds can run; "cortex-a57" has NEON only.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
# No sysroot: Debian's cross compiler already searches /usr/include and /usr/lib/aarch64-linux-gnu, where the
# :arm64 packages put their files. pkg-config must read only their .pc files, not the host's.
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig)
set(ENV{PKG_CONFIG_PATH} "")

if(DEFINED ENV{QEMU_CPU} AND NOT "$ENV{QEMU_CPU}" STREQUAL "")
  set(ETHOSU_SIM_QEMU_CPU "$ENV{QEMU_CPU}")
else()
  set(ETHOSU_SIM_QEMU_CPU max)
endif()
# The test programs (GoogleTest's discovery at build time, ctest) and the build's own uses of ethosu-sim run here.
# The arm64 loader and libraries are those of the multiarch :arm64 packages, found at their host paths.
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64;-cpu;${ETHOSU_SIM_QEMU_CPU})
