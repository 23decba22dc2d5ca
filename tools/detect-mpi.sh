#!/usr/bin/env bash
# Usage: tools/detect-mpi.sh [MPICC]   (default: mpicc on PATH)
# Prints "<flavor> <version>" of the MPI behind MPICC, read from mpi.h macros,
# and exits 0 only if it is usable here: MPICH >= 4.1 or Open MPI >= 4.1
# (older ones lack the MPI-3 shared-memory window behaviour we rely on).  MPICH 4.0.x
# (Debian 12's 4.0.2) is refused too: its MPI_Allgatherv on one rank ignores displs, its
# MPI_Reduce with MPI_IN_PLACE at a non-zero root crashes (the tests compare with both), and it
# busy-polls (8 ranks on 2 cores about 100x slower).  MPI=system still uses it.
set -euo pipefail

mpicc=${1:-$(command -v mpicc || true)}
[ -n "$mpicc" ] && [ -x "$mpicc" ] || { echo "detect-mpi: no mpicc" >&2; exit 1; }

macros=$(printf '#include <mpi.h>\n' | "$mpicc" -E -dM -x c - 2>/dev/null) ||
  { echo "detect-mpi: $mpicc cannot preprocess mpi.h" >&2; exit 1; }
macro() { sed -n "s/^#define $1 \"\{0,1\}\([^\" ]*\)\"\{0,1\}\$/\1/p" <<<"$macros"; }

if [ -n "$(macro OMPI_MAJOR_VERSION)" ]; then
  major=$(macro OMPI_MAJOR_VERSION) minor=$(macro OMPI_MINOR_VERSION)
  echo "openmpi $major.$minor.$(macro OMPI_RELEASE_VERSION)"
  [ "$major" -gt 4 ] || { [ "$major" -eq 4 ] && [ "$minor" -ge 1 ]; } && exit 0
elif [ -n "$(macro MPICH_VERSION)" ]; then
  version=$(macro MPICH_VERSION)
  echo "mpich $version"
  major=${version%%.*} minor=${version#*.}
  minor=${minor%%.*}
  if [ "$major" -eq 4 ] && [ "$minor" -eq 0 ]; then
    echo "detect-mpi: $mpicc is MPICH $version: 4.0.x has bugs the tests catch" \
         "(MPI_Allgatherv on one rank, MPI_Reduce in place); using the MPICH wheel" >&2
    exit 1
  fi
  [ "$major" -ge 4 ] && exit 0
else
  echo "unknown"
fi
echo "detect-mpi: $mpicc is not MPICH >= 4.1 or Open MPI >= 4.1" >&2
exit 1
