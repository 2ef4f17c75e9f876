// Parser forms met in real exports beyond the basic corpus: custom-call layouts written as
// splats and empty literals (jnp.linalg.eigh's `lapack_ssyevd_ffi` call).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "hhlo/ir/parser.h"
#include "hhlo/ir/printer.h"

namespace hhlo {
namespace {

TEST(ParserLayouts, SplatAndEmptyLayoutsParseAndRoundTrip) {
  const char* text = R"(
    func.func @main(%a: tensor<3xf32>) -> tensor<3xf32> {
      %0:2 = stablehlo.custom_call @target(%a) {api_version = 4 : i32,
          operand_layouts = [dense<0> : tensor<1xindex>],
          result_layouts = [dense<0> : tensor<1xindex>, dense<> : tensor<0xindex>]}
          : (tensor<3xf32>) -> (tensor<3xf32>, tensor<f32>)
      return %0#0 : tensor<3xf32>
    })";
  Module m = parse_module(text);
  const Op& op = *m.funcs()[0]->body().ops()[0];
  const auto* in = op.attr("operand_layouts")->get_if<LayoutsAttr>();
  const auto* out = op.attr("result_layouts")->get_if<LayoutsAttr>();
  ASSERT_NE(in, nullptr);
  ASSERT_NE(out, nullptr);
  EXPECT_EQ(in->layouts, (std::vector<std::vector<int64_t>>{{0}}));
  EXPECT_EQ(out->layouts, (std::vector<std::vector<int64_t>>{{0}, {}}));
  std::string again = to_mlir(m);
  EXPECT_EQ(to_mlir(parse_module(again)), again);
}

}  // namespace
}  // namespace hhlo
