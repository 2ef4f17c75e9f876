// Programs the plugin fails on in unusual ways never reach it: our parser refuses them first.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "runtime_util.h"

namespace hhlo {
namespace {

using ::testing::HasSubstr;

// 4611686018427387904 * 4 = 2^64: the element count of these types overflows int64. Both CPU
// plugins (0.0.1, 0.115) throw absl::BadStatusOrAccess out of PJRT_Client_Compile for them (it was
// reported as "internal error: Bad StatusOr access" by the CLI); our parser refuses the type, so
// such a text is our ParseError and the plugin never sees it.
TEST(CompileErrors, TypeWhoseElementCountOverflowsIsOurParseError) {
  const std::string programs[] = {
      R"(func.func @main(%a: tensor<4611686018427387904x4xf32>) -> tensor<4611686018427387904x4xf32> {
  return %a : tensor<4611686018427387904x4xf32>
})",
      R"(func.func @main() -> tensor<4611686018427387904x4xf32> {
  %c = stablehlo.constant dense<1.0> : tensor<f32>
  %b = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<f32>) -> tensor<4611686018427387904x4xf32>
  return %b : tensor<4611686018427387904x4xf32>
})"};
  for (const std::string& program : programs) {
    try {
      test::compile(program);
      FAIL() << "compiled a type of 2^64 elements";
    } catch (const ParseError& e) {
      EXPECT_EQ(e.expected(), "a dimension size") << e.what();
      EXPECT_EQ(e.line(), 1u) << e.what();
    }
  }
}

}  // namespace
}  // namespace hhlo
