#!/usr/bin/env bash
# Usage: bench_cli.sh SUBCOMMAND [NP [HOSTS]] | errors | osu_c [NP]
# Runs `nodeshm-bench SUBCOMMAND --quick [-n NP]` (tiny sizes, few iterations) and checks the output's
# shape and sanity with bench_check.py: --json always; for p2p also --csv and the human tables
# with -f; for coll also -d 10 (every libnodeshm_mpi op with late ranks); for map the matrix
# and, when matplotlib is there, the heatmap PNGs; for p2p, pairs and dt also --cold
# (bench_check.py cold: only *_cold tests, the expected mechanisms).
# `errors`: bad flags get a clear message and exit status 2, from the driver and from a program;
# --cold where it does not apply, and rings that cannot fit the budget or the symmetric heap.
# `osu_c`: nodeshm-bench-mpi_osu's MPI-4 large-count rows (<row>_c, MPI_<Op>_c), one per entry
# this MPI's mpi.h has (nsm_bigcount_config.h), both columns each (the program first checks each
# size's values against the library's), in -o's order; where the MPI has none, -o says so.
# HOSTS: the --json run goes on that many emulated hosts (nodeshm-bench --hosts): every run
# on them, every row a test <test>_hosts<HOSTS> (never a one-node name), and p2p's between-node
# tables there; exit 77 (skipped) where this machine cannot make the hosts' namespaces.
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
  # --cold: refused where there is no rotation (driver: not an option; program: says so)
  out=$("$driver" coll --quick --cold 2>&1); rc=$?
  [ $rc -eq 2 ] && grep -q "unrecognized arguments: --cold" <<<"$out" ||
    { echo "FAIL: driver coll --cold: rc $rc: $out"; fail=1; }
  out=$(timeout 60 "$OSHRUN" -np 2 "$NODESHM_BUILD_DIR/bench/nodeshm-bench-coll" --cold 2>&1); rc=$?
  echo "coll --cold -> $rc: $(head -n1 <<<"$out")"
  [ $rc -eq 2 ] && grep -q "^nodeshm-bench-coll: --cold: not supported here" <<<"$out" ||
    { echo "FAIL: nodeshm-bench-coll --cold: rc $rc: $out"; fail=1; }
  out=$(timeout 60 "$OSHRUN" -np 2 "$NODESHM_BUILD_DIR/bench/nodeshm-bench-coll" -o bcast,nosuch 2>&1); rc=$?
  echo "coll -o bcast,nosuch -> $rc: $(head -n1 <<<"$out")"
  [ $rc -eq 2 ] && grep -q "^nodeshm-bench-coll: -o: unknown test 'nosuch'" <<<"$out" ||
    { echo "FAIL: nodeshm-bench-coll -o nosuch: rc $rc: $out"; fail=1; }
  out=$(timeout 60 "$OSHRUN" -np 2 "$NODESHM_BUILD_DIR/bench/nodeshm-bench-mpi_osu" -d ten 2>&1); rc=$?
  echo "mpi_osu -d ten -> $rc: $(head -n1 <<<"$out")"
  [ $rc -eq 2 ] && grep -q "^mpi_osu: -d ten: expected a delay in us, 0 to 1000000" <<<"$out" ||
    { echo "FAIL: nodeshm-bench-mpi_osu -d ten: rc $rc: $out"; fail=1; }
  out=$(timeout 60 "$OSHRUN" -np 2 "$NODESHM_BUILD_DIR/bench/nodeshm-bench-mpi_osu" -o bcast,nosuch 2>&1); rc=$?
  echo "mpi_osu -o bcast,nosuch -> $rc: $(head -n1 <<<"$out")"
  [ $rc -eq 2 ] && grep -q "^mpi_osu: -o: unknown op 'nosuch' in 'bcast,nosuch'; the ops: barrier bcast " <<<"$out" ||
    { echo "FAIL: nodeshm-bench-mpi_osu -o nosuch: rc $rc: $out"; fail=1; }
  # --cold: the cap is reported; a ring that cannot hold one buffer is an error naming --cold
  # and the size (the memory budget; the symmetric heap)
  p2p=$NODESHM_BUILD_DIR/bench/nodeshm-bench-p2p
  out=$(NODESHM_BENCH_COLD_BUDGET=1m timeout 120 "$OSHRUN" -np 2 "$p2p" --csv --cold -m 1:64 2>&1); rc=$?
  echo "p2p --cold, budget 1m -> $rc: $(grep -- '--cold' <<<"$out" | head -n1)"
  [ $rc -eq 0 ] && grep -q "^nodeshm-bench-p2p: --cold: 5 ring(s) of .* capped by NODESHM_BENCH_COLD_BUDGET" <<<"$out" &&
    grep -q "^latency_cold,memcpy,64," <<<"$out" || { echo "FAIL: p2p --cold cap: rc $rc: $out"; fail=1; }
  out=$(NODESHM_BENCH_COLD_BUDGET=64k timeout 60 "$OSHRUN" -np 2 "$p2p" --cold -m 1m 2>&1); rc=$?
  echo "p2p --cold -m 1m, budget 64k -> $rc: $(head -n1 <<<"$out")"
  [ $rc -ne 0 ] && grep -q "^nodeshm-bench-p2p: --cold: a 1M-byte buffer does not fit .*NODESHM_BENCH_COLD_BUDGET" <<<"$out" ||
    { echo "FAIL: p2p --cold over the budget: rc $rc: $out"; fail=1; }
  out=$(SHMEM_SYMMETRIC_SIZE=8m timeout 60 "$OSHRUN" -np 2 "$p2p" --cold -m 4m 2>&1); rc=$?
  echo "p2p --cold -m 4m, SHMEM_SYMMETRIC_SIZE=8m -> $rc: $(head -n1 <<<"$out")"
  [ $rc -ne 0 ] && grep -q "^nodeshm-bench-p2p: --cold: a 4M-byte buffer does not fit .*raise SHMEM_SYMMETRIC_SIZE" <<<"$out" ||
    { echo "FAIL: p2p --cold over the symmetric heap: rc $rc: $out"; fail=1; }
  [ $fail -eq 0 ] && echo "bench_cli errors: PASS"
  exit $fail
