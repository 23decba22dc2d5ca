#!/usr/bin/env bash
# Usage: tools/run-bench.sh BUILD_DIR
# Runs the benchmark summary script if the bench/ build provides one;
# otherwise runs every benchmark executable via oshrun -np ${BENCH_NP:-2}.
set -euo pipefail

build=$(cd "${1:?usage: $0 BUILD_DIR}" && pwd)
summary=$build/bench/nodeshm-bench-summary
if [ -x "$summary" ]; then
  exec "$summary" "$build"
fi

np=${BENCH_NP:-2}
found=no
for exe in "$build"/bench/*; do
  [ -f "$exe" ] && [ -x "$exe" ] || continue
  found=yes
  echo "=== $(basename "$exe") (oshrun -np $np)"
  "$build/bin/oshrun" -np "$np" "$exe"
done
[ $found = yes ] || echo "run-bench: no benchmark executables in $build/bench"
