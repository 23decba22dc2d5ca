#!/usr/bin/env bash
# Usage: profiling_preload.sh NP TOOL_LIBRARY PROGRAM
# Runs PROGRAM on NP PEs with the profiling tool preloaded into the PEs only (not into the
# launcher): the tool's shmem_putmem must win over the library's, and reach it via pshmem_putmem.
set -eu
np=$1 tool=$2 prog=$3
exec "$OSHRUN" -np "$np" env LD_PRELOAD="$tool${LD_PRELOAD:+:$LD_PRELOAD}" "$prog"
