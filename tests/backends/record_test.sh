#!/bin/sh
# The recorder (libethosu-record.so) over the simulator's own driver shims, which play a board with a secret
# configuration. Modes:
#   transparent BUILD WORK       without the corpus: the shim tests' clients (error paths, Mesa's sequence, threads,
#                                fork, NXP robustness) pass with the recorder in between, every recording replays with
#                                identical outputs, and bad recordings are refused naming the file
#   calibrate accel|accel-u85|nxp BUILD SHARED WORK
#                                records corpus jobs on the secret board (accel-u85: an Ethos-U85-256 board running
#                                corpus-u85's compilations for it), checks they replay to the byte (and to the cycle
#                                on the secret configuration), fits the memory parameters on some jobs from the
#                                default configuration and checks the values and the cycle error on the others
# BUILD is the build folder. Exit 0 pass, 1 fail, 77 skip (no corpus).
set -u
mode=$1
shift

# The "board": the secret configuration calibration has to find (DRAM latency, bandwidth and clock).
SECRET="mem.axi1.read_latency_cycles=800;mem.axi1.bytes_per_cycle=2.0;system.clock_hz=800000000"
PY=/usr/bin/python3

fail() {
  echo "FAIL: $*"
  exit 1
}

# expect STATUS TEXT COMMAND...: the command exits with STATUS and prints TEXT (stdout or stderr).
expect() {
  want=$1 text=$2
  shift 2
  out=$("$@" 2>&1)
  got=$?
  [ "$got" -eq "$want" ] || fail "$* exited $got, expected $want: $out"
  printf '%s\n' "$out" | grep -qF -- "$text" || fail "$* did not say '$text': $out"
}

# json_check FILE PYTHON-EXPRESSION-OVER-j MESSAGE
json_check() {
  $PY -c "import json,sys; j=json.load(open(sys.argv[1])); sys.exit(0 if ($2) else 1)" "$1" || {
    cat "$1"
    fail "$3"
  }
}

