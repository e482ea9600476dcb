#!/usr/bin/env bash
# Hand-made broken inputs through the ethosu-sim CLI: each must give its error message and exit status,
# never a crash. Usage: malformed_inputs.sh path/to/ethosu-sim
set -u
sim="$1"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0 passed=0

words() { printf "$(printf '%s' "$*" | sed -E 's/0x(..)(..)(..)(..)/\\x\4\\x\3\\x\2\\x\1/g; s/ //g')"; }

# expect STATUS "MESSAGE SUBSTRING" ethosu-sim-args...
expect() {
  local status="$1" msg="$2"
  shift 2
  local out
  out=$("$sim" "$@" 2>&1)
  local got=$?
  if [ "$got" -ne "$status" ] || ! grep -qF -- "$msg" <<<"$out"; then
    echo "FAIL: ethosu-sim $*: exit $got (want $status), output:"
    sed 's/^/    /' <<<"$out"
    echo "    (wanted the text: $msg)"
    failures=$((failures + 1))
  else
    passed=$((passed + 1))
  fi
}

words 0x00000123 0xffff0000 > "$tmp/good.bin"
words 0x00000123 0x00004030 > "$tmp/truncated.bin"
words 0x00000004 0xffff0000 > "$tmp/unknown.bin"
words 0x00000123 > "$tmp/nostop.bin"
words 0x00070125 0xffff0000 > "$tmp/illegal.bin"
: > "$tmp/empty.bin"
printf 'COP1\x01\x00\x10\x00' > "$tmp/badcop1.bin"
words 0x31504f43 0x00100001 0x10003008 0x10060000 0x00000005 0x00000005 0x00000005 0x00090002 0x00000123 > "$tmp/cop1_short.bin"
printf '\x10\x00\x00\x00TFL3\x00\x00' > "$tmp/truncated.tflite"
head -c 200 /dev/zero | tr '\0' 'z' > "$tmp/garbage.tflite"
# A conv whose OFM lies at 0x1000 in region 1: outside a 256-byte region.
cat > "$tmp/oob.s" <<'ASM'
NPU_SET_IFM_REGION region=1
NPU_SET_IFM_DEPTH_M1 depth_m1=7
NPU_SET_IFM_PRECISION activation_type=SIGNED
NPU_SET_IFM_STRIDE_X stride=8
NPU_SET_IFM_STRIDE_Y stride=32
NPU_SET_IFM_STRIDE_C stride=1
NPU_SET_OFM_REGION region=1
NPU_SET_OFM_BASE0 addr=0x1000
NPU_SET_OFM_WIDTH_M1 width_m1=3
NPU_SET_OFM_HEIGHT_M1 height_m1=3
NPU_SET_OFM_DEPTH_M1 depth_m1=7
NPU_SET_OFM_WIDTH0_M1 width_m1=3
NPU_SET_OFM_HEIGHT0_M1 height_m1=3
NPU_SET_OFM_HEIGHT1_M1 height_m1=3
NPU_SET_IFM_WIDTH0_M1 width_m1=3
NPU_SET_IFM_HEIGHT0_M1 height_m1=3
NPU_SET_IFM_HEIGHT1_M1 height_m1=3
NPU_SET_OFM_PRECISION activation_type=SIGNED
NPU_SET_OFM_STRIDE_X stride=8
NPU_SET_OFM_STRIDE_Y stride=32
NPU_SET_OFM_STRIDE_C stride=1
NPU_OP_POOL pooling_mode=MAX
NPU_OP_STOP mask=0xffff
ASM
# A MAX pool copying 16 int8 channels from region 1 offset 0 to OFM_BASE0 (appended per case).
pool() {
  cat <<ASM
NPU_SET_IFM_REGION region=1
NPU_SET_IFM_DEPTH_M1 depth_m1=15
NPU_SET_IFM_PRECISION activation_type=SIGNED
NPU_SET_IFM_STRIDE_X stride=16
NPU_SET_IFM_STRIDE_Y stride=16
NPU_SET_IFM_STRIDE_C stride=1
NPU_SET_OFM_REGION region=1
NPU_SET_OFM_BASE0 addr=$1
NPU_SET_OFM_DEPTH_M1 depth_m1=15
NPU_SET_OFM_PRECISION activation_type=SIGNED
NPU_SET_OFM_STRIDE_X stride=16
NPU_SET_OFM_STRIDE_Y stride=16
NPU_SET_OFM_STRIDE_C stride=1
NPU_SET_ACTIVATION_MIN clip_boundary=-128
NPU_SET_ACTIVATION_MAX clip_boundary=127
NPU_OP_POOL pooling_mode=MAX
NPU_OP_STOP mask=0xffff
ASM
}
# A 1x1 conv whose 16-byte weight stream (region 4) starts with the reserved ZDIV value 5.
cat > "$tmp/conv.s" <<'ASM'
NPU_SET_IFM_REGION region=1
NPU_SET_IFM_PRECISION activation_type=SIGNED
NPU_SET_OFM_REGION region=1
NPU_SET_OFM_BASE0 addr=0x20
NPU_SET_OFM_PRECISION activation_type=SIGNED
NPU_SET_WEIGHT_REGION region=4
NPU_SET_WEIGHT_LENGTH length=16
NPU_SET_SCALE_REGION region=5
NPU_SET_SCALE_LENGTH length=16
NPU_OP_CONV
NPU_OP_STOP mask=0xffff
ASM
printf '\x05\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00' > "$tmp/badweights.bin"
# Case folders: a 256-byte region 1, a 16-byte input at 0 and the output at `ofm`.
make_case() {  # make_case NAME OFM_BASE
  local dir="$tmp/$1"
  mkdir -p "$dir"
  pool "$2" > "$dir/pool.s"
  "$sim" asm "$dir/pool.s" -o "$dir/cmdstream.bin" > /dev/null
  printf '0123456789abcdef' > "$dir/input0.bin"
  cat > "$dir/manifest.json" <<JSON
{"name": "$1", "accelerator": "ethos-u65-256", "cmdstream": {"file": "cmdstream.bin"},
 "regions": {"1": {"size_bytes": 256}},
 "inputs": [{"name": "ifm", "region": 1, "offset": 0, "size_bytes": 16, "file": "input0.bin"}],
 "outputs": [{"name": "ofm", "region": 1, "offset": 32, "size_bytes": 16}]}
JSON
}
make_case case_good 0x20
make_case case_small_region 0x1000
make_case case_short_input 0x20
printf '0123456789abcde' > "$tmp/case_short_input/input0.bin"
make_case case_missing_input 0x20
rm "$tmp/case_missing_input/input0.bin"
make_case case_bad_manifest 0x20
printf '{"name": "case_bad_manifest", ' > "$tmp/case_bad_manifest/manifest.json"
printf 'NPU_SET_IFM_REGION region=9\n' > "$tmp/badfield.s"
printf 'NPU_SET_NOTHING\n' > "$tmp/badcmd.s"

