// Compile failures the plugin reports in unusual ways still reach the caller as PjrtError.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "runtime_util.h"

namespace hhlo {
namespace {

using ::testing::HasSubstr;

// 4611686018427387904 * 4 = 2^64: the element count of these types overflows int64. Both CPU
// plugins (0.0.1, 0.115) throw absl::BadStatusOrAccess out of PJRT_Client_Compile for them (it was
// reported as "internal error: Bad StatusOr access" by the CLI).
TEST(CompileErrors, TypeWhoseElementCountOverflowsIsAPjrtError) {
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
    } catch (const PjrtError& e) {
      EXPECT_EQ(e.function(), "PJRT_Client_Compile");
      EXPECT_THAT(e.what(), HasSubstr("4611686018427387904")) << e.what();
    }
  }
}

}  // namespace
}  // namespace hhlo
