#!/usr/bin/env bash
# Installs the build into a temporary prefix, checks what was installed, moves the prefix (so
# nothing can lean on the old place or on the build tree), then from the moved prefix:
#   - runs the installed CLI with no plugin variable set (it must find share/hhlo/plugins itself),
#   - builds examples/consumer with find_package(hhlo 0.1 CONFIG REQUIRED) and runs it (a module
#     built, compiled and executed on the installed plugin, values checked against std::tanh),
#   - builds the same program with pkg-config (hhlo.pc) and runs it,
#   - checks that every place that states the version states the build's (hhlo_VERSION of
#     find_package, the installed headers, the library, `hhlo --version`, hhlo.pc) and that
#     find_package refuses a version request the package does not meet.
# Fails when an installed binary or package file names the build tree or the set-up folder.
# Usage: install_test.sh BUILD_DIR SOURCE_DIR THIRD_PARTY_DIR
set -euo pipefail
build=$(cd "$1" && pwd); src=$(cd "$2" && pwd); tp=$(cd "$3" && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
unset HHLO_PJRT_PLUGIN_CPU HHLO_PJRT_PLUGIN_CUDA
version=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$build/CMakeCache.txt")
[ -n "$version" ] || fail "no CMAKE_PROJECT_VERSION in $build/CMakeCache.txt"

# Everything but the CUDA component (its 4.9 GB of NVIDIA wheels when set up: cmake/install.cmake).
cmake --install "$build" --prefix "$tmp/p" --component Unspecified >/dev/null
for f in include/hhlo/session.h include/hhlo/core/paths.h bin/hhlo lib/cmake/hhlo/hhloConfig.cmake \
         lib/cmake/hhlo/hhloConfigVersion.cmake lib/cmake/hhlo/hhloTargets.cmake lib/pkgconfig/hhlo.pc \
         share/hhlo/plugins/cpu/pjrt_c_api_cpu_plugin.so share/hhlo/data/digits.csv.gz; do
  [ -e "$tmp/p/$f" ] || fail "not installed: $f"
done
compgen -G "$tmp/p/lib/libhhlo*" >/dev/null || fail "no library installed"

# No installed file may name the build tree or the set-up folder (debug sections aside: they
# name source files for debuggers, never a path the program opens).
# Nor the source tree: file names recorded in code (std::source_location of ops built inside the
# library, __FILE__) must read hhlo/src/..., not /work/.../src/... or a build-relative ../src/...
forbidden=("$build" "$tp" "$(readlink -f "$tp")" "$src" "$(readlink -f "$src")")
source "$src/tests/install/no_build_paths.sh"
check_no_build_paths "$tmp/p"/bin/* "$tmp/p"/lib/libhhlo* "$tmp/p"/lib/cmake/hhlo/* "$tmp/p"/lib/pkgconfig/*

mv "$tmp/p" "$tmp/moved"; p="$tmp/moved"

# The installed CLI states the version.
out=$("$p/bin/hhlo" --version)
[ "$(head -1 <<<"$out")" = "hhlo $version" ] || fail "hhlo --version says '$out', not hhlo $version"

# The installed CLI finds the plugin of its own prefix, run from elsewhere.
out=$(cd / && "$p/bin/hhlo" devices)
grep -qF "plugin:          $p/share/hhlo/plugins/cpu/pjrt_c_api_cpu_plugin.so" <<<"$out" ||
  fail "installed hhlo did not use its own plugin: $out"
cat > "$tmp/prog.mlir" <<'MLIR'
func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = stablehlo.multiply %x, %x : tensor<3xf32>
  return %0 : tensor<3xf32>
}
MLIR
"$src/.venv/bin/python" -c "import numpy as np; np.save('$tmp/x.npy', np.array([1.5, -2, 3], np.float32))"
(cd / && "$p/bin/hhlo" run "$tmp/prog.mlir" -i "$tmp/x.npy" -o "$tmp/out") >/dev/null
"$src/.venv/bin/python" -c "
import numpy as np; y = np.load('$tmp/out/out0.npy')
assert np.array_equal(y, np.array([2.25, 4, 9], np.float32)), y"

# The demo finds its data in the prefix too (one epoch).
(cd / && "$p/bin/hhlo" demo --epochs 1 --no-progress) | grep -q "final test accuracy" ||
  fail "the installed demo did not train"

# A CMake project of its own: find_package(hhlo CONFIG REQUIRED) + hhlo::hhlo.
cmake -S "$src/examples/consumer" -B "$tmp/cb" -G Ninja -DCMAKE_PREFIX_PATH="$p" \
  -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$tmp/cb" >/dev/null
out=$(cd / && "$tmp/cb/hhlo_consumer")
echo "$out"
grep -qF "plugin: $p/share/hhlo/plugins/cpu/pjrt_c_api_cpu_plugin.so" <<<"$out" ||
  fail "the consumer did not find the installed plugin"
grep -qF "ok: 0 wrong values" <<<"$out" || fail "the consumer computed wrong values"
grep -qxF "hhlo package $version, headers $version, library $version" <<<"$out" ||
  fail "find_package's hhlo_VERSION, the headers and the library do not all say $version"

# find_package refuses what the package does not meet: the next minor version (before 1.0.0 a
# minor version may break the API; the config version file accepts the same major.minor only).
major=${version%%.*}; rest=${version#*.}; minor=${rest%%.*}
mkdir -p "$tmp/newer"
cat > "$tmp/newer/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.25)
project(newer LANGUAGES NONE)
find_package(hhlo $major.$((minor + 1)) CONFIG)
if(hhlo_FOUND)
  message(FATAL_ERROR "find_package(hhlo $major.$((minor + 1))) accepted \${hhlo_VERSION}")
endif()
CMAKE
cmake -S "$tmp/newer" -B "$tmp/newer/b" -DCMAKE_PREFIX_PATH="$p" >/dev/null 2>&1 ||
  fail "find_package(hhlo $major.$((minor + 1))) accepted the installed $version"

# pkg-config: the same program (the plugin named by the environment: nothing tells a
# pkg-config build where the package lies).
[ "$(PKG_CONFIG_PATH="$p/lib/pkgconfig" pkg-config --modversion hhlo)" = "$version" ] ||
  fail "hhlo.pc does not say $version"
flags=$(PKG_CONFIG_PATH="$p/lib/pkgconfig" pkg-config --cflags --libs hhlo)
g++ -O1 "$src/examples/consumer/main.cc" $flags -o "$tmp/pc_consumer"
out=$(HHLO_PJRT_PLUGIN_CPU="$p/share/hhlo/plugins/cpu/pjrt_c_api_cpu_plugin.so" "$tmp/pc_consumer")
grep -qF "ok: 0 wrong values" <<<"$out" || fail "the pkg-config consumer computed wrong values: $out"
grep -qxF "hhlo headers $version, library $version" <<<"$out" ||
  fail "the pkg-config consumer's headers and library do not both say $version: $out"
echo "install test passed"
