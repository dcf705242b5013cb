#!/bin/bash -eu
# SPDX-License-Identifier: MIT
# ClusterFuzzLite / OSS-Fuzz build script (fuzz/README.md "OSS-Fuzz and ClusterFuzzLite").
# Inputs from the build environment: $CC $CXX $CFLAGS $CXXFLAGS (sanitizer and
# coverage flags), $LIB_FUZZING_ENGINE, $SRC, $WORK, $OUT.
# Produces, per harness <h> of fuzz/CMakeLists.txt:
#   $OUT/rclient_<h>                   the fuzzer
#   $OUT/rclient_<h>_seed_corpus.zip   fuzz/corpus/<h>/ and fuzz/regressions/<h>/
#   $OUT/rclient_<h>.options           fuzz/options/<h>.options (max_len)
#   $OUT/rclient_<h>.dict              fuzz/dict/<h>.dict
cd "$(dirname "$0")/.." 2>/dev/null && [ -f fuzz/CMakeLists.txt ] || cd "$SRC/rclient"
DEPS=${DEPS:-/usr/local/deps}
if [ -d "$DEPS" ]; then
  export PKG_CONFIG_PATH="$DEPS/lib/pkgconfig:$DEPS/lib64/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
  openssl_args=(-DOPENSSL_ROOT_DIR="$DEPS" -DOPENSSL_USE_STATIC_LIBS=TRUE)
else
  openssl_args=()
fi
build="$WORK/rclient-build"
cmake -S . -B "$build" -G "Unix Makefiles" \
  -DCMAKE_C_COMPILER="$CC" -DCMAKE_CXX_COMPILER="$CXX" \
  -DCMAKE_C_FLAGS="$CFLAGS" -DCMAKE_CXX_FLAGS="$CXXFLAGS" -DCMAKE_BUILD_TYPE= \
  -DRCLIENT_WERROR=OFF -DRCLIENT_BUILD_TESTS=OFF -DRCLIENT_BUILD_BENCH=OFF -DRCLIENT_BUILD_EXAMPLES=OFF \
  -DRCLIENT_BUILD_FUZZ=ON -DRCLIENT_FUZZ_ENGINE=external -DRCLIENT_FUZZ_LINK="$LIB_FUZZING_ENGINE" \
  "${openssl_args[@]+"${openssl_args[@]}"}"
cmake --build "$build" -j"$(nproc)"

while read -r h; do
  [ -n "$h" ] || continue
  name="rclient_$h"
  cp "$build/fuzz/fuzz_$h" "$OUT/$name"
  rm -f "$OUT/${name}_seed_corpus.zip"
  # One flat zip (-j); zip refuses a name that occurs in both folders.
  find "fuzz/corpus/$h" "fuzz/regressions/$h" -type f ! -name '.*' | zip -q -j "$OUT/${name}_seed_corpus.zip" -@
  [ -f "fuzz/options/$h.options" ] && cp "fuzz/options/$h.options" "$OUT/$name.options"
  [ -f "fuzz/dict/$h.dict" ] && cp "fuzz/dict/$h.dict" "$OUT/$name.dict"
done < "$build/fuzz/harnesses.txt"
