#!/usr/bin/env bash
# install.sh: `cmake --install` into a prefix inside the build tree, check
# what it holds, then build and run examples/solve.c against that prefix
# twice: through pkg-config (examples/Makefile) and through
# find_package(cisparse) (examples/CMakeLists.txt).
# Usage: bash install.sh SOURCE_DIR BUILD_DIR
set -u
SRC=$1 BUILD=$2
W=$BUILD/install-test
rm -rf "$W"
mkdir -p "$W"
P=$W/prefix
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok   $*"; }

if ! cmake --install "$BUILD" --prefix "$P" > "$W/install.log" 2>&1; then
  cat "$W/install.log"; echo "FAIL: cmake --install"; exit 1
fi
LIBDIR=$(ls -d "$P"/lib*/pkgconfig 2>/dev/null | head -1); LIBDIR=${LIBDIR%/pkgconfig}
[ -n "$LIBDIR" ] || { echo "FAIL: no lib*/pkgconfig under $P"; exit 1; }
for f in "$LIBDIR/libcisparse.a" "$LIBDIR/libcisparse.so" "$LIBDIR/pkgconfig/cisparse.pc" \
         "$LIBDIR/cmake/cisparse/cisparseConfig.cmake" "$LIBDIR/cmake/cisparse/cisparseConfigVersion.cmake" \
         "$LIBDIR/cmake/cisparse/cisparseTargets.cmake" "$P/include/cisparse/cisparse.h" \
         "$P/include/cisparse/version.h" "$P/include/cisparse/export.h" "$P/bin/cisparse"; do
  [ -e "$f" ] && ok "installed ${f#$P/}" || fail "missing ${f#$P/}"
done
[ -e "$P/include/cisparse/internal.h" ] || [ -e "$P/include/core" ] && fail "private headers installed"
soname=$(readelf -d "$LIBDIR/libcisparse.so" | sed -n 's/.*SONAME.*\[\(.*\)\]/\1/p')
[ -n "$soname" ] && [ -e "$LIBDIR/$soname" ] && ok "SONAME $soname" || fail "SONAME '$soname' missing"
grep -q "prefix=$P\$" "$LIBDIR/pkgconfig/cisparse.pc" && ok "cisparse.pc prefix is the install prefix" \
  || fail "cisparse.pc prefix: $(grep '^prefix=' "$LIBDIR/pkgconfig/cisparse.pc")"
# the installed tool runs from the prefix (RPATH $ORIGIN/../lib) on the installed library
out=$("$P/bin/cisparse" --version 2>&1) && ok "installed tool: $out" || fail "installed tool: $out"
ldd "$P/bin/cisparse" | grep -q "$P/bin/../lib[^ ]*/libcisparse" && ok "installed tool loads the installed library" \
  || fail "installed tool does not load $LIBDIR/libcisparse: $(ldd "$P/bin/cisparse" | grep cisparse)"
bash "$SRC/tests/install/exports.sh" "$LIBDIR/libcisparse.so" "$P/include" && ok "exports" || fail "exports"

# the example, both ways, copied out of the source tree
cp -r "$SRC/examples" "$W/pc"
if PKG_CONFIG_PATH=$LIBDIR/pkgconfig make -C "$W/pc" solve ci > "$W/pc.log" 2>&1; then
  if "$W/pc/solve" > "$W/pc.out" 2>&1; then ok "pkg-config example: $(tail -1 "$W/pc.out")"
  else cat "$W/pc.out"; fail "pkg-config example run"; fi
  # the CI driver example: H2O STO-3G full CI equals the reference energy
  if "$W/pc/ci" "$SRC/../shared/ci/h2o_sto3g.FCIDUMP" 2 > "$W/ci.out" 2>&1 &&
     grep -q "root 0  E = -75.01257824" "$W/ci.out"; then ok "CI driver example: $(sed -n 2p "$W/ci.out")"
  elif [ ! -e "$SRC/../shared/ci/h2o_sto3g.FCIDUMP" ]; then echo "skipped: CI example (no ../shared/ci)"
  else cat "$W/ci.out"; fail "CI driver example run"; fi
else
  cat "$W/pc.log"; fail "pkg-config example build"
fi
if cmake -S "$SRC/examples" -B "$W/cm" -DCMAKE_PREFIX_PATH="$P" > "$W/cm.log" 2>&1 &&
   cmake --build "$W/cm" >> "$W/cm.log" 2>&1; then
  if "$W/cm/solve" laplace3d:size=12 csr > "$W/cm.out" 2>&1; then ok "find_package example: $(tail -1 "$W/cm.out")"
  else cat "$W/cm.out"; fail "find_package example run"; fi
  ldd "$W/cm/solve" | grep -q "$LIBDIR/libcisparse" || fail "find_package example does not load the installed library"
else
  cat "$W/cm.log"; fail "find_package example build"
fi
# the README's and docs' `cc examples/solve.c $(pkg-config ...)` lines (blocks
# marked `install`), run exactly as printed from a copy of the source's
# examples, PKG_CONFIG_PATH at this prefix as the README's export sets it
mkdir -p "$W/readme" && cp -r "$SRC/examples" "$W/readme/examples"
n=0
while IFS= read -r line; do
  n=$((n + 1))
  if (cd "$W/readme" && PKG_CONFIG_PATH=$LIBDIR/pkgconfig bash -c "$line") > "$W/readme.out" 2>&1 &&
     grep -q "converged" "$W/readme.out"; then ok "documented: $line"
  else cat "$W/readme.out"; fail "documented: $line"; fi
done < <(python3 "$SRC/tests/docs/doc_examples.py" "$SRC" --print install | grep '^cc examples/' | sort -u)
[ $n -gt 0 ] || fail "no \`cc examples/...\` line in the blocks marked install (README.md, docs/install.md)"
# the static library through find_package as well (a C program: the
# target brings OpenMP, and with CUDA cudart_static, cuSPARSE, cuBLAS, stdc++)
cat > "$W/static.cmake" <<EOS
cmake_minimum_required(VERSION 3.24)
project(static_example LANGUAGES C)
find_package(cisparse REQUIRED)
add_executable(solve_static $SRC/examples/solve.c)
target_link_libraries(solve_static PRIVATE cisparse::cisparse_static m)
EOS
mkdir -p "$W/st" && cp "$W/static.cmake" "$W/st/CMakeLists.txt"
if cmake -S "$W/st" -B "$W/st/build" -DCMAKE_PREFIX_PATH="$P" > "$W/st.log" 2>&1 &&
   cmake --build "$W/st/build" >> "$W/st.log" 2>&1 && "$W/st/build/solve_static" laplace3d:size=8 > "$W/st.out" 2>&1; then
  ok "static find_package example: $(tail -1 "$W/st.out")"
else
  tail -20 "$W/st.log"; cat "$W/st.out" 2>/dev/null; fail "static find_package example"
fi
[ $fails -eq 0 ] && rm -rf "$W"
echo "$fails failure(s)"
exit $(( fails > 0 ))
