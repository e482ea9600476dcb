#!/usr/bin/env bash
# Cross-builds ethosu-sim for 64-bit Arm (aarch64) on a Debian 12 x86-64 host and checks, under qemu-user, that
# the Arm SIMD paths (Highway's NEON and SVE targets, the portable conv micro-kernels) give the x86 build's bytes:
#   1. the kernels' unit tests, once per emulated CPU: NEON only, and SVE/SVE2 at each vector length of
#      SVE_BYTES (16 bytes adds Highway's SVE2_128 target, 32 its SVE_256 one);
#   2. simd_targets_corpus_test (every target this CPU runs against the best one) on CORPUS_FILTER;
#   3. `ethosu-sim run` of every corpus case against NATIVE_SIM, the x86 build: the printed report (cycles of
#      every operation included) and the output files must be identical;
#   4. optionally (FULL=1) the whole test suite under qemu.
# Not part of CI (.ci/run): it installs packages (root or sudo) and takes about 10 minutes on two cores from a cold
# build (about 20 with FULL=1; a warm ccache saves 5 to 8 of them).
#
# Usage: tests/cross/aarch64-qemu.sh [BUILD_DIR]        (default: build-arm64 in the source tree)
# Environment:
#   ETHOSU_SIM_SHARED_DIR  conformance data (default: ../shared next to the source tree)
#   NATIVE_SIM             x86 ethosu-sim for step 3 (default: build/ethosu-sim in the source tree; skipped if absent)
#   SVE_BYTES              SVE vector lengths for step 1 (default "16 32 64")
#   CORPUS_FILTER          GoogleTest filter for step 2 (default: every case)
#   CORPUS_SVE_BYTES       SVE vector lengths for step 2 (default "16 32")
#   JOBS                   build jobs (default 2)
#   FULL=1                 also build everything and run ctest under qemu (step 4)
#   SKIP_INSTALL=1         leave the packages alone
set -euo pipefail

src=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$src/build-arm64}
shared=${ETHOSU_SIM_SHARED_DIR:-$src/../shared}
native=${NATIVE_SIM:-$src/build/ethosu-sim}
sve_bytes=${SVE_BYTES:-16 32 64}
corpus_sve_bytes=${CORPUS_SVE_BYTES:-16 32}
corpus_filter=${CORPUS_FILTER:-*}
jobs=${JOBS:-2}
export ETHOSU_SIM_SHARED_DIR=$shared

