#!/usr/bin/env bash
# Usage: tools/run-bench.sh BUILD_DIR   (make bench)
# Runs `nodeshm-bench report` with its defaults: the default benchmark suite, report.md with
# plots, results.csv/json and tuning.conf in ./nodeshm-report, and the summary on stdout.
# NODESHM_BENCH_ARGS adds options (e.g. "--quick", "-o DIR"; see nodeshm-bench report --help).
# Without python3 it falls back to running every benchmark program with oshrun -np
# ${BENCH_NP:-2} (human tables).
set -euo pipefail

build=$(cd "${1:?usage: $0 BUILD_DIR}" && pwd)
driver=$build/bin/nodeshm-bench
if [ -x "$driver" ] && command -v python3 >/dev/null; then
  # shellcheck disable=SC2086 # NODESHM_BENCH_ARGS is a list of words
  exec "$driver" report ${NODESHM_BENCH_ARGS:-}
fi

echo "run-bench: no python3 (or no $driver): running the programs one by one" >&2
np=${BENCH_NP:-2}
found=no
for exe in "$build"/bench/nodeshm-bench-*; do
  [ -f "$exe" ] && [ -x "$exe" ] || continue
  found=yes
  echo "=== $(basename "$exe") (oshrun -np $np)"
  "$build/bin/oshrun" -np "$np" "$exe"
done
[ $found = yes ] || echo "run-bench: no benchmark executables in $build/bench"