if [ "$mode" = transparent ]; then
  build=$1 work=$2
  rec=$build/host/backends/record/libethosu-record.so
  accel=$build/host/backends/accel/libethosu-sim-accel.so
  nxp=$build/host/backends/nxp/libethosu-sim-nxp.so
  sim=$build/ethosu-sim
  tiny=$build/traces/tiny_cnn
  rm -rf "$work" && mkdir -p "$work" || exit 1
  # Inert without ETHOSU_RECORD_DIR: nothing written, the client passes.
  (cd "$work" && LD_PRELOAD="$rec $accel" "$build/tests/backends/accel_mesa_client" "$tiny") > /dev/null ||
    fail "Mesa's sequence under an inert recorder"
  [ -z "$(ls -A "$work")" ] || fail "an inert recorder wrote $(ls "$work")"
  run() {
    dir=$1
    shift
    env ETHOSU_RECORD_DIR="$work/$dir" ETHOSU_RECORD_PMU=CYCLE,NPU_ACTIVE "$@" > "$work/$dir.log" 2>&1 ||
      { cat "$work/$dir.log"; fail "$* with the recorder"; }
  }
  run errors env LD_PRELOAD="$rec $accel" "$build/tests/backends/accel_client" --errors
  run mesa env LD_PRELOAD="$rec $accel" "$build/tests/backends/accel_mesa_client" "$tiny"
  run fork env LD_PRELOAD="$rec $accel" "$build/tests/backends/accel_mesa_client" --fork "$tiny"
  run threads env LD_PRELOAD="$rec $accel" ETHOSU_SIM_FUNCTIONAL=1 "$build/tests/backends/accel_mesa_client" --threads
  run nxp env LD_PRELOAD="$rec $nxp" "$build/tests/backends/nxp_client" --robustness "$tiny" "$build/tests/backends/models"
  for dir in errors mesa fork threads nxp; do
    n=$(ls "$work/$dir" | wc -l)
    [ "$n" -gt 0 ] || fail "nothing recorded in $dir"
    "$sim" replay --json "$work/$dir"/* > "$work/$dir.json" || { cat "$work/$dir.json"; fail "replay of $dir"; }
    json_check "$work/$dir.json" "all(x['outputs_identical'] and x['recorded_on'] == 'hardware' for x in j['jobs'])" \
      "$dir: a recording does not replay with identical outputs"
    echo "$dir: $n recordings replay with identical outputs"
  done
  # The Mesa client counts nothing itself: the recorder's own perfmon gave the cycles, which the same machine
  # reproduces exactly.
  json_check "$work/mesa.json" "all(x['cycle_error'] == 0 for x in j['jobs'])" "Mesa: the recorder's perfmon cycles"
  # A functional difference: an output byte the simulator does not write.
  cap=$(ls -d "$work/mesa"/* | head -1)
  cp -r "$cap" "$work/changed"
  $PY - "$work/changed" << 'EOF' || fail "could not edit the recording"
import json, sys, zlib
d = sys.argv[1]
m = json.load(open(d + "/capture.json"))
entry = m["results"]["regions"][0]
path = d + "/" + entry["file"]
data = bytearray(open(path, "rb").read())
data[0] ^= 0x5a
open(path, "wb").write(data)
entry["crc32"] = "%08x" % zlib.crc32(data)
json.dump(m, open(d + "/capture.json", "w"))
EOF
  expect 1 "FUNCTIONAL DIFFERENCE: region 1 after the run: 1 of" "$sim" replay "$work/changed"
  # Bad recordings: the error names the file.
  cp -r "$cap" "$work/truncated"
  f=$(ls "$work/truncated"/region*.before.bin | head -1)
  head -c 10 "$f" > "$f.tmp" && mv "$f.tmp" "$f"
  expect 2 "$f: 10 bytes" "$sim" replay "$work/truncated"
  cp -r "$cap" "$work/variant"
  sed -i 's/"variant": "ethos-u65-256"/"variant": "ethos-u65-512"/' "$work/variant/capture.json"
  expect 2 "$work/variant/capture.json: device.config: 0x10003008 is the CONFIG of an ethos-u65-256" \
    "$sim" replay "$work/variant"
  inf=$(ls -d "$work/nxp"/* | head -1)
  cp -r "$inf" "$work/ifm"
  printf 'x' >> "$work/ifm/ifm0.before.bin"
  expect 2 "$work/ifm/ifm0.before.bin" "$sim" replay "$work/ifm"
  echo "PASSED"
  exit 0
fi

[ "$mode" = calibrate ] || fail "unknown mode $mode"
interface=$1 build=$2 shared=${ETHOSU_SIM_SHARED_DIR:-$3} work=$4
[ -d "$shared/corpus" ] && [ -d "$shared/opcorpus" ] || {
  echo "SKIP: no conformance data at $shared"
  exit 77
}
[ "$interface" != accel-u85 ] || [ -d "$shared/corpus-u85" ] || {
  echo "SKIP: no corpus-u85 at $shared"
  exit 77
}
rec=$build/host/backends/record/libethosu-record.so
sim=$build/ethosu-sim
rm -rf "$work" && mkdir -p "$work" || exit 1
board="$work/board"
# Jobs that load DRAM latency and bandwidth differently: small operators, large ones, whole models. The last
# three are held back from the fit.
if [ "$interface" = accel ]; then
  shim=$build/host/backends/accel/libethosu-sim-accel.so
  for c in opcorpus/add_i8 opcorpus/conv2d_3x3_large_i8 opcorpus/fc_1024x256_large_i8 corpus/kws_dscnn_mlperf \
           corpus/ic_resnet8_mlperf corpus/ad_fc_autoencoder_mlperf corpus/person_detect_int8_tflm \
           opcorpus/dwconv_3x3_large_i8 opcorpus/avgpool_7x7_global_i8 opcorpus/mul_i8; do
    env ETHOSU_SIM_SET="$SECRET" ETHOSU_RECORD_DIR="$board" LD_PRELOAD="$rec $shim" \
      "$build/tests/backends/accel_client" "$shared/$c" --timed || fail "accel_client $c on the board"
  done
elif [ "$interface" = accel-u85 ]; then
  shim=$build/host/backends/accel/libethosu-sim-accel.so
  for c in add_i8 conv2d_3x3_large_i8 fc_1024x256_large_i8 kws_dscnn_mlperf ic_resnet8_mlperf \
           ad_fc_autoencoder_mlperf person_detect_int8_tflm dwconv_3x3_large_i8 avgpool_7x7_global_i8 mul_i8; do
    env ETHOSU_SIM_VARIANT=ethos-u85-256 ETHOSU_SIM_SET="$SECRET" ETHOSU_RECORD_DIR="$board" LD_PRELOAD="$rec $shim" \
      "$build/tests/backends/accel_client" "$shared/corpus-u85/$c/ethos-u85-256" --timed ||
      fail "accel_client $c on the U85 board"
  done
  grep -q '"variant": "ethos-u85-256"' "$(ls -d "$board"/* | head -1)/capture.json" ||
    fail "the recording does not name the U85 it was made on"
else
  shim=$build/host/backends/nxp/libethosu-sim-nxp.so
  # nxp_client --model runs each model twice: per-tensor buffers, then the arena. It counts nothing; the
  # recorder's PMU configuration gives the cycles.
  for c in kws_dscnn_mlperf ad_fc_autoencoder_mlperf person_detect_int8_tflm ic_resnet8_mlperf vww_mobilenetv1_mlperf; do
    env ETHOSU_SIM_SET="$SECRET" ETHOSU_RECORD_DIR="$board" ETHOSU_RECORD_PMU=CYCLE LD_PRELOAD="$rec $shim" \
      "$build/tests/backends/nxp_client" --model "$shared/corpus/$c/vela_u65_256.tflite" "$shared/corpus/$c/input.bin" \
      "$work/out_$c" || fail "nxp_client $c on the board"
  done
fi
all=$(ls -d "$board"/* | sort)
n=$(echo "$all" | wc -l)
train=$(echo "$all" | head -n $((n - 3)))
held=$(echo "$all" | tail -n 3)

# To the byte on the default machine; to the cycle on the board's own.
"$sim" replay $all > "$work/replay.txt" || { cat "$work/replay.txt"; fail "the recordings do not replay to the byte"; }
cat "$work/replay.txt"
"$sim" replay --json --set mem.axi1.read_latency_cycles=800 --set mem.axi1.bytes_per_cycle=2.0 \
  --set system.clock_hz=800000000 $all > "$work/secret.json"
json_check "$work/secret.json" "all(x['outputs_identical'] and x['cycle_error'] == 0 and all(c['simulated'] == c['recorded'] for c in x['counters']) for x in j['jobs'])" \
  "on the board's configuration the recordings must replay to the cycle"

# The fit, from the default configuration, on all but the held-back jobs.
"$sim" calibrate $train --fit mem.axi1.read_latency_cycles,mem.axi1.bytes_per_cycle -o "$work/fit.cfg" --json \
  > "$work/fit.json" || fail "calibrate"
json_check "$work/fit.json" \
  "{p['name']: float(p['after']) for p in j['parameters']} and abs(float([p for p in j['parameters'] if p['name'] == 'mem.axi1.read_latency_cycles'][0]['after']) / 800 - 1) < 0.1 and abs(float([p for p in j['parameters'] if p['name'] == 'mem.axi1.bytes_per_cycle'][0]['after']) / 2.0 - 1) < 0.1" \
  "the fitted parameters are not within 10 % of the board's"
json_check "$work/fit.json" "j['median_abs_cycle_error_before'] > 0.1 and not j['flat_directions']" \
  "the default configuration should be far off and both parameters determined"
"$sim" replay --config "$work/fit.cfg" --json $held > "$work/held.json" || fail "replay of the held-back jobs"
json_check "$work/held.json" "all(x['outputs_identical'] and abs(x['cycle_error']) < 0.02 for x in j['jobs'])" \
  "the held-back jobs' cycle error is not below 2 % after calibration"
cat "$work/fit.cfg"
$PY -c "import json,sys; print('held-back cycle errors:', ', '.join('%+.3f %%' % (100 * x['cycle_error']) for x in json.load(open(sys.argv[1]))['jobs']))" "$work/held.json"
echo "PASSED"
