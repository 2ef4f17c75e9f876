// Plugin limitations found by the conformance corpus, each reproduced on its own so that an
// upgraded plugin that fixes one makes its test fail (then update docs/conformance.md).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "hhlo/runtime/client.h"

namespace hhlo {
namespace {

const Client& cpu() {
  static const Client client = Client::create("cpu", {{"cpu_device_count", int64_t{1}}});
  return client;
}

std::string corpus_file_without_checks(const std::string& name) {
  std::ifstream in(std::string(HHLO_CONFORMANCE_DIR) + "/" + name);
  std::string line, out;
  while (std::getline(in, line))
    if (line.find("@check.") == std::string::npos) out += line + "\n";
  return out;
}

// xla-cpu-pjrt 0.0.1 returns wrong values for the corpus's jnp.take along the last axis when the
// whole program is constant: out[i, j, k] should be operand[i, j, idx[k]] = 100i + 10j + idx[k]
// with idx = [2, 4], but element [0, 0, 1] comes back as 502. The same gather with the operand as a
// parameter is right, and jaxlib 0.10.2's own XLA:CPU computes this program correctly, so the bug
// is in the plugin's compilation of the folded program.
TEST(PluginQuirks, GatherInConstantProgramGivesWrongValues) {
  std::string program = corpus_file_without_checks("gather_float32_10_10_10_int32_2.mlir");
  ASSERT_FALSE(program.empty());
  LoadedExecutable exe = cpu().compile(program);
  std::vector<Buffer> out = exe.execute(std::vector<const Buffer*>{});
  ASSERT_EQ(out.size(), 1u);
  Array a = out[0].to_host();
  ASSERT_EQ(a.type().to_string(), "tensor<10x10x2xf32>");
  auto v = a.values<float>();
  EXPECT_EQ(v[0], 2.0f);    // [0, 0, 0]: right
  EXPECT_EQ(v[1], 502.0f);  // [0, 0, 1]: should be 4
}

// The minimal form: a gather from a dense literal (not iota, not a parameter) whose result goes
// through a select with a non-splat mask broadcast along the last dimension. The gather here
// takes every element (out = operand = 0..7), so the answer is [0, -1, 2, -1, 4, -1, 6, -1];
// the plugin returns [0, 4, -1, -1, 2, 6, -1, -1] (elements transposed). jaxlib 0.10.2's
// XLA:CPU returns the right answer for the same text, and so does the plugin when the operand
// is `iota` + `reshape` instead of the literal.
TEST(PluginQuirks, GatherOfLiteralThenMaskedSelectIsTransposed) {
  std::string program = R"(module @m {
  func.func public @main() -> tensor<2x2x2xf32> {
    %op = stablehlo.constant dense<[[[0.0, 1.0], [2.0, 3.0]], [[4.0, 5.0], [6.0, 7.0]]]> : tensor<2x2x2xf32>
    %idx = stablehlo.constant dense<[[0], [1]]> : tensor<2x1xi64>
    %g = "stablehlo.gather"(%op, %idx) <{dimension_numbers = #stablehlo.gather<offset_dims = [0, 1], collapsed_slice_dims = [2], start_index_map = [2], index_vector_dim = 1>, slice_sizes = array<i64: 2, 2, 1>}> : (tensor<2x2x2xf32>, tensor<2x1xi64>) -> tensor<2x2x2xf32>
    %m = stablehlo.constant dense<[true, false]> : tensor<2xi1>
    %mb = stablehlo.broadcast_in_dim %m, dims = [2] : (tensor<2xi1>) -> tensor<2x2x2xi1>
    %z = stablehlo.constant dense<-1.0> : tensor<2x2x2xf32>
    %r = stablehlo.select %mb, %g, %z : tensor<2x2x2xi1>, tensor<2x2x2xf32>
    return %r : tensor<2x2x2xf32>
  }
})";
  Array got = cpu().compile(program).execute(std::vector<const Buffer*>{})[0].to_host();
  std::vector<float> right{0, -1, 2, -1, 4, -1, 6, -1}, seen{0, 4, -1, -1, 2, 6, -1, -1};
  EXPECT_NE(got.to_vector<float>(), right);
  EXPECT_EQ(got.to_vector<float>(), seen);

  std::string with_iota = program;
  std::string literal =
      with_iota.substr(with_iota.find("%op = "),
                       with_iota.find('\n', with_iota.find("%op = ")) - with_iota.find("%op = "));
  with_iota.replace(with_iota.find(literal), literal.size(),
                    "%i = stablehlo.iota dim = 0 : tensor<8xf32>\n"
                    "    %op = stablehlo.reshape %i : (tensor<8xf32>) -> tensor<2x2x2xf32>");
  Array ok = cpu().compile(with_iota).execute(std::vector<const Buffer*>{})[0].to_host();
  EXPECT_EQ(ok.to_vector<float>(), right);
}

TEST(PluginQuirks, GatherWithParameterOperandIsRight) {
  std::string program = R"(module @m {
  func.func public @main(%op: tensor<10x10x10xf32>) -> tensor<10x10x2xf32> {
    %idx = stablehlo.constant dense<[[2], [4]]> : tensor<2x1xi64>
    %g = "stablehlo.gather"(%op, %idx) <{dimension_numbers = #stablehlo.gather<offset_dims = [0, 1], collapsed_slice_dims = [2], start_index_map = [2], index_vector_dim = 1>, slice_sizes = array<i64: 10, 10, 1>}> : (tensor<10x10x10xf32>, tensor<2x1xi64>) -> tensor<10x10x2xf32>
    return %g : tensor<10x10x2xf32>
  }
})";
  Array op(DType::f32, {10, 10, 10});
  auto ov = op.values<float>();
  for (std::size_t i = 0; i < ov.size(); ++i) ov[i] = static_cast<float>(i);
  LoadedExecutable exe = cpu().compile(program);
  Buffer in = cpu().buffer_from_host(op);
  Array a = exe.execute({&in})[0].to_host();
  auto v = a.values<float>();
  EXPECT_EQ(v[0], 2.0f);
  EXPECT_EQ(v[1], 4.0f);
  EXPECT_EQ(v[2 * 10 * 2 + 1], 204.0f);  // [2, 0, 1]
}

}  // namespace
}  // namespace hhlo
