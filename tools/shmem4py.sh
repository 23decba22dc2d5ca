#!/usr/bin/env bash
# Usage: tools/shmem4py.sh [--oshcc] BUILD_DIR
#
# Builds shmem4py (the OpenSHMEM bindings for Python, from PyPI) against the nodeshm of BUILD_DIR
# (e.g. build/mpich): a venv BUILD_DIR/py with numpy and cffi, shmem4py compiled with
# BUILD_DIR/bin/oshcc (so its extension links BUILD_DIR/lib/libnodeshm.so), and shmem4py's own
# test suite unpacked from the same sdist into BUILD_DIR/py/shmem4py-tests/test.  Prints the
# venv's python.  Then:  BUILD_DIR/bin/oshrun -np 4 BUILD_DIR/py/bin/python prog.py
#
# --oshcc prints the OSHCC value shmem4py needs with this nodeshm (the absolute path of the
# build's oshcc and the flags below) and exits, to install it into a Python environment of one's own:
#   OSHCC="$(tools/shmem4py.sh --oshcc BUILD_DIR)" pip install shmem4py 'numpy<2'
# (shmem4py's setup takes OSHCC's first word through shutil.which in pip's temporary build
# directory, so a relative path is not found and it quietly compiles with plain gcc instead.)
#
# Why flags: shmem4py 1.0.0 recognizes five OpenSHMEM vendors by their header macros and, for any
# other, defines static stand-ins for the 1.5 routines (teams, put-with-signal, nbi atomics,
# typed collectives, ...), which collide with nodeshm's declarations.  It guards each group with
# PySHMEM_HAVE_<feature>; this script compiles one probe per group against shmem.h and defines
# the macros of the groups nodeshm declares, so the stand-ins are used only for what is missing
# (shmem_pcontrol, before nodeshm had it) and the build follows nodeshm's header as it grows.
#
# Exit status: 0 built (or already built for these headers); 77 shmem4py cannot be built here
# (no network to PyPI, no python3-venv, no Python.h, no C compiler, no numpy 1.x wheel for this
# Python), with one line "shmem4py: SKIP: <why>" on stdout; 1 it could be built but the build or
# its import failed (a nodeshm problem: missing or wrong declarations), details on stderr.
# Idempotent: a stamp written last holds a hash of the shmem4py and numpy specs, oshcc and
# nodeshm's headers (the probes follow from those); a run with the same stamp and a working
# import does nothing (0.2 s); any header change rebuilds (about 45 s of CPU).  Concurrent runs
# for one build dir are serialized (flock).
#
# Environment: NODESHM_SHMEM4PY_SPEC (shmem4py==1.0.0: the PySHMEM_HAVE_* macros are that
# version's internals), NODESHM_SHMEM4PY_NUMPY ('numpy<2': shmem4py 1.0.0 and its tests predate
# NumPy 2's copy and integer-conversion rules), NODESHM_SHMEM4PY_SDIST (a local sdist: no
# download of it), PYTHON (python3); pip's own PIP_* variables (index, proxy) are honoured.
set -uo pipefail

