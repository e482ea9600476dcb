#!/usr/bin/env bash
# The reproducers of the reliability audit through the ethosu-sim CLI (label `robustness`): absurd
# parameters, bad paths and special files, outputs onto special files, huge and junk streams, streams that
# ask for enormous work or memory. Each must end with a clear message and exit status (2 for input errors,
# 1 for a simulated fault), never a signal, a hang (every run has a timeout) or memory beyond a bound (every
# run has a memory limit). Usage: hostile_inputs.sh path/to/ethosu-sim path/to/a/case
set -u
sim="$1"
case_dir="$2"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0 passed=0

# A sanitizer build reserves terabytes of shadow address space, so there the bound is on resident memory
# (the sanitizer aborts beyond it, which fails the check like any other signal).
if [ "${ETHOSU_SIM_SANITIZED:-0}" = 1 ]; then
  export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}hard_rss_limit_mb=3072"
  limit_memory() { :; }
else
  limit_memory() { ulimit -v 3145728; }
fi

# expect STATUS "MESSAGE SUBSTRING" ethosu-sim-args...: within 120 s and 3 GiB of memory.
expect() {
  local status="$1" msg="$2"
  shift 2
  local out got
  out=$(limit_memory; timeout 120 "$sim" "$@" 2>&1)
  got=$?
  if [ "$got" -ne "$status" ] || ! grep -qF -- "$msg" <<<"$out"; then
    echo "FAIL: ethosu-sim $*: exit $got (want $status), output:"
    head -c 2000 <<<"$out" | sed 's/^/    /'
    echo "    (wanted the text: $msg)"
    failures=$((failures + 1))
  else
    passed=$((passed + 1))
  fi
}

# 1. Parameter values that once divided by zero or passed the range but failed later.
expect 2 "is out of range" run "$case_dir" --out "$tmp/o" --set mem.axi1.bytes_per_cycle=0.0002
expect 2 "is out of range" run "$case_dir" --out "$tmp/o" --set mem.axi1.bytes_per_cycle=1024
printf '[System_Config.Slow]\ncore_clock=1e9\naxi0_port=Sram\naxi1_port=Dram\nsram_clock_scale=1.0\ndram_clock_scale=1e-5\nsram_burst_length=32\ndram_burst_length=128\n' \
  > "$tmp/slow.ini"
expect 2 "bytes_per_cycle" run "$case_dir" --out "$tmp/o" --system Slow --vela-ini "$tmp/slow.ini"
expect 0 "total:" run "$case_dir" --out "$tmp/o" --set system.clock_hz=1
expect 2 "read-only" run "$case_dir" --out "$tmp/o" --set system.config=imx93
# Bursts of whole 16-byte beats only: the parameter is named (the run once failed naming neither port nor value).
expect 2 "parameter 'mem.axi1.burst_bytes' = 24 is out of range [16, 4096] in steps of 16" \
  run "$case_dir" --out "$tmp/o" --set mem.axi1.burst_bytes=24