expect 0 "cmd0.NPU_SET_PARALLEL_MODE" disasm --format vela "$tmp/good.bin"
expect 1 "cmd1 payload word missing" disasm "$tmp/truncated.bin"
expect 1 "unknown cmd0 opcode 0x4" disasm "$tmp/unknown.bin"
expect 1 "no NPU_OP_STOP" disasm "$tmp/nostop.bin"
expect 1 "activation_function = 7 is not a defined" validate "$tmp/illegal.bin"
expect 2 "empty" disasm "$tmp/empty.bin"
expect 2 "badcop1.bin" disasm "$tmp/badcop1.bin"
expect 2 "cop1_short.bin" disasm "$tmp/cop1_short.bin"
expect 2 "truncated.tflite" disasm "$tmp/truncated.tflite"
expect 2 "garbage.tflite" disasm "$tmp/garbage.tflite"
expect 2 "no such file" disasm "$tmp/missing.bin"
expect 2 "is a directory" disasm "$tmp"
expect 2 "unknown option '--bogus'" disasm --bogus "$tmp/good.bin"
expect 2 "unknown command 'frobnicate'" frobnicate
expect 2 "missing FILE" validate
expect 2 "region must be 0-7" validate --region 9=16 "$tmp/good.bin"
expect 2 "is not a size" validate --region 1=lots "$tmp/good.bin"
expect 2 "badfield.s:1: value 9 does not fit NPU_SET_IFM_REGION.region" asm "$tmp/badfield.s" -o "$tmp/x.bin"
expect 2 "badcmd.s:1: unknown command 'NPU_SET_NOTHING'" asm "$tmp/badcmd.s" -o "$tmp/x.bin"
expect 2 "missing -o OUT.bin" asm "$tmp/badcmd.s"
expect 0 "" asm "$tmp/oob.s" -o "$tmp/oob.bin"
expect 1 "OFM region 1 bytes [0x1000, 0x1080) ends beyond the region size 0x100" validate --region 1=256 "$tmp/oob.bin"
expect 1 "bus error" run "$tmp/oob.bin" --region 1=:256
expect 2 "do not fit region 1" run "$tmp/oob.bin" --region 1=:256 --input "1:250=$tmp/truncated.bin"
expect 2 "a raw stream needs at least one --region" run "$tmp/good.bin"
expect 0 "" asm "$tmp/conv.s" -o "$tmp/conv.bin"
expect 1 "weight decoder fault" run "$tmp/conv.bin" --region 1=:64 --region 4="$tmp/badweights.bin" --region 5=:16
expect 1 "command parse error" run "$tmp/illegal.bin" --region 1=:64
# A 2 KiB int16 LUT in slot 7 would end past the 48 KiB SHRAM: a bus error on both models, no overrun.
cat > "$tmp/lut.s" <<'ASM'
NPU_SET_ACTIVATION activation_function=TABLE_7
NPU_SET_IFM_REGION region=1
NPU_SET_IFM_DEPTH_M1 depth_m1=15
NPU_SET_IFM_PRECISION activation_type=SIGNED
NPU_SET_IFM_STRIDE_X stride=16
NPU_SET_IFM_STRIDE_Y stride=16
NPU_SET_IFM_STRIDE_C stride=1
NPU_SET_OFM_REGION region=1
NPU_SET_OFM_BASE0 addr=0x40
NPU_SET_OFM_DEPTH_M1 depth_m1=15
NPU_SET_OFM_PRECISION activation_type=SIGNED activation_precision=B16
NPU_SET_OFM_STRIDE_X stride=32
NPU_SET_OFM_STRIDE_Y stride=32
NPU_SET_OFM_STRIDE_C stride=2
NPU_SET_ACTIVATION_MIN clip_boundary=-32768
NPU_SET_ACTIVATION_MAX clip_boundary=32767
NPU_OP_POOL pooling_mode=MAX
NPU_OP_STOP mask=0xffff
ASM
expect 0 "" asm "$tmp/lut.s" -o "$tmp/lut.bin"
expect 1 "LUT SHRAM bytes [0xbf00, 0xc700) outside the 49152-byte SHRAM" run "$tmp/lut.bin" --region 1=:4096
expect 1 "LUT SHRAM bytes [0xbf00, 0xc700)" run "$tmp/lut.bin" --region 1=:4096 --functional
expect 0 "output 0 (ofm): 16 bytes" run "$tmp/case_good" --out "$tmp/out"
expect 1 "bus error at 0x000058: NPU_OP_POOL: OFM bytes [0x1000, 0x1010) outside region 1 (256 bytes)" \
  run "$tmp/case_small_region" --out "$tmp/out"
