#!/usr/bin/env bash
# Usage: mpi_env.sh NP PROGRAM   (PROGRAM: tests/mpi_env.c linked with libnodeshm_mpi)
#
# libnodeshm_mpi's settings go through the core's reader (src/core/env.c):
#  - every size form (k/K/m/M/g/G/t/T, fractions, plain bytes, a B suffix) is accepted for
#    NODESHM_MPI_<OP>_MAX/_MIN, and NODESHM_DEBUG shows the value read (above 1 GiB: clamped);
#  - the tuning file still gives settings, and the environment still wins over it;
#  - bad values end the job at MPI_Init with "nodeshm_mpi: MPI_Init: invalid NAME='VALUE'
#    (expected ...)", a nonzero exit, no hang and nothing left in /dev/shm (expect_failure.sh);
#  - NODESHM_DEBUG (or SHMEM_DEBUG) prints the ops' windows at MPI_Init and each communicator's
#    shape; without it the interposer prints nothing.
set -u
NP=$1 PROG=$2
HERE=$(cd "$(dirname "$0")" && pwd)
: "${OSHRUN:?OSHRUN must name the launcher}"
fails=0
fail() { echo "mpi_env.sh: FAIL: $*"; fails=$((fails + 1)); }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# a tuning file of the user's own must not leak in
export XDG_CONFIG_HOME=$tmp/none
unset NODESHM_TUNING NODESHM_DEBUG SHMEM_DEBUG

run() { # run OUTFILE ENV... : runs the program (smoke) with ENV, output (both streams) to OUTFILE
  local out=$1
  shift
  env "$@" "$OSHRUN" -np "$NP" "$PROG" smoke >"$out" 2>&1
}

expect_line() { # expect_line OUTFILE ERE WHAT
  grep -Eq -- "$2" "$1" || { fail "$3: no line matching '$2' in:"; sed 's/^/  | /' "$1"; }
}

# ---- every form, one variable each (and the job runs correctly with them)
forms=(BARRIER_MAX=1g:barrier:1g BCAST_MAX=1k:bcast:1k GATHER_MAX=2K:gather:2k
  GATHERV_MAX=1.5m:gatherv:1536k SCATTER_MAX=3M:scatter:3m SCATTERV_MAX=1G:scatterv:1g
  ALLGATHER_MAX=0.5t:allgather:1g ALLGATHERV_MAX=1T:allgatherv:1g ALLREDUCE_MAX=4096:allreduce:4k
  REDUCE_SCATTER_BLOCK_MAX=1000:reduce_scatter_block:1000 ALLTOALL_MAX=512B:alltoall:512
  ALLTOALLV_MAX=8kB:alltoallv:8k REDUCE_MAX=0.25M:reduce:256k)