# 2. Paths the file system refuses and special files: messages and exit 2, never an abort.
touch "$tmp/afile"
expect 2 "afile" run "$case_dir" --out "$tmp/afile"
ln -s loop "$tmp/loop"
expect 2 "symbolic links" run "$tmp/loop"
expect 2 "error" run "$tmp/$(printf 'n%.0s' $(seq 1 5000))"
mkdir -p "$tmp/dircase"
cp "$case_dir"/* "$tmp/dircase/" 2>/dev/null
rm -f "$tmp/dircase/manifest.json"
mkdir "$tmp/dircase/manifest.json"
expect 2 "is a directory" run "$tmp/dircase"
rm -rf "$tmp/fifocase" && mkdir "$tmp/fifocase" && cp "$case_dir"/* "$tmp/fifocase/" 2>/dev/null
rm -f "$tmp/fifocase/manifest.json" && mkfifo "$tmp/fifocase/manifest.json"
expect 2 "is not a regular file" run "$tmp/fifocase"
expect 2 "is not a regular file" run "$case_dir" --out "$tmp/o" --config /dev/urandom
expect 2 "is a directory" run "$case_dir" --out "$tmp/o" --config "$tmp"
expect 2 "is not a regular file" run "$case_dir" --out "$tmp/o" --system X --vela-ini /dev/zero

# 3. A case that names a file outside its folder is refused unless allowed.
rm -rf "$tmp/evil" && mkdir "$tmp/evil" && cp "$case_dir"/* "$tmp/evil/" 2>/dev/null
printf 'secret' > "$tmp/secret.bin"
sed -i "s#\"cmdstream.bin\"#\"../secret.bin\"#" "$tmp/evil/manifest.json"
expect 2 "outside the case folder" run "$tmp/evil" --out "$tmp/o" --capture "$tmp/cap"
[ -e "$tmp/cap" ] && { echo "FAIL: a capture was written for a refused case"; failures=$((failures + 1)); }

# 4. Outputs onto special files: written to, never replaced (run as root this once replaced /dev/null).
expect 0 "total:" run "$case_dir" --out "$tmp/o" --trace /dev/null --report /dev/null
if [ ! -c /dev/null ]; then echo "FAIL: /dev/null is no longer a device"; failures=$((failures + 1)); fi
mkfifo "$tmp/fifo.json"
expect 2 "fifo.json: cannot write" run "$case_dir" --out "$tmp/o" --report "$tmp/fifo.json"  # no reader: not waited for
expect 2 "fifo.json: cannot write" run "$case_dir" --out "$tmp/o" --trace "$tmp/fifo.json"
[ -p "$tmp/fifo.json" ] || { echo "FAIL: the FIFO was replaced"; failures=$((failures + 1)); }

# 5. Streams: a stream file over the 16 MiB QSIZE limit is refused from its size, unread (a sparse 1 GiB file once
#    cost 3 GB and 15 s); 8 MiB of junk lists a bounded number of problems.
head -c $((64 << 20)) /dev/urandom > "$tmp/junk64.bin"
expect 2 "over the 16 MiB QSIZE limit" run "$tmp/junk64.bin" --region 1=:4096
expect 2 "16 MiB QSIZE limit" validate "$tmp/junk64.bin"
truncate -s 1G "$tmp/sparse1g.bin"
for command in disasm validate; do
  expect 2 "sparse1g.bin: 1073741824 bytes, over the 16 MiB QSIZE limit" "$command" "$tmp/sparse1g.bin"
done
expect 2 "sparse1g.bin: 1073741824 bytes, over the 16 MiB QSIZE limit" run "$tmp/sparse1g.bin" --region 1=:4096
head -c $((8 << 20)) /dev/urandom > "$tmp/junk8.bin"
expect 1 "more problems from here on are not listed" validate "$tmp/junk8.bin"

# 6. Enormous work from a few hundred bytes: an elementwise operation over 2^29 one-element blocks with zero
#    strides, and a million tiny operations. The work limit refuses the first quickly; memory stays bounded.
cat > "$tmp/blocks.s" <<'ASM'
NPU_SET_IFM_REGION region=1
NPU_SET_IFM_PRECISION activation_type=SIGNED
NPU_SET_IFM_WIDTH0_M1 width_m1=65535
NPU_SET_IFM_HEIGHT0_M1 height_m1=8191
NPU_SET_IFM_HEIGHT1_M1 height_m1=8191
NPU_SET_IFM2_REGION region=1
NPU_SET_IFM2_PRECISION activation_type=SIGNED
NPU_SET_IFM2_WIDTH0_M1 width_m1=65535
NPU_SET_IFM2_HEIGHT0_M1 height_m1=8191
NPU_SET_IFM2_HEIGHT1_M1 height_m1=8191
NPU_SET_OFM_REGION region=1
NPU_SET_OFM_PRECISION activation_type=SIGNED
NPU_SET_OFM_WIDTH_M1 width_m1=65535
NPU_SET_OFM_HEIGHT_M1 height_m1=8191
NPU_SET_OFM_WIDTH0_M1 width_m1=65535
NPU_SET_OFM_HEIGHT0_M1 height_m1=8191
NPU_SET_OFM_HEIGHT1_M1 height_m1=8191
NPU_SET_OFM_SCALE shift=0 scale=1
NPU_SET_ACTIVATION_MIN clip_boundary=-128
NPU_SET_ACTIVATION_MAX clip_boundary=127
NPU_OP_ELEMENTWISE elementwise_mode=ADD
NPU_OP_STOP mask=0x1
ASM
"$sim" asm "$tmp/blocks.s" -o "$tmp/blocks.bin" >/dev/null
expect 1 "simulation limit at" run "$tmp/blocks.bin" --region 1=:4096 --set sim.limits.work_steps=1000000000
{
  sed '/NPU_OP/d; s/65535/0/; s/8191/0/' "$tmp/blocks.s"
  for i in $(seq 1 200000); do echo "NPU_OP_ELEMENTWISE elementwise_mode=ADD"; done
  echo "NPU_OP_STOP mask=0x1"
} | sed 's/width_m1=65535/width_m1=0/; s/height_m1=8191/height_m1=0/' > "$tmp/many.s"
"$sim" asm "$tmp/many.s" -o "$tmp/many.bin" >/dev/null
expect 0 "200000 kernel operations" run "$tmp/many.bin" --region 1=:4096 --report "$tmp/many.json"
grep -q '"ops_not_listed": 100000' "$tmp/many.json" || {
  echo "FAIL: the report of 200000 operations does not say it lists only the first 100000"
  failures=$((failures + 1))
}

# 7. A benchmark repeat count that would never end (and keep a sample per run) is refused before anything runs.
expect 2 "--repeat must be 1 to 1000 runs per case, not 18446744073709551615" bench "$case_dir" \
  --repeat 18446744073709551615

echo "hostile inputs: $passed passed, $failures failed"
[ "$failures" -eq 0 ]