fi

export NODESHM_BENCH_QUICK=1
if [ "$sub" = osu_c ]; then
  osu=$NODESHM_BUILD_DIR/bench/nodeshm-bench-mpi_osu
  # shellcheck disable=SC2207
  want=($(sed -n 's/^#define NSM_HAVE_MPI_\(.*_C\) 1$/\1/p' "$NODESHM_BUILD_DIR/generated/nsm_bigcount_config.h" |
          tr 'A-Z' 'a-z'))
  echo "_c rows of this MPI: ${#want[@]}"
  # no MPI has MPI_Barrier_c: named as such
  out=$(timeout 60 "$OSHRUN" -np 2 "$osu" -o barrier_c 2>&1); rc=$?
  [ $rc -eq 2 ] && grep -q "^mpi_osu: -o: no row 'barrier_c': the MPI's mpi.h has no MPI_Barrier_c " <<<"$out" ||
    { echo "FAIL: -o barrier_c: rc $rc: $out"; fail=1; }
  if [ ${#want[@]} -eq 0 ]; then
    for o in "_c:MPI_<Op>_c" "bcast_c:MPI_Bcast_c"; do
      out=$(timeout 60 "$OSHRUN" -np 2 "$osu" -o "bcast,${o%%:*}" 2>&1); rc=$?
      echo "-o bcast,${o%%:*} -> $rc: $(head -n1 <<<"$out")"
      [ $rc -eq 2 ] && grep -qF "mpi_osu: -o: no row '${o%%:*}': the MPI's mpi.h has no ${o#*:} " <<<"$out" ||
        { echo "FAIL: -o ${o%%:*}: rc $rc: $out"; fail=1; }
    done
  else
    echo "+ $OSHRUN -np ${2:-3} $osu --csv -o _c"
    timeout 240 "$OSHRUN" -np "${2:-3}" "$osu" --csv -o _c >"$tmp/c.csv" || { echo "FAIL: -o _c: exit $?"; fail=1; }
    python3 - "$tmp/c.csv" "${want[@]}" <<'EOF' || { echo "FAIL: -o _c rows"; fail=1; }
import csv, sys
got = {}
for r in csv.DictReader(open(sys.argv[1])):
    got.setdefault(r["test"], set()).add(r["mechanism"])
    if not float(r["median_us"]) > 0:
        sys.exit("time not positive: %s" % r)
want = set(sys.argv[2:])
missing = sorted(t for t in want if got.get(t) != {"mpi_lib", "nodeshm"})
extra = sorted(set(got) - want)
print("%d _c rows with both columns" % len(want & set(got)))
sys.exit("missing or one column: %s; not this MPI's _c rows: %s" % (missing, extra) if missing or extra else 0)
EOF
    timeout 60 "$OSHRUN" -np 2 "$osu" --csv -m 8:8 -o gatherv_c,gatherv >"$tmp/o.csv" || { echo "FAIL: -o order: exit $?"; fail=1; }
    [ "$(awk -F, 'NR > 1 { print $1 }' "$tmp/o.csv" | uniq | tr '\n' ' ')" = "gatherv_c gatherv " ] ||
      { echo "FAIL: -o gatherv_c,gatherv: rows not in that order: $(cat "$tmp/o.csv")"; fail=1; }
  fi
  [ $fail -eq 0 ] && echo "bench_cli osu_c: PASS"
  exit $fail
fi
np=()
[ -n "${2:-}" ] && np=(-n "$2")
if [ -n "${3:-}" ]; then # emulated hosts: skipped where oshrun cannot make them
  # Ask the agent, as oshrun does, rather than launching a job of `true`: under Open MPI 5 that
  # launch on emulated hosts hung past 120 s twice in two runs of the host tests at -j2 (the MPI
  # programs of the same runs never did).
  agent=${NSHOST_AGENT:-$(dirname "$OSHRUN")/nshost-agent}
  [ -x "$agent" ] || agent=$(cd "$(dirname "$0")/.." && pwd)/tools/nshost-agent
  out=$("$agent" --check 2>&1) || { echo "$out"; echo "skipped: no emulated hosts here"; exit 77; }
  np+=(--hosts "$3")
fi
echo "+ $driver $sub --quick -q --json ${np[*]}"
"$driver" "$sub" --quick -q --json "${np[@]}" >"$tmp/out.json" || { echo "FAIL: exit $?"; fail=1; }
if [ -n "${3:-}" ]; then
  run python3 "$check" hosts "$sub" "$3" "$tmp/out.json"
  [ $fail -eq 0 ] && echo "bench_cli $sub on $3 hosts: PASS"
  exit $fail
fi
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
    run python3 "$check" table p2p "$tmp/out.txt"
    "$driver" p2p --quick -q --cold --json -m 8:4k >"$tmp/cold.json" || { echo "FAIL: --cold exit $?"; fail=1; }
    run python3 "$check" cold p2p "$tmp/cold.json" ;;
  pairs|dt)
    "$driver" "$sub" --quick -q --cold --json "${np[@]}" >"$tmp/cold.json" || { echo "FAIL: --cold exit $?"; fail=1; }
    run python3 "$check" cold "$sub" "$tmp/cold.json"
    if [ "$sub" = dt ] && [ "${2:-2}" -ge 4 ]; then # multi-pair: P/2 pairs, hot and cold
      for f in out cold; do
        python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
tests = {r["test"] for r in d["rows"] if r["program"] == "dt-multi"}
mechs = {r["mechanism"] for r in d["rows"] if r["program"] == "dt-multi"}
ok = tests in ({"dt_multi"}, {"dt_multi_cold"}) and {"shm_np", "shm_p", "mpi_send"} <= mechs
sys.exit(0 if ok else 1)' "$tmp/$f.json" || { echo "FAIL: $f: no dt-multi rows of 2 pairs"; fail=1; }
      done
    fi ;;
  coll) # -d: libnodeshm_mpi's ops with late ranks, <op>_imb<US> rows of both columns for every op
    "$driver" coll --quick -q --json -d 10 "${np[@]}" >"$tmp/imb.json" || { echo "FAIL: -d exit $?"; fail=1; }
    run python3 "$check" json coll "$tmp/imb.json"
    python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
