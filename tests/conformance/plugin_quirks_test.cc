// Plugin behaviour found by the conformance corpus, each reproduced on its own: the default
// plugin (lammps-jax-pjrt-cpu 0.11.2, PJRT C API 0.115) computes what the runner-up (xla-cpu-pjrt
// 0.0.1, PJRT C API 0.81, kept for the compat tests) gets wrong. A plugin upgrade that changes
// one makes its test fail (then update docs/facts.md and docs/conformance.md).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "corpus_util.h"
#include "hhlo/program/compile.h"
#include "hhlo/runtime/client.h"

namespace hhlo {
namespace detail {

/// The text exactly as written, to the plugin's own reader (PrintedProgram's friend for these
/// tests: nothing else hands the plugin a text our readers did not read).
struct PluginTextProbe {
  static LoadedExecutable compile(const Client& client, const std::string& text) {
    return client.compile(PrintedProgram(text));
  }
};

}  // namespace detail
namespace {

LoadedExecutable compile_unread(const Client& client, const std::string& text) {
  return detail::PluginTextProbe::compile(client, text);
}

using ::testing::HasSubstr;

/// The default CPU plugin (HHLO_PJRT_PLUGIN_CPU or the set-up folder).
const Client& cpu() {
  static const Client client = Client::create("cpu", {{"cpu_device_count", int64_t{1}}});
  return client;
}

/// The runner-up, xla-cpu-pjrt 0.0.1 (PJRT C API 0.81), by its set-up path.
const Client& cpu_0_81() {
  static const Client client = Client::create(
      Plugin::load(std::string(HHLO_THIRD_PARTY_DIR) + "/pjrt/cpu-0.81/xla_cpu_pjrt.so"),
      {{"cpu_device_count", int64_t{1}}});
  return client;
}

std::string corpus_file_without_checks(const std::string& name) {
  std::ifstream in(test::kConformanceDir + "/" + name);
  std::string line, out;
  while (std::getline(in, line))
    if (line.find("@check.") == std::string::npos) out += line + "\n";
  return out;
}

// The corpus's jnp.take along the last axis of a constant operand: out[i, j, k] should be
// operand[i, j, idx[k]] = 100i + 10j + idx[k] with idx = [2, 4] (hand-derived from the corpus
// file's inputs, an iota-like 100i + 10j + k). The default plugin computes it; xla-cpu-pjrt 0.0.1
// returns 502 at [0, 0, 1]. The same gather with the operand as a parameter is right on both,
// and jaxlib 0.10.2's own XLA:CPU computes the program correctly, so the bug is in the 0.81
// plugin's compilation of the folded program.
Array gather_corpus_program_on(const Client& client) {
  std::string program = corpus_file_without_checks("gather_float32_10_10_10_int32_2.mlir");
  EXPECT_FALSE(program.empty());
  std::vector<Buffer> out = compile(client, program).execute(std::vector<const Buffer*>{});
  EXPECT_EQ(out.size(), 1u);
  return out.at(0).to_host();
}

TEST(PluginQuirks, GatherInConstantProgramIsRightOnTheDefaultPlugin) {
  HHLO_SKIP_WITHOUT_CORPUS();
  Array a = gather_corpus_program_on(cpu());
  ASSERT_EQ(a.type().to_string(), "tensor<10x10x2xf32>");
  auto v = a.values<float>();
  const int idx[2] = {2, 4};
  for (int i = 0; i < 10; ++i)
    for (int j = 0; j < 10; ++j)
      for (int k = 0; k < 2; ++k)
        ASSERT_EQ(v[(i * 10 + j) * 2 + k], static_cast<float>(100 * i + 10 * j + idx[k]))
            << "at [" << i << ", " << j << ", " << k << "]";
}

TEST(PluginQuirks, GatherInConstantProgramGivesWrongValuesOn0_81) {
  HHLO_SKIP_WITHOUT_CORPUS();
  Array a = gather_corpus_program_on(cpu_0_81());
  ASSERT_EQ(a.type().to_string(), "tensor<10x10x2xf32>");
  auto v = a.values<float>();
  EXPECT_EQ(v[0], 2.0f);    // [0, 0, 0]: right
  EXPECT_EQ(v[1], 502.0f);  // [0, 0, 1]: should be 4
}

// The minimal form: a gather from a dense literal (not iota, not a parameter) whose result goes
// through a select with a non-splat mask broadcast along the last dimension. The gather here
// takes every element (out = operand = 0..7), so the answer is [0, -1, 2, -1, 4, -1, 6, -1];
// the default plugin computes it, the 0.81 plugin returns [0, 4, -1, -1, 2, 6, -1, -1] (elements
// transposed). jaxlib 0.10.2's XLA:CPU returns the right answer for the same text, and so does
// the 0.81 plugin when the operand is `iota` + `reshape` instead of the literal.
const char* const kGatherThenMaskedSelect = R"(module @m {
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

TEST(PluginQuirks, GatherOfLiteralThenMaskedSelectIsRightOnTheDefaultPlugin) {
  Array got =
      compile(cpu(), kGatherThenMaskedSelect).execute(std::vector<const Buffer*>{})[0].to_host();
  EXPECT_EQ(got.to_vector<float>(), (std::vector<float>{0, -1, 2, -1, 4, -1, 6, -1}));
}

TEST(PluginQuirks, GatherOfLiteralThenMaskedSelectIsTransposedOn0_81) {
  std::string program = kGatherThenMaskedSelect;
  Array got = compile(cpu_0_81(), program).execute(std::vector<const Buffer*>{})[0].to_host();
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
  Array ok = compile(cpu_0_81(), with_iota).execute(std::vector<const Buffer*>{})[0].to_host();
  EXPECT_EQ(ok.to_vector<float>(), right);
}

TEST(PluginQuirks, GatherWithParameterOperandIsRightOnBothPlugins) {
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
  for (const Client* client : {&cpu(), &cpu_0_81()}) {
    LoadedExecutable exe = compile(*client, program);
    Buffer in = client->buffer_from_host(op);
    Array a = exe.execute({&in})[0].to_host();
    auto v = a.values<float>();
    EXPECT_EQ(v[0], 2.0f);
    EXPECT_EQ(v[1], 4.0f);
    EXPECT_EQ(v[2 * 10 * 2 + 1], 204.0f);  // [2, 0, 1]
  }
}

// The hex form of i1 data differs between the plugins' MLIR: 0.81 reads 8 elements a byte
// (least significant bit first), 0.115 one byte per element and refuses the packed form with
// "elements hex data size is invalid for provided type". The corpus is in the packed form (the
// conformance runner rewrites i1 hex literals to lists: rewrite_i1_hex_literals). Elements of
// 0xEE01 packed: F T T T F T T T | T (hand-derived); as bytes 00 01 01 ...: F T T ...
std::string i1_program(const std::string& hex) {
  return R"(module @m {
  func.func public @main() -> tensor<9xi32> {
    %c = stablehlo.constant dense<")" +
         hex + R"("> : tensor<9xi1>
    %r = stablehlo.convert %c : (tensor<9xi1>) -> tensor<9xi32>
    return %r : tensor<9xi32>
  }
})";
}