expect 2 "$tmp/case_short_input/input0.bin holds 15 bytes but the manifest says 16" run "$tmp/case_short_input"
expect 2 "$tmp/case_missing_input/input0.bin does not exist" run "$tmp/case_missing_input"
expect 2 "$tmp/case_bad_manifest/manifest.json: not valid JSON" run "$tmp/case_bad_manifest"
expect 2 "no such file" run "$tmp/good.bin" --region "0=$tmp/nothere.bin"

# Captures (host/recording/CAPTURE.md): `run --capture` writes one, `replay` reproduces it or names what is wrong.
expect 0 "capture -> $tmp/cap" run "$tmp/case_good" --out "$tmp/out" --capture "$tmp/cap"
expect 0 "identical to the recorded run" replay "$tmp/cap"
expect 0 "identical to the recorded run" replay "$tmp/cap" --functional
expect 1 "bus error" run "$tmp/case_small_region" --out "$tmp/out" --capture "$tmp/cap_fault"
expect 0 "identical to the recorded run" replay "$tmp/cap_fault"
expect 1 "PMCCNTR (cycle counter)" replay "$tmp/cap" --set mem.axi1.read_latency_cycles=2000 --save "$tmp/saved"
expect 0 "identical to the recorded run" replay "$tmp/saved"
expect 2 "unknown parameter 'mem.axi1.bogus'" replay "$tmp/cap" --set mem.axi1.bogus=1
expect 0 "2 of 2 captures identical" replay "$tmp/cap" "$tmp/cap_fault"
expect 2 "--save takes one CAPTURE_DIR" replay "$tmp/cap" "$tmp/cap_fault" --save "$tmp/saved"
expect 2 "missing CAPTURE_DIR" replay
expect 2 "$tmp/nocap: not a capture folder" replay "$tmp/nocap"
expect 2 "$tmp/case_good/capture.json: missing" replay "$tmp/case_good"
expect 2 "which is not part of a capture" run "$tmp/case_good" --out "$tmp/out" \
  --capture "$tmp/case_good"
