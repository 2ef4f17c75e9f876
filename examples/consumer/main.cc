// Builds y = tanh(x + b) (x: f32[2,3], b: f32[3] broadcast along rows) with the IR builder, then
// compiles and runs it on the installed package's CPU plugin, and checks every value against
// std::tanh. Prints the versions (of the package found, its headers and the library linked), the
// outputs and the plugin used; exits 1 on a wrong value, 2 with the message of any hhlo::Error (a
// missing plugin names every place it looked).
#include <cmath>
#include <cstdio>
#include <vector>

#include "hhlo/core/error.h"
#include "hhlo/core/version.h"
#include "hhlo/ir/ops.h"
#include "hhlo/runtime/plugin.h"
#include "hhlo/session.h"

namespace {

int run_example() {
  using namespace hhlo;
  // HHLO_PACKAGE_VERSION: find_package's hhlo_VERSION (CMakeLists.txt; not with pkg-config).
#ifdef HHLO_PACKAGE_VERSION
  std::printf("hhlo package %s, headers %s, library %s\n", HHLO_PACKAGE_VERSION,
              HHLO_VERSION_STRING, version());
#else
  std::printf("hhlo headers %s, library %s\n", HHLO_VERSION_STRING, version());
#endif
  Module m;
  Func& f = m.add_func("main", {{DType::f32, {2, 3}}, {DType::f32, {3}}});
  f.ret({tanh(add(f.arg(0), broadcast_in_dim(f.arg(1), {2, 3}, {1})))});

  std::vector<float> x = {1, 2, 3, -4, 0.5f, -0.25f}, b = {0, -1, 0.5f};
  std::vector<Array> out = run(m, {Array::from<float>({2, 3}, x), Array::from<float>({3}, b)});
  std::printf("plugin: %s\n", Plugin::for_platform("cpu").path().c_str());
  std::vector<float> y = out.at(0).to_vector<float>();
  int wrong = 0;
  for (int i = 0; i < 6; ++i) {
    float want = std::tanh(x[i] + b[i % 3]);
    std::printf("y[%d] = %.6f (std::tanh %.6f)\n", i, y[i], want);
    if (std::fabs(y[i] - want) > 1e-5f) ++wrong;
  }
  std::printf(wrong ? "FAILED: %d wrong values\n" : "ok: %d wrong values\n", wrong);
  return wrong ? 1 : 0;
}

}  // namespace

int main() {
  try {
    return run_example();
  } catch (const hhlo::Error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  }
}