rows = [r for r in d["rows"] if r["program"] == "coll-mpi"]
ops = {r["test"] for r in rows}
both = {t for t in ops if {"mpi_lib", "nodeshm"} <= {r["mechanism"] for r in rows if r["test"] == t}}
want = {"barrier_imb10", "bcast_imb10", "allreduce_imb10", "alltoallv_imb10", "alltoallv_sparse_imb10"}
sys.exit(0 if want <= both and all(t.endswith("_imb10") for t in ops) else "imbalance rows: %s" % sorted(ops))' \
      "$tmp/imb.json" || { echo "FAIL: coll -d 10 rows"; fail=1; } ;;
  fft) # every strategy has a pair row and a remap row per grid
    python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
want = {"mpi-p2p", "mpi-alltoallv", "node", "shmem-barrier", "shmem-nopack", "shmem-chkbuff",
        "shmem-advchkbuff"}
for test in ("fft_np" + sys.argv[2], "fft_remap_np" + sys.argv[2]):
    for grid in ("16x16x16", "32x32x32"):
        got = {r["mechanism"] for r in d["rows"] if r["test"] == test and r["param"] == grid}
        if not want <= got:
            sys.exit("%s %s: strategies missing: %s" % (test, grid, sorted(want - got)))' \
      "$tmp/out.json" "${2:-2}" || { echo "FAIL: fft rows"; fail=1; } ;;
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