# --- Packages: the cross compiler, qemu-user and the arm64 builds of the libraries (Debian multiarch).
if [ "${SKIP_INSTALL:-0}" != 1 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  packages=(g++-aarch64-linux-gnu qemu-user cmake ninja-build pkg-config python3 python3-numpy nlohmann-json3-dev
            libboost-dev libsystemc-dev:arm64 libhwy-dev:arm64 libxxhash-dev:arm64 libflatbuffers-dev:arm64
            libgtest-dev:arm64 libgmock-dev:arm64)
  missing=()
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    dpkg --print-foreign-architectures | grep -qx arm64 || $sudo dpkg --add-architecture arm64
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
  fi
fi

# --- Build: the simulator, the kernels' unit tests and the SIMD corpus suite (Python, shims, benchmarks off).
kernel_tests=(kernels_output_stage_test kernels_conv_test kernels_pool_test kernels_simd_loops_test
              kernels_elementwise_test kernels_weight_cache_test kernels_requantize_test weight_decoder_test)
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
start=$(date +%s)
QEMU_CPU=max cmake -S "$src" -B "$build" -G Ninja --toolchain "$src/cmake/aarch64-linux-gnu.cmake" \
  -DCMAKE_BUILD_TYPE=Release -DETHOSU_SIM_WERROR=ON "${launcher[@]}" -DETHOSU_SIM_SHARED_DIR="$shared" \
  -DETHOSU_SIM_PYTHON=OFF -DETHOSU_SIM_SHIMS=OFF -DETHOSU_SIM_BENCHMARKS=OFF
cmake --build "$build" -j "$jobs" --target ethosu-sim simd_targets_corpus_test "${kernel_tests[@]}"
echo "== build: $(($(date +%s) - start)) s"

failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
program() { find "$build" -name "$1" -type f -perm -u+x | head -1; }
# The Highway targets a CPU runs, as the requantize test's parameters name them.
targets() { qemu-aarch64 -cpu "$1" "$(program kernels_requantize_test)" --gtest_list_tests |
            sed -n 's/^  BytesOfEvery[A-Za-z]*\/\([A-Z0-9_]*\).*/\1/p' | tr '\n' ' '; }

# --- 1. Kernel unit tests on a NEON-only CPU and on SVE CPUs of each vector length.
cpus=(cortex-a57)
for b in $sve_bytes; do cpus+=("max,sve-default-vector-length=$b"); done
for cpu in "${cpus[@]}"; do
  echo "== kernel tests, -cpu $cpu: Highway targets $(targets "$cpu")"
  for t in "${kernel_tests[@]}"; do
    out=$(qemu-aarch64 -cpu "$cpu" "$(program "$t")" --gtest_brief=1 2>&1) || { fail "$t on $cpu"; echo "$out"; }
    echo "   $t: $(echo "$out" | grep -E '^\[  (PASSED|FAILED)  \]' | tr '\n' ' ')"
  done
done

# --- 2. Every SIMD target against the best on corpus cases.
for b in $corpus_sve_bytes; do
  cpu="max,sve-default-vector-length=$b"
  echo "== simd_targets_corpus_test, -cpu $cpu: Highway targets $(targets "$cpu"), filter $corpus_filter"
  start=$(date +%s)
  out=$(qemu-aarch64 -cpu "$cpu" "$(program simd_targets_corpus_test)" --gtest_filter="$corpus_filter" 2>&1) ||
    { fail "simd_targets_corpus_test on $cpu"; echo "$out" | grep -v '^\[ target' ; }
  echo "   $(echo "$out" | grep -E '^\[  (PASSED|FAILED|SKIPPED) +\]' | tr '\n' ' ') in $(($(date +%s) - start)) s"
done

# --- 3. `ethosu-sim run` of every corpus case against the x86 build: printed report (cycles of every operation,
# PMU, AXI bytes) and output files identical, on a NEON-only CPU and on an SVE2 one.
if [ -x "$native" ]; then
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  cases=()
  for d in "$shared"/opcorpus/* "$shared"/corpus/* "$shared"/corpus/*/u65_512; do
    [ -f "$d/cmdstream.bin" ] && [ -f "$d/manifest.json" ] && cases+=("$d")
  done
  for cpu in cortex-a57 max; do
    start=$(date +%s) same=0
    for d in "${cases[@]}"; do
      rm -rf "$tmp"/*
      # Both write to the same --out path, which the report prints; a differing exit status counts too.
      "$native" run "$d" --out "$tmp/out" >"$tmp/x86.txt" 2>&1 && rc=0 || rc=$?
      echo "exit $rc" >>"$tmp/x86.txt"
      mkdir -p "$tmp/out" && mv "$tmp/out" "$tmp/x86"  # (a run that fails early writes no folder)
      qemu-aarch64 -cpu "$cpu" "$build/ethosu-sim" run "$d" --out "$tmp/out" >"$tmp/a64.txt" 2>&1 && rc=0 || rc=$?
      echo "exit $rc" >>"$tmp/a64.txt"
      mkdir -p "$tmp/out"
      if diff -q "$tmp/x86.txt" "$tmp/a64.txt" >/dev/null && diff -qr "$tmp/x86" "$tmp/out" >/dev/null; then
        same=$((same + 1))
      else
        fail "ethosu-sim run ${d#"$shared"/} on -cpu $cpu differs from x86"
        diff "$tmp/x86.txt" "$tmp/a64.txt" | head -5
      fi
    done
    echo "== ethosu-sim run, -cpu $cpu: $same of ${#cases[@]} corpus cases identical to x86 in $(($(date +%s) - start)) s"
  done
else
  echo "== x86 comparison skipped (no $native)"
fi

# --- 4. With FULL=1, the whole tree and every test under qemu (-cpu max), but trace_tiny_cnn_bench: its
# `bench --process` starts new `ethosu-sim run` processes, which qemu-user cannot execute without binfmt_misc.
if [ "${FULL:-0}" = 1 ]; then
  start=$(date +%s)
  cmake --build "$build" -j "$jobs"
  echo "== full build: $(($(date +%s) - start)) s"
  start=$(date +%s)
  ctest --test-dir "$build" -j "$jobs" --output-on-failure -E '^trace_tiny_cnn_bench$' >"$build/ctest-qemu.log" 2>&1 ||
    fail "ctest (see $build/ctest-qemu.log)"
  echo "== ctest: $(grep -E 'tests passed' "$build/ctest-qemu.log") in $(($(date +%s) - start)) s"
fi

[ "$failures" -eq 0 ] && echo "== all passed" || echo "== $failures failed"
[ "$failures" -eq 0 ]
