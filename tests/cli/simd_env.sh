#!/usr/bin/env bash
# ETHOSU_SIM_SIMD through the CLI. An unknown name is an input error (exit 2) naming this host's targets, best
# first; the last of them (the build's portable one: SCALAR with GCC, EMU128 with clang), given in lower case,
# runs the sample job exactly, with the portable conv micro-kernels. Usage: simd_env.sh ethosu-sim TRACE_DIR
set -u
sim="$1" trace="$2"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

out=$(ETHOSU_SIM_SIMD=NOSUCH "$sim" run "$trace" --out "$tmp/out" 2>&1)
status=$?
prefix="error: SIMD target 'NOSUCH' is not one this host runs and this build holds ("
if [ "$status" -ne 2 ] || ! grep -qF -- "$prefix" <<<"$out"; then
  echo "FAIL: unknown target: exit $status (want 2), output: $out"
  exit 1
fi
list=${out##*"$prefix"}
list=${list%%)*}
last=${list##*, }
echo "targets: $list"

out=$(ETHOSU_SIM_SIMD=$(tr '[:upper:]' '[:lower:]' <<<"$last") "$sim" bench "$trace" --repeat 1 2>&1)
status=$?
if [ "$status" -ne 0 ] || ! grep -qF "Highway target $last, conv micro-kernels generic" <<<"$out" ||
   ! grep -qE '^tiny_cnn .* exact$' <<<"$out"; then
  echo "FAIL: ETHOSU_SIM_SIMD=$last: exit $status, output: $out"
  exit 1
fi
echo "ok: $last taken, sample job exact"
