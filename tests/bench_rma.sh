#!/usr/bin/env bash
# Usage: bench_rma.sh
# `nodeshm-bench p2p` between pseudo-nodes (NODESHM_PES_PER_NODE=1: PE 1 on another node, the
# MPI path), quick mode: the CSV keeps its shape (bench_check.py csv) and has the rma_put and
# rma_get tests (nodeshm put/get beside MPI_Put/MPI_Get on the library's own window, and
# memcpy) with sizes doubling from 1 MiB; a run within one node has no rma_* rows.
# Never compares timings (shared, noisy machine).
set -u
here=$(cd "$(dirname "$0")" && pwd)
: "${NODESHM_BUILD_DIR:?}" "${OSHRUN:?}"
driver=$NODESHM_BUILD_DIR/bin/nodeshm-bench
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
export NODESHM_BENCH_QUICK=1

echo "+ NODESHM_PES_PER_NODE=1 $driver p2p --quick -q --csv -m 1:4m"
NODESHM_PES_PER_NODE=1 "$driver" p2p --quick -q --csv -m 1:4m >"$tmp/far.csv" ||
  { echo "FAIL: exit $?"; fail=1; }
python3 "$here/bench_check.py" csv "$tmp/far.csv" || fail=1
python3 - "$tmp/far.csv" <<'EOF' || fail=1
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
want = {"rma_put": {"nodeshm_put", "mpi_put", "memcpy"},
        "rma_get": {"nodeshm_get", "mpi_get", "memcpy"}}
# where the library confirms writes (MPICH), MPI's put with the same guarantee too
optional = {"rma_put": {"mpi_put_confirmed"}}
bad = 0
for test, mechs in want.items():
    sizes = {}
    for r in rows:
        if r["test"] == test:
            sizes.setdefault(int(r["bytes"]), set()).add(r["mechanism"])
    # x4 up to 1 MiB, then x2: 1 4 16 ... 256K 1M 2M 4M
    expect = [4 ** i for i in range(11)] + [2 << 20, 4 << 20]
    if sorted(sizes) != expect:
        print("FAIL: %s sizes %s, expected %s" % (test, sorted(sizes), expect)); bad = 1
    for b, got in sorted(sizes.items()):
        if not mechs <= got <= mechs | optional.get(test, set()):
            print("FAIL: %s at %d bytes: mechanisms %s, expected %s" % (test, b, sorted(got), sorted(mechs)))
            bad = 1
    if any(r["pes"] != "2" for r in rows if r["test"] == test):
        print("FAIL: %s rows not from 2 PEs" % test); bad = 1
# between nodes there is no shared cache line and no CMA to PE 1
if any(r["mechanism"] in ("cacheline", "cma") for r in rows):
    print("FAIL: cacheline or cma rows between pseudo-nodes"); bad = 1
sys.exit(bad)
EOF

echo "+ $driver p2p --quick -q --csv -m 1:64 (one node)"
"$driver" p2p --quick -q --csv -m 1:64 >"$tmp/near.csv" || { echo "FAIL: exit $?"; fail=1; }
if grep -q "^rma_" "$tmp/near.csv"; then echo "FAIL: rma_* rows within one node"; fail=1; fi

[ $fail -eq 0 ] && echo "bench_rma: PASS"
exit $fail
