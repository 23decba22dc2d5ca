#!/usr/bin/env bash
# Usage: tools/fftw.sh MPICC
# Provides FFTW 3 for nodeshm-fft (fft/) without root and prints two lines:
#   serial PREFIX    include/fftw3.h, lib/libfftw3.so, lib/libfftw3f.so
#   mpi PREFIX|none  include/fftw3-mpi.h, lib/libfftw3_mpi.so built with MPICC (the reference
#                    peer of nodeshm-fft: FFTW's own MPI transform), or why it is missing
# Called by fft/CMakeLists.txt at configure time.
#
# Serial FFTW: the machine's (pkg-config fftw3 fftw3f), else Debian's binary packages unpacked
# into .deps/fftw (apt-get download needs no root).  FFTW-MPI: distributions build it against
# their own MPI (Debian's against its Open MPI 4.1), not the MPI this build uses, so it is built
# here from FFTW's source (Debian's pool, the serial library's version) with MPICC: its 31 files
# only, against the serial library, whose internal symbols libfftw3 exports (that is how Debian
# links libfftw3-mpi too).  About 20 s, once per MPI, kept in .deps/fftw-mpi/<id of MPICC>.
# Idempotent; a stamp written last marks a complete result.
set -euo pipefail

mpicc=${1:?usage: $0 MPICC}
mpicc=$(readlink -f "$(command -v "$mpicc")") || { echo "fftw.sh: no $1" >&2; exit 1; }
root=$(cd "$(dirname "$0")/.." && pwd)
deps=$root/.deps
mkdir -p "$deps"
exec 9>"$deps/fftw.lock"
command -v flock >/dev/null && flock 9
say() { echo "fftw.sh: $*" >&2; }

# ---- serial
serial=""
fftw_version=""
if command -v pkg-config >/dev/null && pkg-config --exists fftw3 fftw3f 2>/dev/null; then
  serial=$(pkg-config --variable=prefix fftw3)
  fftw_version=$(pkg-config --modversion fftw3)
  # pkg-config's prefix can lie about multiarch lib dirs: give CMake the real ones.
  libdir=$(pkg-config --variable=libdir fftw3)
  incdir=$(pkg-config --variable=includedir fftw3)
  serial_lib=$libdir serial_inc=$incdir
else
  serial=$deps/fftw
  if [ ! -f "$serial/.nodeshm-ok" ]; then
    command -v apt-get >/dev/null && command -v dpkg >/dev/null || {
      say "no FFTW 3 here and no apt-get to fetch it: install libfftw3-dev (Debian/Ubuntu) or fftw-devel (Fedora)"
      exit 1; }
    say "fetching Debian's libfftw3-dev into $serial"
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    (cd "$tmp" && apt-get download libfftw3-dev libfftw3-double3 libfftw3-single3 >/dev/null 2>&1) || {
      say "apt-get download libfftw3-dev failed: install libfftw3-dev (Debian/Ubuntu) or fftw-devel (Fedora)"
      exit 1; }
    rm -rf "$serial" && mkdir -p "$serial/lib" "$serial/include"
    for d in "$tmp"/*.deb; do dpkg -x "$d" "$tmp/root"; done
    cp -a "$tmp"/root/usr/include/fftw3.h "$serial/include/"
    cp -a "$tmp"/root/usr/lib/*/libfftw3.so* "$tmp"/root/usr/lib/*/libfftw3f.so* "$serial/lib/"
    ls "$tmp"/libfftw3-dev_*.deb | sed 's/.*libfftw3-dev_\([0-9.]*\)-.*/\1/' >"$serial/version"
    rm -rf "$tmp"
    trap - EXIT
    touch "$serial/.nodeshm-ok"
  fi
  fftw_version=$(cat "$serial/version")
  serial_lib=$serial/lib serial_inc=$serial/include
fi
echo "serial $serial_inc $serial_lib $fftw_version"

# ---- FFTW-MPI with this MPI
id=$(printf '%s\n%s\n' "$mpicc" "$fftw_version" | md5sum | cut -c1-12)
mpi=$deps/fftw-mpi/$id
if [ ! -f "$mpi/.nodeshm-ok" ]; then
  say "building FFTW $fftw_version's MPI library with $mpicc into $mpi"
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  url="http://deb.debian.org/debian/pool/main/f/fftw3/fftw3_${fftw_version}.orig.tar.gz"
  if ! curl -fsS -o "$tmp/fftw.tar.gz" "$url" 2>"$tmp/err"; then
    say "could not fetch $url ($(head -c 200 "$tmp/err")): no FFTW-MPI reference"
    echo "mpi none could not fetch FFTW $fftw_version's source"
    exit 0
  fi
  tar -xzf "$tmp/fftw.tar.gz" -C "$tmp"
  src=$(echo "$tmp"/fftw-*/)
  # Only config.h is needed; the MPI library's sources then compile on their own.
  if ! (cd "$src" && MPICC=$mpicc ./configure --enable-mpi --disable-fortran --disable-doc \
          --enable-shared --disable-static -q >"$tmp/configure.log" 2>&1); then
    say "FFTW's configure failed (see below): no FFTW-MPI reference"; tail -5 "$tmp/configure.log" >&2
    echo "mpi none FFTW configure failed"
    exit 0
  fi
  files=$(sed -n 's/^\(SRC\|TRANSPOSE_SRC\|DFT_SRC\|RDFT_SRC\|RDFT2_SRC\) = //p' "$src/mpi/Makefile.am" |
          tr ' ' '\n' | grep '\.c$' | grep -v '^f03-wrap.c$')
  rm -rf "$mpi" && mkdir -p "$mpi/lib" "$mpi/include"
  if ! (cd "$src/mpi" && "$mpicc" -O2 -fPIC -shared -DHAVE_CONFIG_H -I.. -I../api \
          -Wl,-soname,libfftw3_mpi.so -o "$mpi/lib/libfftw3_mpi.so" $files \
          -L"$serial_lib" -lfftw3 -lm) >"$tmp/build.log" 2>&1; then
    say "building libfftw3_mpi failed: no FFTW-MPI reference"; tail -5 "$tmp/build.log" >&2
    rm -rf "$mpi"
    echo "mpi none libfftw3_mpi build failed"
    exit 0
  fi
  cp "$src/mpi/fftw3-mpi.h" "$mpi/include/"
  rm -rf "$tmp"
  trap - EXIT
  touch "$mpi/.nodeshm-ok"
fi
echo "mpi $mpi/include $mpi/lib"
