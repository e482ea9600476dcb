#!/bin/sh
# check_cycles.sh ETHOSU_SIM EMBED_SYSTEMC CASE_DIR...
# Runs each case with `ethosu-sim run` and with the embedding example (its bus adding nothing) and checks that
# both give the same verdict on the outputs (exact, or not exact in both) and total cycles within TOLERANCE_PERMILLE
# (environment, default 0: the same). Prints one line per case; exit 1 at any disagreement. EMBED_OPTIONS
# (environment) goes to the example, e.g. --fast --no-dmi.
set -u
cli=$1 embed=$2
shift 2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
status=0 n=0
for case in "$@"; do
  n=$((n + 1))
  "$cli" run "$case" --out "$out/o" --report "$out/r.json" >"$out/cli" 2>&1; cli_status=$?
  cli_cycles=$(sed -n 's/.*"total_cycles": \([0-9]*\).*/\1/p' "$out/r.json" 2>/dev/null | head -1)
  rm -f "$out/r.json"
  # shellcheck disable=SC2086
  SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1 "$embed" "$case" ${EMBED_OPTIONS:-} >"$out/embed" 2>&1; embed_status=$?
  embed_cycles=$(sed -n 's/^total_cycles \([0-9]*\)$/\1/p' "$out/embed")
  verdict=exact
  [ "$cli_status" -eq 0 ] || verdict="not exact in both: $(tail -1 "$out/embed")"
  tolerance=${TOLERANCE_PERMILLE:-0}
  if [ -z "$cli_cycles" ] || [ -z "$embed_cycles" ] || [ "$cli_status" -gt 1 ] || [ "$embed_status" -ne "$cli_status" ] ||
     [ $(( (embed_cycles - cli_cycles) * 1000 )) -gt $(( cli_cycles * tolerance )) ] ||
     [ $(( (cli_cycles - embed_cycles) * 1000 )) -gt $(( cli_cycles * tolerance )) ]; then
    echo "FAIL $case: ethosu-sim $cli_cycles cycles (exit $cli_status), embed_systemc $embed_cycles (exit $embed_status)"
    tail -n 2 "$out/cli" "$out/embed"
    status=1
  else
    echo "ok   $case: $cli_cycles cycles (embedded: $embed_cycles), $verdict"
  fi
done
[ "$n" -gt 0 ] || { echo "no cases given"; exit 2; }
exit $status