TEST(PluginQuirks, I1HexIsOneBytePerElementOnTheDefaultPlugin) {
  Array a = compile_unread(cpu(), i1_program("0x000101010001010101"))
                .execute(std::vector<const Buffer*>{})[0]
                .to_host();
  EXPECT_EQ(a.to_vector<int32_t>(), (std::vector<int32_t>{0, 1, 1, 1, 0, 1, 1, 1, 1}));
  try {
    compile_unread(cpu(), i1_program("0xEE01"));
    FAIL() << "the default plugin read packed i1 hex";
  } catch (const PjrtError& e) {
    EXPECT_THAT(e.what(), HasSubstr("elements hex data size is invalid for provided type"));
  }
}

TEST(PluginQuirks, I1HexIsPackedBitsOn0_81) {
  Array a = compile_unread(cpu_0_81(), i1_program("0xEE01"))
                .execute(std::vector<const Buffer*>{})[0]
                .to_host();
  EXPECT_EQ(a.to_vector<int32_t>(), (std::vector<int32_t>{0, 1, 1, 1, 0, 1, 1, 1, 1}));
  EXPECT_THROW(compile_unread(cpu_0_81(), i1_program("0x000101010001010101")), PjrtError);
}

// The one-byte splat 0xFF: packed-bit MLIR (0.81) reads it as all true; the default plugin's MLIR
// keeps the byte, so `convert` to i32 gives 255 for every element, a wrong value from a literal
// the corpus form allows. Another reason the printer and the runner write i1 data as lists.
TEST(PluginQuirks, I1HexSplat0xFFIsTheByte255OnTheDefaultPlugin) {
  std::string program = i1_program("0xFF");
  Array def = compile_unread(cpu(), program).execute(std::vector<const Buffer*>{})[0].to_host();
  EXPECT_EQ(def.to_vector<int32_t>(), std::vector<int32_t>(9, 255));
  Array old =
      compile_unread(cpu_0_81(), program).execute(std::vector<const Buffer*>{})[0].to_host();
  EXPECT_EQ(old.to_vector<int32_t>(), std::vector<int32_t>(9, 1));
  // Through the program stage both plugins see our reading (packed bits: all true) as a list.
  for (const Client& c : {cpu(), cpu_0_81()}) {
    Array ours = compile(c, program).execute(std::vector<const Buffer*>{})[0].to_host();
    EXPECT_EQ(ours.to_vector<int32_t>(), std::vector<int32_t>(9, 1));
  }
}

}  // namespace
}  // namespace hhlo
