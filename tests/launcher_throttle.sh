#!/usr/bin/env bash
# Usage: launcher_throttle.sh
# Under MPICH, oshrun throttles MPI's progress engine when PEs outnumber CPUs, and each of its
# two settings defaults on its own: a user who sets only MPIR_CVAR_CH4_PROGRESS_THROTTLE still
# gets NO_PROGRESS_COUNT=1 (MPICH's own 4096 failed polls before a sleep busy-polled: MPI_Barrier
# 27-29 ms with 4 PEs on 2 cores), a user's NO_PROGRESS_COUNT is kept, and a job that fits the
# CPUs gets neither. Reads the environment oshrun hands the launcher (OSHRUN_VERBOSE=1).
set -u
: "${OSHRUN:?OSHRUN must name the launcher}"
flavor=$(sed -n "s/^flavor='\(.*\)'.*/\1/p" "$OSHRUN")
if [ "$flavor" != mpich ]; then echo "launcher_throttle: MPICH only (this oshrun: $flavor): skipped"; exit 0; fi
over=$(( $(nproc) + 1 ))
env_of() { # env_of NP [VAR=value...]: the MPIR_CVAR_ words of oshrun's verbose line
  local np=$1; shift
  env -u MPIR_CVAR_CH4_PROGRESS_THROTTLE -u MPIR_CVAR_CH4_PROGRESS_THROTTLE_NO_PROGRESS_COUNT \
    "$@" OSHRUN_VERBOSE=1 "$OSHRUN" -np "$np" true 2>&1 | sed -n 's/^oshrun: //p' | tr ' ' '\n' |
    grep '^MPIR_CVAR_CH4_PROGRESS_THROTTLE' | sort | tr '\n' ' '
}
fail=0
check() { # check WHAT GOT WANT
  if [ "$2" = "$3" ]; then echo "launcher_throttle: $1: ok ($2)"
  else echo "launcher_throttle: FAIL: $1: got '$2', want '$3'"; fail=1; fi
}
T=MPIR_CVAR_CH4_PROGRESS_THROTTLE N=MPIR_CVAR_CH4_PROGRESS_THROTTLE_NO_PROGRESS_COUNT
check "oversubscribed, nothing set" "$(env_of $over)" "$T=1 $N=1 "
check "oversubscribed, THROTTLE set" "$(env_of $over $T=1)" "$T=1 $N=1 "
check "oversubscribed, NO_PROGRESS_COUNT set" "$(env_of $over $N=7)" "$T=1 $N=7 "
check "oversubscribed, THROTTLE=0 set" "$(env_of $over $T=0)" "$T=0 $N=1 "
check "one PE" "$(env_of 1)" ""
[ "$fail" -eq 0 ] && echo "launcher_throttle: PASS"
exit "$fail"
