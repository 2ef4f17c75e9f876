// The README's "library in one page" example, verbatim, with its result checked against std::tanh.
#include <gtest/gtest.h>

#include <cmath>

#include "hhlo/ir/ops.h"
#include "hhlo/ir/printer.h"
#include "hhlo/session.h"

namespace hhlo {
namespace {

TEST(Readme, OnePageExampleRunsAndItsBadTwinIsAShapeError) {
  Module m;
  Func& f = m.add_func("main", {{DType::f32, {2, 3}}, {DType::f32, {3}}});
  Value y = tanh(add(f.arg(0), broadcast_in_dim(f.arg(1), {2, 3}, {1})));
  f.ret({y});
  std::vector<Array> out =
      run(m, {Array::from<float>({2, 3}, {1, 2, 3, 4, 5, 6}), Array::from<float>({3}, {0, 0, 1})});
  ASSERT_EQ(out.size(), 1u);
  const float x[6] = {1, 2, 4, 4, 5, 7};
  for (int i = 0; i < 6; ++i) EXPECT_NEAR(out[0].values<float>()[i], std::tanh(x[i]), 1e-6) << i;

  Module bad;
  Func& g = bad.add_func("main", {{DType::f32, {2, 3}}, {DType::f32, {3}}});
  try {
    add(g.arg(0), g.arg(1));
    FAIL() << "no ShapeError";
  } catch (const ShapeError& e) {
    EXPECT_EQ(e.op(), "add");
    EXPECT_NE(std::string(e.what()).find("tensor<2x3xf32>"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("tensor<3xf32>"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace hhlo
