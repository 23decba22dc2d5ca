#!/usr/bin/env bash
# Usage: tools/ensure-cmake.sh
# Makes sure a CMake >= 3.18 is at hand: the machine's if new enough (prints nothing), otherwise
# one installed from PyPI (the 'cmake' wheel) into .deps/cmake without root (prints its bin dir).
set -euo pipefail
need=3.18
root=$(cd "$(dirname "$0")/.." && pwd)

new_enough() { # $1: a cmake binary
  local v
  v=$("$1" --version 2>/dev/null | sed -n 's/^cmake version \([0-9.]*\).*/\1/p')
  [ -n "$v" ] && [ "$(printf '%s\n%s\n' "$need" "$v" | sort -V | head -n1)" = "$need" ]
}

if command -v cmake >/dev/null && new_enough "$(command -v cmake)"; then
  exit 0
fi
venv=$root/.deps/cmake
if [ ! -x "$venv/bin/cmake" ] || ! new_enough "$venv/bin/cmake"; then
  echo "ensure-cmake: installing CMake from PyPI into $venv" >&2
  mkdir -p "$root/.deps"
  rm -rf "$venv"
  python3 -m venv "$venv" >&2
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input cmake >&2
fi
echo "$venv/bin"
