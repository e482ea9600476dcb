#!/bin/sh
# `ethosu-sim bench` in both modes on the tiny_cnn case, and the host-time parts of a `run --report`: the rows
# carry the split of host time, the outputs are checked, and the parts never exceed the time they split.
# Usage: bench.sh ETHOSU_SIM PYTHON3 TINY_CNN_BUILD_DIR
set -u
sim=$1 python=$2 case=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

"$sim" bench "$case" --repeat 3 --csv "$tmp/in.csv" >"$tmp/in.txt" 2>&1 || { fail "in-process bench exit $?"; cat "$tmp/in.txt"; }
"$sim" bench "$case" --repeat 2 --process --csv "$tmp/proc.csv" >"$tmp/proc.txt" 2>&1 ||
  { fail "--process bench exit $?"; cat "$tmp/proc.txt"; }
"$sim" run "$case" --out "$tmp/out" --report "$tmp/report.json" >"$tmp/run.txt" 2>&1 || { fail "run exit $?"; cat "$tmp/run.txt"; }

"$python" - "$tmp" <<'EOF' || fail "rows or report"
import csv, json, sys
tmp = sys.argv[1]
bad = []
for mode in ("in", "proc"):
    rows = list(csv.DictReader(open(f"{tmp}/{mode}.csv")))
    if len(rows) != 1:
        bad.append(f"{mode}: {len(rows)} rows")
        continue
    r = rows[0]
    if r["case"] != "tiny_cnn" or r["outputs"] != "exact":
        bad.append(f"{mode}: case {r['case']}, outputs {r['outputs']}")
    t = {k: float(r[k + "_seconds"]) for k in ("cpu", "wall", "weights", "kernels", "timing", "rest")}
    if min(t.values()) < 0 or t["cpu"] <= 0 or t["kernels"] <= 0:
        bad.append(f"{mode}: times {t}")
    # The parts are measured inside the run: they and the rest add up to its wall time.
    parts = t["weights"] + t["kernels"] + t["timing"] + t["rest"]
    if abs(parts - t["wall"]) > 1e-5 + 1e-3 * t["wall"]:
        bad.append(f"{mode}: parts {parts} against wall {t['wall']}")
    if (r["first_cpu_seconds"] == "") != (mode == "proc"):
        bad.append(f"{mode}: first run '{r['first_cpu_seconds']}'")
host = json.load(open(f"{tmp}/report.json"))["host"]
parts = [host[k] for k in ("weights_seconds", "kernels_seconds", "dma_seconds", "timing_seconds")]
if min(parts) < 0 or host["kernels_seconds"] <= 0 or sum(parts) > host["total_seconds"]:
    bad.append(f"report host {host}")
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
EOF

"$sim" bench "$case" --repeat 0 >"$tmp/zero.txt" 2>&1
status=$?
[ "$status" -eq 2 ] || fail "--repeat 0: exit $status, expected 2"

[ "$failures" -eq 0 ] && echo "bench: all checks passed"
exit "$failures"
