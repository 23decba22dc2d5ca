#!/usr/bin/env bash
# Usage: bench_tuning.sh random NP [PES_PER_NODE] | report
# The tuning file round trip (src/core/tuning.h), checked by tests/bench_tuning.c, which
# compares nodeshm_getenv(NAME) with the VALUE given as NAME=VALUE on every PE:
#   random  a file of random settings (seed printed; NODESHM_TEST_SEED replays) with comments,
#           blank lines and spaces, from NODESHM_TUNING and from the default location
#           ($XDG_CONFIG_HOME/nodeshm/tuning.conf); the environment wins over the file; names
#           the file does not hold are unset.
#   report  `nodeshm-bench report --quick` writes a report (checked by bench_check.py: report.md,
#           plots when matplotlib is there, results.csv/json) and tuning.conf; the library run
#           with NODESHM_TUNING=that file sees each of its settings.
set -u
here=$(cd "$(dirname "$0")" && pwd)
: "${NODESHM_BUILD_DIR:?}" "${NODESHM_SOURCE_DIR:?}" "${OSHRUN:?}"
prog=${BENCH_TUNING_PROG:?BENCH_TUNING_PROG names the bench_tuning test program}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
unset NODESHM_TUNING
launch() { # launch NP PROGRAM-ARGS...: with a timeout, never a hang
  local np=$1
  shift
  echo "+ NODESHM_TUNING=${NODESHM_TUNING:-} oshrun -np $np $prog $*"
  timeout -k 5 60 "$OSHRUN" -np "$np" "$prog" "$@" || { echo "FAIL: exit status $?"; fail=1; }
}

case ${1:?usage: $0 random NP [PES_PER_NODE] | report} in
random)
  np=${2:?NP}
  [ -n "${3:-}" ] && export NODESHM_PES_PER_NODE=$3
  seed=${NODESHM_TEST_SEED:-$(( $(date +%s) ^ $$ ))}
  echo "seed $seed (replay with NODESHM_TEST_SEED=$seed)"
  RANDOM=$((seed % 32768))
  file=$tmp/tuning.conf
  args=()
  {
    echo "# random tuning file, seed $seed"
    echo
    for k in $(seq 1 $((3 + RANDOM % 6))); do
      name=NODESHM_TEST_RT_${k}_$RANDOM
      value=$RANDOM$RANDOM
      case $((RANDOM % 3)) in
        0) echo "$name=$value" ;;
        1) echo "  $name = $value   # spaced, with a comment" ;;
        2) printf '\t%s=%s\t\n' "$name" "$value" ;;
      esac
      args+=("$name=$value")
    done
    echo "NODESHM_TEST_ENV_WINS=from-file"
    echo "   # indented comment"
  } >"$file"
  cat "$file"
  export NODESHM_TEST_ENV_WINS=from-env
  NODESHM_TUNING=$file launch "$np" "${args[@]}" NODESHM_TEST_ENV_WINS=from-env \
    NODESHM_TEST_NOT_THERE=!
  # the default location, without NODESHM_TUNING
  mkdir -p "$tmp/xdg/nodeshm"
  cp "$file" "$tmp/xdg/nodeshm/tuning.conf"
  XDG_CONFIG_HOME=$tmp/xdg launch "$np" "${args[@]}"
  # and without any file, nothing comes from nowhere
  XDG_CONFIG_HOME=$tmp/empty launch "$np" "${args[0]%%=*}=!" ;;
report)
  plots=no
  for py in python3 "$NODESHM_SOURCE_DIR/.deps/py/bin/python"; do
    "$py" -c 'import matplotlib' 2>/dev/null && plots=yes
  done
  # map, p2p and coll: heatmaps, curves, thresholds; every subcommand has its own test
  # (bench_cli.sh), and a plot per result table costs much on a loaded machine
  echo "+ nodeshm-bench report --quick -q --only map,p2p,coll -o $tmp/report (plots expected: $plots)"
  "$NODESHM_BUILD_DIR/bin/nodeshm-bench" report --quick -q --only map,p2p,coll -o "$tmp/report" ||
    { echo "FAIL: report exit status $?"; fail=1; }
  python3 "$here/bench_check.py" report "$tmp/report" "$plots" || fail=1
  echo "--- tuning.conf"
  cat "$tmp/report/tuning.conf"
  mapfile -t settings < <(python3 "$here/bench_check.py" tuning "$tmp/report/tuning.conf")
  if [ ${#settings[@]} -eq 0 ]; then
    echo "FAIL: tuning.conf holds no settings"
    fail=1
  else
    # the environment of this test must not hide the file's values
    for s in "${settings[@]}"; do unset "${s%%=*}"; done
    NODESHM_TUNING=$tmp/report/tuning.conf launch 2 "${settings[@]}"
  fi ;;
*) echo "usage: $0 random NP [PES_PER_NODE] | report" >&2; exit 2 ;;
esac
[ $fail -eq 0 ] && echo "bench_tuning $1: PASS"
exit $fail
