// !stablehlo.token values on the CPU plugin: stablehlo.create_token and stablehlo.after_all (no
// builders in hhlo/ir/ops.h: the ops are appended as recorded ops, as the parser records them).
#include <gtest/gtest.h>

#include "exec_util.h"
#include "hhlo/ir/ops.h"

namespace hhlo {
namespace {

TEST(TokenExec, CreateTokenAndAfterAllOrderNothingAndCompute) {
  Module m;
  Func& f = m.add_func("main", {{DType::f32, {2}}});
  const TensorType token{DType::token, {}};
  Value t = f.append({"stablehlo.create_token", {}, {token}, {}, {}, {}})[0];
  Value u = f.append({"stablehlo.after_all", {t, t}, {token}, {}, {}, {}})[0];
  f.append({"stablehlo.after_all", {u}, {token}, {}, {}, {}});
  f.ret({add(f.arg(0), f.arg(0))});
  auto out = test::run(m, {Array::from<float>({2}, {1.5f, -2.0f})});
  EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{3.0f, -4.0f}));
}

}  // namespace
}  // namespace hhlo