flags_only=no
if [ "${1:-}" = --oshcc ]; then flags_only=yes; shift; fi
[ $# -eq 1 ] || { echo "usage: $0 [--oshcc] BUILD_DIR" >&2; exit 2; }

skip() { echo "shmem4py: SKIP: $*"; exit 77; }
fail() { echo "shmem4py: FAIL: $*" >&2; exit 1; }
# pip's reason, shortened to fit the SKIP line: the connection error if any, else its last error
why() {
  { grep -m1 -oE '(Failed to establish a new connection|NameResolutionError|Failed to resolve|Temporary failure in name resolution|Name or service not known|Connection refused|Network is unreachable|SSL: [A-Z_]+)[^)'"'"']*' "$1" ||
    grep -E '^ERROR' "$1" | tail -1 || tail -1 "$1"; } | head -1 | cut -c1-160
}

build=$(cd "$1" 2>/dev/null && pwd) || fail "no build directory $1"
oshcc=$build/bin/oshcc
[ -x "$oshcc" ] || fail "$oshcc missing (build nodeshm first: make)"
spec=${NODESHM_SHMEM4PY_SPEC:-shmem4py==1.0.0}
numpy_spec=${NODESHM_SHMEM4PY_NUMPY:-numpy<2}
python=${PYTHON:-python3}
venv=$build/py
tmp=$(mktemp -d "${TMPDIR:-/tmp}/shmem4py.XXXXXX") || fail "mktemp failed"
trap 'rm -rf "$tmp"' EXIT

# PySHMEM_HAVE_<feature> when shmem.h declares <symbol>
probe() { # probe FEATURE SYMBOL
  printf '#include <shmem.h>\nvoid *nodeshm_probe(void) { return (void *)&%s; }\n' "$2" >"$tmp/p.c"
  if "$oshcc" -c "$tmp/p.c" -o "$tmp/p.o" 2>/dev/null; then
    flags="$flags -DPySHMEM_HAVE_$1=1"
  fi
}
# ---- up to date? (the probes below depend only on oshcc and the headers) ------------------------
[ $flags_only = yes ] || {
  incdir=$(sed -n "s/^incdir='\(.*\)'$/\1/p" "$oshcc")
  key=$( { echo "$spec $numpy_spec"; cat "$oshcc" "$incdir"/*.h 2>/dev/null; } |
         cksum | cut -d' ' -f1)
  stamp=$venv/.nodeshm-shmem4py
  mkdir -p "$build"
  exec 9>"$build/.shmem4py.lock"
  command -v flock >/dev/null && flock 9
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$key" ] &&
     "$venv/bin/python" -c 'import shmem4py.api' 2>/dev/null &&
     [ -d "$venv/shmem4py-tests/test" ]; then
    echo "$venv/bin/python"
    exit 0
  fi
  rm -f "$stamp"
}

printf '#include <shmem.h>\nint main(void) { shmem_init(); shmem_finalize(); return 0; }\n' >"$tmp/t.c"
if ! "$oshcc" "$tmp/t.c" -o "$tmp/t" >"$tmp/cc.log" 2>&1; then
  cc=$(sed -n "s/^compiler='\(.*\)'$/\1/p" "$oshcc")
  command -v "${cc:-mpicc}" >/dev/null 2>&1 || skip "no C compiler: $oshcc wraps '${cc:-nothing}'"
  head -20 "$tmp/cc.log" >&2; fail "$oshcc cannot build a minimal OpenSHMEM program"
fi

# ---- feature probes -----------------------------------------------------------------------------
flags=
probe shmem_malloc_with_hints shmem_malloc_with_hints
probe shmem_team_t shmem_team_split_strided
probe shmem_amo_nbi shmem_int_atomic_fetch_add_nbi
probe shmem_put_signal shmem_int_put_signal
probe shmem_signal_fetch shmem_signal_fetch
probe shmem_signal_wait_until shmem_signal_wait_until
probe shmem_broadcast shmem_int_broadcast
probe shmem_collect shmem_int_collect
probe shmem_fcollect shmem_int_fcollect
probe shmem_alltoall shmem_int_alltoall
probe shmem_alltoalls shmem_int_alltoalls
probe shmem_broadcastmem shmem_broadcastmem
probe shmem_collectmem shmem_collectmem
probe shmem_fcollectmem shmem_fcollectmem
probe shmem_alltoallmem shmem_alltoallmem
probe shmem_alltoallsmem shmem_alltoallsmem
probe shmem_reduce shmem_int_sum_reduce
probe shmem_wait_test_many shmem_int_wait_until_all
probe shmem_pcontrol shmem_pcontrol
printf '#include <shmem.h>\nshmem_ctx_t c = SHMEM_CTX_INVALID;\n' >"$tmp/p.c"
"$oshcc" -c "$tmp/p.c" -o "$tmp/p.o" 2>/dev/null && flags="$flags -DPySHMEM_HAVE_SHMEM_CTX_INVALID=1"
flags=${flags# }
if [ $flags_only = yes ]; then echo "$oshcc $flags"; exit 0; fi

# ---- venv, numpy, cffi --------------------------------------------------------------------------
command -v "$python" >/dev/null || skip "no $python"
inc=$("$python" -c 'import sysconfig; print(sysconfig.get_paths()["include"])' 2>/dev/null)
[ -f "$inc/Python.h" ] || skip "no Python.h for $python (Debian: apt-get install python3-dev)"
# Few retries: without network pip would otherwise spend minutes per package before giving up.
pip() { "$venv/bin/python" -m pip --disable-pip-version-check --no-input --retries 2 --timeout 20 "$@"; }
if [ ! -x "$venv/bin/python" ]; then
  rm -rf "$venv"
  "$python" -m venv "$venv" >"$tmp/venv.log" 2>&1 ||
    skip "'$python -m venv' failed (Debian: apt-get install python3-venv)"
fi
echo "shmem4py: installing $numpy_spec, cffi, setuptools into $venv" >&2
if ! pip install --quiet --only-binary numpy "$numpy_spec" 'cffi>=1.13' 'setuptools>=43' wheel \
     >"$tmp/pip.log" 2>&1; then
  if grep -qiE 'No matching distribution|Could not find a version' "$tmp/pip.log" &&
     pip download --quiet --no-deps -d "$tmp/probe" cffi >/dev/null 2>&1; then
    skip "no $numpy_spec wheel for $("$python" -V 2>&1) on PyPI (shmem4py 1.0.0 needs NumPy 1.x)"
  fi
  skip "cannot install $numpy_spec and cffi from PyPI: $(why "$tmp/pip.log")"
fi

# ---- the sdist: the package and its test suite --------------------------------------------------
sdist=${NODESHM_SHMEM4PY_SDIST:-}
if [ -z "$sdist" ]; then
  pip download --quiet --no-deps --no-binary :all: -d "$tmp/dl" "$spec" >"$tmp/dl.log" 2>&1 ||
    skip "cannot download $spec from PyPI: $(why "$tmp/dl.log")"
  sdist=$(ls "$tmp"/dl/*.tar.gz 2>/dev/null | head -1)
fi
[ -f "$sdist" ] || skip "no shmem4py sdist ($spec)"
rm -rf "$venv/shmem4py-tests"
mkdir -p "$venv/shmem4py-tests"
tar xzf "$sdist" -C "$tmp" || fail "cannot unpack $sdist"
src=$(ls -d "$tmp"/shmem4py-*/ | head -1)
cp -r "$src/test" "$venv/shmem4py-tests/" || fail "no test/ in $sdist"

echo "shmem4py: building $(basename "$sdist") with OSHCC=$oshcc $flags" >&2
if ! OSHCC="$oshcc $flags" pip install --no-build-isolation --no-deps --no-cache-dir \
       --force-reinstall "$sdist" >"$tmp/build.log" 2>&1; then
  grep -E 'error|undefined' "$tmp/build.log" | head -40 >&2
  fail "building $(basename "$sdist") against $oshcc failed (log above)"
fi
so=$(ls "$venv"/lib/python*/site-packages/shmem4py/api*.so 2>/dev/null | head -1)
[ -n "$so" ] || fail "no shmem4py extension after the build"
libs=$(ldd "$so" 2>&1)  # not piped into grep -q: with pipefail, ldd's SIGPIPE would fail the test
case $libs in
  *"$build/lib/libnodeshm.so"*) ;;
  *) fail "$so does not load $build/lib/libnodeshm.so: $(echo "$libs" | grep -i shmem)" ;;
esac
"$venv/bin/python" -c 'import shmem4py.api' 2>"$tmp/import.log" || {
  cat "$tmp/import.log" >&2; fail "import shmem4py.api failed"; }
echo "$key" >"$stamp"
echo "$venv/bin/python"