# corrupt NAME SED-SCRIPT-FOR-capture.json: a copy of the good capture with its manifest edited.
corrupt() {
  cp -r "$tmp/cap" "$tmp/$1"
  sed -i -e "$2" "$tmp/$1/capture.json"
}
corrupt cap_cycles 's/"cycle_counter": [0-9]*/"cycle_counter": 1/'
expect 1 "PMCCNTR (cycle counter) " replay "$tmp/cap_cycles"
expect 1 "1 of 2 captures identical" replay "$tmp/cap" "$tmp/cap_cycles"
corrupt cap_version 's/"version": 2/"version": 7/'
expect 2 "cap_version/capture.json: version: version 7 is not known" replay "$tmp/cap_version"
corrupt cap_variant 's/"variant": "ethos-u65-256"/"variant": "ethos-u99-64"/'
expect 2 "cap_variant/capture.json: variant: unknown NPU variant 'ethos-u99-64'" replay "$tmp/cap_variant"
corrupt cap_json 's/"results"/results/'
expect 2 "cap_json/capture.json: not valid JSON" replay "$tmp/cap_json"
corrupt cap_truncated ''
head -c 255 "$tmp/cap/region1.before.bin" > "$tmp/cap_truncated/region1.before.bin"
expect 2 "cap_truncated/region1.before.bin: 255 bytes, capture.json says 256" replay "$tmp/cap_truncated"
corrupt cap_changed ''
printf 'X' | dd of="$tmp/cap_changed/region1.after.bin" bs=1 seek=40 conv=notrunc 2> /dev/null
expect 2 "cap_changed/region1.after.bin: CRC-32" replay "$tmp/cap_changed"
corrupt cap_missing ''
rm "$tmp/cap_missing/stream.bin"
expect 2 "cap_missing/stream.bin: missing" replay "$tmp/cap_missing"
corrupt cap_extra ''
: > "$tmp/cap_extra/region5.after.bin"
expect 2 "cap_extra/region5.after.bin: not part of the capture" replay "$tmp/cap_extra"

echo "$passed passed, $failures failed"
[ "$failures" -eq 0 ]
