#!/usr/bin/env bash
# Profiling interface completeness, from the built library:
#  1. every exported (dynamic, defined) shmem_* symbol of libnodeshm.so has a pshmem_* twin at
#     the same address, and is weak (so a tool's definition wins in a static link too);
#  2. pshmem.h declares pshmem_X for every such name: a generated C11 file takes the address of
#     each, compiled with -Werror (an undeclared name is an error), and the header compiles as
#     C++ with every name that is not C-only (complex reductions).
set -u
lib="$NODESHM_BUILD_DIR/lib/libnodeshm.so"
work=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
nm -D --defined-only "$lib" | awk '$3 ~ /^p?shmem_/ {print $3, $1, $2}' | sort > "$work/syms"
[ -s "$work/syms" ] || { echo "no shmem_ symbols in $lib"; exit 1; }
fail=0
missing=() moved=() strong=()
while read -r name addr type; do
    twin=$(awk -v n="p$name" '$1 == n {print $2}' "$work/syms")
    if [ -z "$twin" ]; then missing+=("$name")
    elif [ "$twin" != "$addr" ]; then moved+=("$name ($addr, p: $twin)")
    fi
    [ "$type" = W ] || [ "$type" = V ] || strong+=("$name")
done < <(grep '^shmem_' "$work/syms")
total=$(grep -c '^shmem_' "$work/syms")
echo "$total exported shmem_ symbols"
if [ ${#missing[@]} -gt 0 ]; then
    echo "${#missing[@]} without a pshmem_ twin:"; printf '  %s\n' "${missing[@]}"; fail=1
fi
if [ ${#moved[@]} -gt 0 ]; then
    echo "${#moved[@]} whose pshmem_ twin is elsewhere:"; printf '  %s\n' "${moved[@]}"; fail=1
fi
if [ ${#strong[@]} -gt 0 ]; then
    echo "${#strong[@]} not weak (a tool cannot replace them in a static link):"
    printf '  %s\n' "${strong[@]}"; fail=1
fi

# every pshmem_ name the library has or should have
{ grep '^shmem_' "$work/syms" | awk '{print "p" $1}'; grep '^pshmem_' "$work/syms" | awk '{print $1}'; } \
    | sort -u > "$work/pnames"
gen() { # gen FILTER: a translation unit referencing every name FILTER lets through
    echo '#include <pshmem.h>'
    echo 'typedef void (*fn_t)(void);'
    echo 'fn_t pshmem_all[] = {'
    grep -v "$1" "$work/pnames" | sed 's/.*/    (fn_t)&,/'
    echo '};'
}
gen '^$' > "$work/all.c"
if ! "$OSHCC" -std=c11 -Wall -Werror -Werror=implicit-function-declaration -c "$work/all.c" \
        -o "$work/all.o" 2> "$work/cc.log"; then
    echo "pshmem.h does not declare every pshmem_ name (C11):"
    grep -oE "pshmem_[a-z0-9_]+. undeclared" "$work/cc.log" | sort -u | sed 's/^/  /'
    grep -q undeclared "$work/cc.log" || cat "$work/cc.log"
    fail=1
fi
oshcxx="$(dirname "$OSHCC")/oshc++"
gen 'complex' > "$work/all.cc"
if ! "$oshcxx" -std=c++11 -Wall -Werror -c "$work/all.cc" -o "$work/allxx.o" 2> "$work/cxx.log"; then
    echo "pshmem.h does not compile as C++ with every pshmem_ name:"
    head -20 "$work/cxx.log"
    fail=1
fi
[ $fail = 0 ] && echo "every shmem_ symbol has its pshmem_ twin, declared in pshmem.h"
exit $fail
