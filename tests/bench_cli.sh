#!/usr/bin/env bash
# Usage: bench_cli.sh SUBCOMMAND [NP] | errors
# Runs `nodeshm-bench SUBCOMMAND --quick [-n NP]` (tiny sizes, few iterations) and checks the output's
# shape and sanity with bench_check.py: --json always; for p2p also --csv and the human tables
# with -f; for map the matrix and, when matplotlib is there, the heatmap PNGs.  `errors`: bad
# flags get a clear message and exit status 2, from the driver and from a program.
# Never compares timings (shared, noisy machine).
set -u
here=$(cd "$(dirname "$0")" && pwd)
: "${NODESHM_BUILD_DIR:?}" "${NODESHM_SOURCE_DIR:?}" "${OSHRUN:?}"
driver=$NODESHM_BUILD_DIR/bin/nodeshm-bench
check=$here/bench_check.py
sub=${1:?usage: $0 SUBCOMMAND|errors}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
run() { # run CMD...: prints it, runs it, records a failure
  echo "+ $*"
  "$@" || { echo "FAIL ($?): $*"; fail=1; }
}
# plots: the python the driver ends up with (its own, or the venv make bench sets up)
plots=no
for py in python3 "$NODESHM_SOURCE_DIR/.deps/py/bin/python"; do
  "$py" -c 'import matplotlib' 2>/dev/null && plots=yes
done

if [ "$sub" = errors ]; then
  # the driver: a bad -m, an unknown subcommand
  out=$("$driver" p2p -m 12x 2>&1); rc=$?
  echo "$out"
  [ $rc -eq 2 ] && grep -q "not a byte count: '12x'" <<<"$out" || { echo "FAIL: driver -m 12x"; fail=1; }
  out=$("$driver" nosuch 2>&1); rc=$?
  [ $rc -eq 2 ] && grep -q "invalid choice: 'nosuch'" <<<"$out" || { echo "FAIL: driver nosuch: $out"; fail=1; }
  # a program: the contract's flags are checked, rank 0 says what is wrong, exit 2
  for args in "-m 0" "-m 64:8" "-i 0" "-x -1" "--bogus"; do
    # shellcheck disable=SC2086
    out=$(timeout 60 "$OSHRUN" -np 2 "$NODESHM_BUILD_DIR/bench/nodeshm-bench-p2p" $args 2>&1); rc=$?
    echo "$args -> $rc: $(head -n1 <<<"$out")"
    [ $rc -eq 2 ] && grep -q "^nodeshm-bench-p2p: .*: '" <<<"$out" &&
      grep -q "^usage: nodeshm-bench-p2p" <<<"$out" ||
      { echo "FAIL: nodeshm-bench-p2p $args: rc $rc: $out"; fail=1; }
  done
  [ $fail -eq 0 ] && echo "bench_cli errors: PASS"
  exit $fail
fi

export NODESHM_BENCH_QUICK=1
np=()
[ -n "${2:-}" ] && np=(-n "$2")
echo "+ $driver $sub --quick -q --json ${np[*]}"
"$driver" "$sub" --quick -q --json "${np[@]}" >"$tmp/out.json" || { echo "FAIL: exit $?"; fail=1; }
if [ ${#np[@]} -gt 0 ]; then # the PE count reached the programs
  python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
bad = [r for r in d["rows"] if r["pes"] != int(sys.argv[2])]
sys.exit(1 if bad or not d["rows"] and any(r["status"] == "ok" for r in d["runs"]) else 0)' \
    "$tmp/out.json" "$2" || { echo "FAIL: rows not from $2 PEs"; fail=1; }
fi
run python3 "$check" json "$sub" "$tmp/out.json"
case $sub in
  p2p)
    "$driver" p2p --quick -q --csv -m 8:4k >"$tmp/out.csv" || { echo "FAIL: --csv exit $?"; fail=1; }
    run python3 "$check" csv "$tmp/out.csv"
    # -m reached the program: sizes 8..4096 only
    awk -F, 'NR > 1 && $1 == "latency" && ($3 < 8 || $3 > 4096) { bad = 1 } END { exit bad }' \
      "$tmp/out.csv" || { echo "FAIL: -m 8:4k not honoured"; fail=1; }
    "$driver" p2p --quick -q -f -m 1:64 >"$tmp/out.txt" || { echo "FAIL: table exit $?"; fail=1; }
    cat "$tmp/out.txt"
    run python3 "$check" table p2p "$tmp/out.txt" ;;
  map)
    "$driver" map --quick -q --plots "$tmp/plots" >"$tmp/out.txt" || { echo "FAIL: table exit $?"; fail=1; }
    cat "$tmp/out.txt"
    run python3 "$check" table map "$tmp/out.txt"
    if [ $plots = yes ]; then
      for f in map_map_hot.png map_map_cold.png; do
        [ "$(head -c 4 "$tmp/plots/$f" 2>/dev/null | od -An -c | tr -d ' ')" = '211PNG' ] ||
          { echo "FAIL: heatmap $f missing or not a PNG"; fail=1; }
      done
    else
      echo "note: no matplotlib here (make bench installs it): heatmaps not checked"
    fi ;;
esac
[ $fail -eq 0 ] && echo "bench_cli $sub: PASS"
exit $fail
