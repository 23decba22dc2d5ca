#!/usr/bin/env bash
# Usage: copy_engine_bench.sh NP pairs|dt [ARGS...]
# Runs nodeshm-bench-<prog> --csv in quick mode (NODESHM_BENCH_QUICK=1) and checks the output
# contract (bench/bench_util.h): exactly one header line then rows, nothing else on stdout; 9
# fields; numbers where numbers belong; min <= median <= max; mbps = bytes / median; the
# program's mechanisms all present for every (bytes, param) measured, and CMA's rows present
# exactly when the probe enabled it (NODESHM_CMA=0 in the environment removes them); pairs -s
# adds the pairs_spread layout.
set -u
np=$1 prog=$2
shift 2
: "${OSHRUN:?}" "${NODESHM_BUILD_DIR:?}"
exe=$NODESHM_BUILD_DIR/bench/nodeshm-bench-$prog
out=$(mktemp) err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
NODESHM_BENCH_QUICK=1 timeout -k 5 120 "$OSHRUN" -np "$np" "$exe" --csv "$@" >"$out" 2>"$err"
rc=$?
cat "$err" >&2
echo "----- csv -----"
cat "$out"
[ "$rc" -eq 0 ] || { echo "FAIL: exit status $rc"; exit 1; }
case $prog in
  pairs) mechs="memcpy shm"; test_re='^pairs(_spread)?$' ;;
  dt) mechs="shm_np shm_p mpi_send"; test_re='^dt(_multi)?$' ;;
  *) echo "unknown program $prog"; exit 2 ;;
esac
[ "${NODESHM_CMA:-1}" = 0 ] && cma=0 || cma=1
spread=0
for a in "$@"; do [ "$a" = -s ] && spread=1; done
awk -F, -v spread="$spread" -v np="$np" -v mechs="$mechs" -v test_re="$test_re" -v cma="$cma" -v prog="$prog" '
  function bad(why) { printf "FAIL: line %d: %s: %s\n", NR, why, $0; fails++ }
  NR == 1 { if ($0 != "test,mechanism,bytes,param,pes,median_us,min_us,max_us,mbps") bad("header"); next }
  {
    rows++
    if (NF != 9) { bad("not 9 fields"); next }
    if ($1 !~ test_re) bad("test")
    if ($3 !~ /^[0-9]+$/ || $3 == 0) bad("bytes")
    if ($4 !~ /^[0-9]+$/ || $4 == 0) bad("param")
    if ($5 != np) bad("pes")
    for (i = 6; i <= 9; i++) if ($i !~ /^[0-9]+(\.[0-9]+)?$/) bad("field " i " not a number")
    if (!($6 > 0) || $7 > $6 || $6 > $8) bad("min <= median <= max, median > 0")
    want = $3 / $6
    if ($9 < want * 0.99 - 0.01 || $9 > want * 1.01 + 0.01) bad("mbps != bytes / median")
    if (prog == "pairs" && ($4 < 1 || $4 > int(np / 2))) bad("pairs outside 1..P/2")
    if (prog == "dt" && $4 > $3) bad("block larger than the buffer")
    key = $1 "," $3 "," $4
    seen[key "," $2] = 1
    keys[key] = 1
    if ($2 == "cma") cmarows++
    if ($1 == "pairs_spread") spreadrows++
  }
  END {
    if (NR < 2) { print "FAIL: no rows"; exit 1 }
    n = split(mechs, m, " ")
    for (k in keys) for (i = 1; i <= n; i++) if (!((k "," m[i]) in seen)) { print "FAIL: no " m[i] " row for " k; fails++ }
    if (cma && !cmarows) { print "FAIL: no cma rows although CMA is on"; fails++ }
    if (!cma && cmarows) { print "FAIL: cma rows with NODESHM_CMA=0"; fails++ }
    if (spread && !spreadrows) { print "FAIL: -s but no pairs_spread rows"; fails++ }
    if (prog == "pairs") for (p = 1; p <= int(np / 2); p++) { f = 0; for (k in keys) { split(k, a, ","); if (a[3] == p) f = 1 }; if (!f) { print "FAIL: no rows for " p " pairs"; fails++ } }
    printf "%d rows, %d problems\n", rows, fails
    exit fails > 0
  }' "$out" || exit 1
echo PASS
