#!/bin/sh
# Driver payloads made by the project's own assembler (`asm --payload`) run like the bare stream: COP1, COP2,
# COP2 with separate I/O regions, and a Vela 3.2 header (product 0), which runs only with --variant.
# Usage: payloads.sh ETHOSU_SIM TINY_CNN_SOURCE_DIR TINY_CNN_BUILD_DIR
set -u
sim=$1 src=$2 case=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# run NAME PAYLOAD [options...]: the tiny_cnn regions and input, the logits dumped to $tmp/NAME.out
run() {
  name=$1 payload=$2
  shift 2
  "$sim" run "$payload" --functional --region 0="$case/region0_flash.bin" --region 1=:3328 \
    --input 1:0="$case/input0.bin" --dump 1:1280:10="$tmp/$name.out" "$@" >"$tmp/$name.log" 2>&1
}

"$sim" asm "$src/tiny_cnn.s" -o "$tmp/bare.bin" || fail "asm bare"
"$sim" asm "$src/tiny_cnn.s" -o "$tmp/cop1.bin" --payload COP1 || fail "asm COP1"
"$sim" asm "$src/tiny_cnn.s" -o "$tmp/cop2.bin" --payload COP2 --staging-bytes 0 || fail "asm COP2"
"$sim" asm "$src/tiny_cnn.s" -o "$tmp/cop2io.bin" --payload COP2 --separate-io-regions || fail "asm COP2 separate"
"$sim" asm "$src/tiny_cnn.s" -o "$tmp/old.bin" --payload COP1 --config-word 0x00003008 || fail "asm old header"

for p in cop1 cop2 cop2io; do
  run "$p" "$tmp/$p.bin" || { fail "$p run exit $?"; cat "$tmp/$p.log"; }
  cmp -s "$tmp/$p.out" "$case/expected_output.bin" || fail "$p output differs"
done
for kind in disasm validate; do
  "$sim" "$kind" "$tmp/cop2.bin" >"$tmp/$kind.txt" 2>&1 || fail "$kind of a COP2 payload (exit $?)"
done
"$sim" disasm "$tmp/bare.bin" >"$tmp/bare.txt" 2>&1
cmp -s "$tmp/bare.txt" "$tmp/disasm.txt" || fail "disasm of COP2 differs from the bare stream's"

# The old header: refused without a variant, as Arm's core driver refuses it; run with one, and a warning.
run old "$tmp/old.bin"
status=$?
[ "$status" -eq 2 ] || fail "old header without --variant: exit $status, expected 2"
grep -q "names ethos-u55-256 (CONFIG word 0x00003008, product 0)" "$tmp/old.log" || fail "old header: no message"
run old "$tmp/old.bin" --variant ethos-u65-256 || { fail "old header with --variant: exit $?"; cat "$tmp/old.log"; }
grep -q "warning: .*names ethos-u55-256.*running it on ethos-u65-256" "$tmp/old.log" || fail "old header: no warning"
cmp -s "$tmp/old.out" "$case/expected_output.bin" || fail "old header output differs"

[ "$failures" -eq 0 ] && echo "payloads: all passed"
exit "$failures"
