#!/usr/bin/env bash
# The shared-library build (HHLO_BUILD_SHARED=ON: one libhhlo.so holding every layer) installed
# and used: configures its own build tree next to the main one (BUILD_DIR-shared, kept between
# runs so later runs are incremental; a sibling so the compiler sees the same relative paths and
# ccache serves the main build's objects), builds only libhhlo.so and the CLI, installs into a
# temporary prefix, moves the prefix, then builds examples/consumer against it with
# find_package(hhlo) and runs it (a module built, compiled and executed, values checked against
# std::tanh). Checks the program really loads the installed libhhlo.so and that neither the
# library nor the CLI names the build trees, the source tree or the set-up folder.
# Usage: shared_test.sh BUILD_DIR SOURCE_DIR THIRD_PARTY_DIR BUILD_TYPE
set -euo pipefail
build=$(cd "$1" && pwd); src=$(cd "$2" && pwd); tp=$(cd "$3" && pwd); type=${4:-RelWithDebInfo}
tree="$build-shared"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
unset HHLO_PJRT_PLUGIN_CPU HHLO_PJRT_PLUGIN_CUDA

start=$SECONDS
cmake -S "$src" -B "$tree" -G Ninja -DCMAKE_BUILD_TYPE="$type" -DHHLO_BUILD_SHARED=ON \
  -DHHLO_THIRD_PARTY="$tp" >/dev/null
cmake --build "$tree" -j "${JOBS:-2}" --target hhlo_shared hhlo_cli >/dev/null
echo "shared build (configure + libhhlo.so + CLI): $((SECONDS - start)) s"

cmake --install "$tree" --prefix "$tmp/p" --component Unspecified >/dev/null  # no CUDA wheels
so=$(ls "$tmp/p"/lib/libhhlo.so.* 2>/dev/null | head -1)
[ -n "$so" ] && [ -L "$tmp/p/lib/libhhlo.so" ] || fail "libhhlo.so not installed: $(ls "$tmp/p/lib")"
if compgen -G "$tmp/p/lib/libhhlo_*.a" >/dev/null; then fail "static layers installed too"; fi
grep -q "libhhlo.so" "$tmp/p"/lib/cmake/hhlo/hhloTargets-*.cmake || fail "hhlo::hhlo is not the shared library"

forbidden=("$build" "$tree" "$src" "$tp" "$(readlink -f "$tp")" "$(readlink -f "$src")")
source "$src/tests/install/no_build_paths.sh"
check_no_build_paths "$so" "$tmp/p/bin/hhlo"

mv "$tmp/p" "$tmp/moved"; p="$tmp/moved"
cmake -S "$src/examples/consumer" -B "$tmp/cb" -G Ninja -DCMAKE_PREFIX_PATH="$p" \
  -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$tmp/cb" >/dev/null
libs=$(ldd "$tmp/cb/hhlo_consumer")  # (not piped into grep -q: pipefail and SIGPIPE)
grep -qF "$p/lib/libhhlo.so" <<<"$libs" ||
  fail "the consumer does not load the installed libhhlo.so: $(grep hhlo <<<"$libs")"
syms=$(nm -C "$tmp/cb/hhlo_consumer")
if grep -q " T hhlo::Module::add_func" <<<"$syms"; then
  fail "the consumer holds the library's code: linked statically"
fi
out=$(cd / && "$tmp/cb/hhlo_consumer")
echo "$out"
grep -qF "plugin: $p/share/hhlo/plugins/cpu/pjrt_c_api_cpu_plugin.so" <<<"$out" ||
  fail "the consumer did not find the plugin next to the installed libhhlo.so"
grep -qF "ok: 0 wrong values" <<<"$out" || fail "the consumer computed wrong values"
# libhhlo.so.MAJOR.MINOR.PATCH, find_package's hhlo_VERSION, the headers and the library agree.
version=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$tree/CMakeCache.txt")
[ -e "$p/lib/libhhlo.so.$version" ] || fail "no libhhlo.so.$version: $(ls "$p/lib")"
grep -qxF "hhlo package $version, headers $version, library $version" <<<"$out" ||
  fail "find_package's hhlo_VERSION, the headers and libhhlo.so do not all say $version"
echo "shared install test passed"