envs=(NODESHM_DEBUG=1 NODESHM_MPI_BCAST_MIN=0.5k)
for f in "${forms[@]}"; do envs+=("NODESHM_MPI_${f%%:*}"); done
run "$tmp/forms" "${envs[@]}" || { fail "forms: the job failed"; sed 's/^/  | /' "$tmp/forms"; }
expect_line "$tmp/forms" '^mpi_env: PASS' "forms"
for f in "${forms[@]}"; do
  rest=${f#*:} op=${rest%%:*} want=${rest#*:}
  expect_line "$tmp/forms" "debug: MPI_Init: $op: accelerated from [0-9a-z]+ \\([^)]*\\) to $want \\(set\\) bytes" \
    "form ${f%%:*}"
done
expect_line "$tmp/forms" "debug: MPI_Init: bcast: accelerated from 512 \\(set, on every communicator\\) to 1k" \
  "form BCAST_MIN=0.5k"
expect_line "$tmp/forms" "debug: MPI_Init: NODESHM_MPI_ALLGATHER_MAX='0.5t' clamped to 1073741824 bytes" \
  "clamp 0.5t"

# ---- the tuning file: read, the environment wins over it
printf 'NODESHM_MPI_BCAST_MAX = 1.5m\nNODESHM_MPI_GATHER_MAX=2m # comment\n' >"$tmp/tuning.conf"
run "$tmp/tuning" NODESHM_TUNING="$tmp/tuning.conf" NODESHM_MPI_GATHER_MAX=3k NODESHM_DEBUG=1 ||
  { fail "tuning: the job failed"; sed 's/^/  | /' "$tmp/tuning"; }
expect_line "$tmp/tuning" "debug: MPI_Init: bcast: accelerated from .* to 1536k \\(set\\)" "tuning file"
expect_line "$tmp/tuning" "debug: MPI_Init: gather: accelerated from .* to 3k \\(set\\)" "environment over tuning file"
expect_line "$tmp/tuning" "debug: MPI_Init: .*; tuning file $tmp/tuning.conf" "tuning file named"

# ---- NODESHM_DEBUG: the windows at MPI_Init and the communicator's shape; SHMEM_DEBUG too
for var in NODESHM_DEBUG SHMEM_DEBUG; do
  run "$tmp/debug" "$var=1" || { fail "$var: the job failed"; sed 's/^/  | /' "$tmp/debug"; }
  expect_line "$tmp/debug" '^nodeshm_mpi: rank 0: debug: MPI_Init: (MPICH|Open MPI|the smaller.*) defaults; NODESHM_MPI_STAGE_MAX=4m, NODESHM_MPI_WINDOW_MAX=64m' "$var: settings"
  expect_line "$tmp/debug" '^nodeshm_mpi: rank 0: debug: MPI_Init: alltoallv: accelerated from 0 \(default\) to [0-9]+k \(default\) bytes' "$var: op window"
  expect_line "$tmp/debug" "^nodeshm_mpi: rank 0: debug: communicator MPI_COMM_WORLD: $NP ranks, 1 node, $NP-$NP ranks per node; window [0-9]+[kmg]? bytes per node" "$var: communicator shape"
  expect_line "$tmp/debug" '^nodeshm_mpi: rank 0: debug: communicator MPI_COMM_WORLD: thresholds \(min-max bytes\):.* alltoallv 0-[0-9]+k' "$var: communicator thresholds"
done
# pseudo-nodes of 1: every node has one rank, nothing is shared
if [ "$NP" -ge 2 ]; then
  run "$tmp/ppn1" NODESHM_DEBUG=1 NODESHM_PES_PER_NODE=1 || fail "ppn1: the job failed"
  expect_line "$tmp/ppn1" "communicator MPI_COMM_WORLD: $NP ranks, $NP nodes, 1-1 ranks per node: not accelerated" "ppn1 shape"
fi
run "$tmp/quiet" NODESHM_DEBUG=0 || fail "quiet: the job failed"
expect_line "$tmp/quiet" '^mpi_env: PASS' "quiet"
if grep -q nodeshm "$tmp/quiet"; then fail "NODESHM_DEBUG=0: the interposer printed:"; sed 's/^/  | /' "$tmp/quiet"; fi
run "$tmp/quiet2" || fail "unset: the job failed"
if grep -q nodeshm "$tmp/quiet2"; then fail "no NODESHM_DEBUG: the interposer printed:"; sed 's/^/  | /' "$tmp/quiet2"; fi

# ---- bad values: named with what is accepted, at MPI_Init; nonzero exit, no hang, no leftovers
size_syntax='\(expected a size such as 512k, 1\.5m, 1g or 1048576\)'
bad() { # bad ERE VAR=VALUE...
  local re=$1
  shift
  if ! env "$@" bash "$HERE/expect_failure.sh" "$NP" "$re" "$PROG" smoke >"$tmp/bad" 2>&1; then
    fail "bad value $*:"
    sed 's/^/  | /' "$tmp/bad"
  fi
}
bad "nodeshm_mpi: MPI_Init: invalid NODESHM_MPI_BARRIER_MAX='1x' $size_syntax" NODESHM_MPI_BARRIER_MAX=1x
bad "nodeshm_mpi: MPI_Init: invalid NODESHM_MPI_BCAST_MIN='-1' $size_syntax" NODESHM_MPI_BCAST_MIN=-1
bad "nodeshm_mpi: MPI_Init: invalid NODESHM_MPI_ALLTOALLV_MAX='1.5q' $size_syntax" NODESHM_MPI_ALLTOALLV_MAX=1.5q
bad "nodeshm_mpi: MPI_Init: invalid NODESHM_MPI_WINDOW_MAX='64 m' $size_syntax" "NODESHM_MPI_WINDOW_MAX=64 m"
bad "nodeshm_mpi: MPI_Init: invalid NODESHM_MPI_DISABLE='bcast,nonsense' \(expected a comma-separated list of: barrier bcast .* alltoallv scan exscan reduce_scatter alltoallw ibarrier .* iallgather igatherv iscatterv iallgatherv ialltoall ialltoallv barrier_init .* allgather_init .*all\)" \
  NODESHM_MPI_DISABLE=bcast,nonsense
bad "nodeshm_mpi: MPI_Init: invalid NODESHM_MPI_BANKS='3' \(expected an integer from 1 to 2\)" NODESHM_MPI_BANKS=3
printf 'NODESHM_MPI_GATHER_MAX=lots\n' >"$tmp/bad.conf"
bad "nodeshm_mpi: MPI_Init: invalid NODESHM_MPI_GATHER_MAX='lots' $size_syntax" NODESHM_TUNING="$tmp/bad.conf"

if [ "$fails" -eq 0 ]; then echo "mpi_env.sh: $NP ranks: PASS"; else echo "mpi_env.sh: $fails failures"; exit 1; fi
