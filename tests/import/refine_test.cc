// Shape-polymorphic JAX exports (tests/import/gen_symbolic.py, generated at build time into
// HHLO_EXPORTS_DIR/symbolic with JAX's own outputs at three sizes): refined by refine_shapes to
// each size, compiled on the default CPU plugin and checked against JAX; the "2*b" constraint
// fails for an odd size with JAX's message; the Session refines on its own and caches per shape.
#include "hhlo/ir/refine.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "hhlo/core/array.h"
#include "hhlo/ir/parser.h"
#include "hhlo/ir/printer.h"
#include "hhlo/program/compile.h"
#include "hhlo/runtime/client.h"
#include "hhlo/session.h"

namespace hhlo {
namespace {

namespace fs = std::filesystem;

const fs::path kDir = fs::path(HHLO_EXPORTS_DIR) / "symbolic";

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  EXPECT_TRUE(in) << "missing generated file " << p;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// NAME.KIND0.npy, NAME.KIND1.npy, ... until the first missing index (KIND "s1.in", "bad.in").
std::vector<Array> vectors(const std::string& name, const std::string& kind) {
  std::vector<Array> out;
  for (int k = 0;; ++k) {
    fs::path p = kDir / fmt::format("{}.{}{}.npy", name, kind, k);
    if (!fs::exists(p)) return out;
    out.push_back(read_npy(p.string()));
  }
}

std::vector<TensorType> types_of(const std::vector<Array>& arrays) {
  std::vector<TensorType> out;
  for (const Array& a : arrays) out.push_back(a.type());
  return out;
}

void expect_matches(const std::vector<Array>& got, const std::vector<Array>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t k = 0; k < got.size(); ++k) {
    ASSERT_EQ(got[k].type(), want[k].type()) << "output " << k;
    for (int64_t i = 0; i < want[k].num_elements(); ++i) {
      double g = got[k].element_as_double(i), w = want[k].element_as_double(i);
      ASSERT_LE(std::abs(g - w), 2e-5 * (1 + std::abs(w)))
          << "output " << k << " element " << i << ": got " << g << ", JAX " << w;
    }
  }
}

const Client& cpu() {
  static Client client = Client::create("cpu");
  return client;
}

std::vector<Array> run_text(const std::string& text, const std::vector<Array>& inputs) {
  LoadedExecutable exe = compile(cpu(), text);
  std::vector<Buffer> buffers;
  for (const Array& a : inputs) buffers.push_back(cpu().buffer_from_host(a));
  std::vector<const Buffer*> args;
  for (const Buffer& b : buffers) args.push_back(&b);
  std::vector<Array> out;
  for (const Buffer& b : exe.execute(args)) out.push_back(b.to_host());
  return out;
}

class Symbolic : public ::testing::TestWithParam<std::string> {};

TEST_P(Symbolic, AsExportedThePluginRejectsIt) {
  // The reason refinement exists: the plugin cannot compile the dynamic program.
  EXPECT_THROW(compile(cpu(), read_text(kDir / (GetParam() + ".mlir"))), PjrtError);
}

TEST_P(Symbolic, RefinedAtThreeSizesMatchesJax) {
  Module parsed =
      parse_module(read_text(kDir / (GetParam() + ".mlir")), {.source_name = GetParam() + ".mlir"});
  ASSERT_TRUE(has_dynamic_shapes(*parsed.find("main")));
  std::string printed = to_mlir(parsed);
  for (int k = 0; k < 3; ++k) {
    SCOPED_TRACE(fmt::format("size {}", k));
    std::vector<Array> in = vectors(GetParam(), fmt::format("s{}.in", k)),
                       want = vectors(GetParam(), fmt::format("s{}.out", k));
    ASSERT_FALSE(in.empty());
    ASSERT_FALSE(want.empty());
    Module m = parse_module(printed);
    refine_shapes(m, types_of(in));
    EXPECT_FALSE(has_dynamic_shapes(*m.find("main")));
    ASSERT_EQ(m.find("main")->result_types().size(), want.size());
    for (size_t j = 0; j < want.size(); ++j)
      EXPECT_EQ(m.find("main")->result_types()[j], want[j].type());
    expect_matches(run_text(to_mlir(m), in), want);
  }
}

INSTANTIATE_TEST_SUITE_P(Jax, Symbolic,
                         ::testing::Values("poly_mlp", "poly_cnn", "poly_transformer", "poly_even",
                                           "poly_scan", "poly_indexing", "poly_rbg", "poly_top_k",
                                           "poly_rnn"),
                         [](const auto& info) { return info.param; });

/// Op name -> count over `b` and its regions.
void count_ops(const Block& b, std::map<std::string, int>& out) {
  for (const auto& op : b.ops()) {
    ++out[op->name()];
    for (const auto& r : op->regions()) count_ops(*r, out);
  }
}

TEST(SymbolicRnn, TheScanStepsRealDynamicSliceBecomesDynamicSlice) {
  // Issue 21: each step of the GRU's scan reads xs[i] as real_dynamic_slice(xs, start,
  // add(start, sizes), 1) with sizes (1, b, 8); refinement stopped there ("still has a dynamic
  // result type (tensor<1x?x8xf32>)"). RefinedAtThreeSizesMatchesJax runs it against JAX.
  std::string text = read_text(kDir / "poly_rnn.mlir");
  ASSERT_NE(text.find("stablehlo.real_dynamic_slice"), std::string::npos);
  ASSERT_NE(text.find("-> tensor<1x?x8xf32>"), std::string::npos);
  Module m = parse_module(text);
  std::vector<TensorType> types = types_of(vectors("poly_rnn", "s1.in"));
  refine_shapes(m, types);
  std::map<std::string, int> ops;
  count_ops(m.find("main")->body(), ops);
  EXPECT_EQ(ops.count("stablehlo.real_dynamic_slice"), 0u);
  EXPECT_EQ(ops["stablehlo.dynamic_slice"], 1);
}

TEST(SymbolicRnn, StridedSizedSliceMatchesXlasStaticSlice) {
  // The strided form (no JAX lowering emits it): dynamic_slice, then a static strided slice;
  // XLA's values for start [1, 0] against its static slice [1:4:2, 0:b:3] of the same input.
  constexpr std::string_view text = R"mlir(
module {
  func.func @main(%x: tensor<5x?xf32>, %s: tensor<2xi32>) -> tensor<?x?xf32> {
    %b = stablehlo.get_dimension_size %x, dim = 1 : (tensor<5x?xf32>) -> tensor<i32>
    %c3 = stablehlo.constant dense<3> : tensor<1xi32>
    %bv = stablehlo.reshape %b : (tensor<i32>) -> tensor<1xi32>
    %sizes = stablehlo.concatenate %c3, %bv, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
    %limit = stablehlo.add %sizes, %s : tensor<2xi32>
    %strides = stablehlo.constant dense<[2, 3]> : tensor<2xi32>
    %r = stablehlo.real_dynamic_slice %x, %s, %limit, %strides : (tensor<5x?xf32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>) -> tensor<?x?xf32>
    return %r : tensor<?x?xf32>
  }
})mlir";
  constexpr std::string_view static_slice = R"mlir(
module {
  func.func @main(%x: tensor<5x7xf32>) -> tensor<2x3xf32> {
    %r = stablehlo.slice %x [1:4:2, 0:7:3] : (tensor<5x7xf32>) -> tensor<2x3xf32>
    return %r : tensor<2x3xf32>
  }
})mlir";
  std::vector<float> values(35);
  for (std::size_t k = 0; k < values.size(); ++k) values[k] = 0.5f * static_cast<float>(k);
  Array x = Array::from<float>({5, 7}, values);
  Array start = Array::from<int32_t>({2}, {1, 0});
  Module m = parse_module(text);
  refine_shapes(m, std::vector{x.type(), start.type()});
  EXPECT_EQ(m.find("main")->result_types().at(0), (TensorType{DType::f32, {2, 3}}));
  expect_matches(run_text(to_mlir(m), {x, start}), run_text(std::string(static_slice), {x}));
}

TEST(SymbolicConstraint, OddSizeFailsWithJaxMessage) {
  Module m = parse_module(read_text(kDir / "poly_even.mlir"));
  std::vector<Array> bad = vectors("poly_even", "bad.in");
  ASSERT_EQ(bad.size(), 1u);
  ASSERT_EQ(bad[0].dims()[0], 7);
  std::string jax_message = read_text(kDir / "poly_even.error.txt");
  ASSERT_NE(jax_message.find("remainder 1"), std::string::npos) << jax_message;
  try {
    refine_shapes(m, types_of(bad));
    FAIL() << "an odd batch passed the 2*b constraint";
  } catch (const ShapeAssertionError& e) {
    EXPECT_EQ(std::string(e.what()), jax_message);
  }
}

TEST(SymbolicSession, RefinesPerShapeAndCaches) {
  Session session(cpu());
  std::string text = read_text(kDir / "poly_mlp.mlir");
  for (int pass = 0; pass < 2; ++pass) {
    for (int k = 0; k < 3; ++k) {
      std::vector<Array> in = vectors("poly_mlp", fmt::format("s{}.in", k)),
                         want = vectors("poly_mlp", fmt::format("s{}.out", k));
      expect_matches(session.run(text, in), want);
    }
  }
  EXPECT_EQ(session.cache_size(), 3u);  // one executable per concrete batch size
}

TEST(SymbolicMultiPlatform, ThePlatformIndexIsBoundBeforeRefinementAndMatchesJax) {
  // jax.export(platforms=("cpu", "cuda")) of a solve over a symbolic batch: @main takes
  // _platform_index first; its CUDA branch calls cuSOLVER. Refinement counted the index as an
  // input ("takes 3 argument(s) ..., 2 given"); JAX binds it first, and so do we now.
  Session session(cpu());
  std::string text = read_text(kDir / "poly_multiplatform_solve.mlir");
  ASSERT_NE(text.find("_platform_index"), std::string::npos);
  ASSERT_NE(text.find("cusolver_getrf_ffi"), std::string::npos);
  PrepareOptions options;
  options.export_platforms = {"cpu", "cuda"};
  for (int k = 0; k < 3; ++k) {
    SCOPED_TRACE(fmt::format("size {}", k));
    std::vector<Array> in = vectors("poly_multiplatform_solve", fmt::format("s{}.in", k)),
                       want = vectors("poly_multiplatform_solve", fmt::format("s{}.out", k));
    ASSERT_EQ(in.size(), 2u);
    expect_matches(session.run(text, in, {}, options), want);
  }
  // Without the platforms the code's dependence on the index is named, not miscounted.
  try {
    session.run(text, vectors("poly_multiplatform_solve", "s0.in"));
    FAIL() << "ran without the export's platforms";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("give the export's platforms in order"), std::string::npos)
        << e.what();
  }
}

TEST(SymbolicSession, ConstraintViolationIsTheAssertionError) {
  Session session(cpu());
  EXPECT_THROW(session.run(read_text(kDir / "poly_even.mlir"), vectors("poly_even", "bad.in")),
               ShapeAssertionError);
}

// prepare_program (the program stage): the one path of the CLI and the Session.
PreparedProgram prepare_file(const fs::path& file, std::vector<TensorType> types,
                             std::string entry = "") {
  return prepare_program(read_program(read_text(file), {.source_name = file.filename().string()}),
                         {.entry = std::move(entry), .arg_types = std::move(types)});
}

TEST(PrepareProgram, RefinedModuleIsStaticAndMatchesJax) {
  std::vector<Array> in = vectors("poly_mlp", "s1.in");
  PreparedProgram p = prepare_file(kDir / "poly_mlp.mlir", types_of(in));
  EXPECT_TRUE(p.refined);
  std::string refined = to_mlir(p.module);
  EXPECT_EQ(refined.find('?'), std::string::npos);
  expect_matches(run_text(refined, in), vectors("poly_mlp", "s1.out"));
  // A static program has nothing left to refine.
  EXPECT_FALSE(prepare_program(read_program(refined), {.arg_types = types_of(in)}).refined);
}

TEST(PrepareProgram, BytecodeIsPreparedAsItsTextUnreadableTextIsAParseError) {
  std::vector<TensorType> types = types_of(vectors("poly_mlp", "s1.in"));
  PreparedProgram from_bytecode = prepare_file(kDir / "poly_mlp.mlirbc", types);
  PreparedProgram from_text = prepare_file(kDir / "poly_mlp.mlir", types);
  EXPECT_EQ(to_mlir(from_bytecode.module), to_mlir(from_text.module));
  EXPECT_THROW(read_program("func.func @main(%a: tensor<?xf32>) -> "), ParseError);
  try {
    prepare_file(kDir / "poly_mlp.mlir", types, "no_such_entry");
    FAIL() << "expected hhlo::Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no_such_entry"), std::string::npos) << e.what();
  }
}

TEST(PrepareProgram, WrongArgumentCountNamesTheEntryAndItsTypes) {
  std::vector<TensorType> one = {TensorType{DType::f32, {3, 8}}};
  try {
    prepare_file(kDir / "poly_mlp.mlir", one);
    FAIL() << "expected hhlo::Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("@main of 'poly_mlp.mlir' takes 4 argument(s) ("),
              std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("1 given"), std::string::npos) << e.what();
  }
}

// One way in (issue 21): bytecode reads into the module its text gives, so refinement, the
// Session and everything else that reads the module work on it as on the text.
TEST(SymbolicBytecode, ParsesIntoTheModuleItsTextGives) {
  EXPECT_TRUE(is_mlir_bytecode(read_text(kDir / "poly_mlp.mlirbc")));
  EXPECT_FALSE(is_mlir_bytecode(read_text(kDir / "poly_mlp.mlir")));
  for (const char* name : {"poly_mlp", "poly_multiplatform_solve", "poly_scan"}) {
    SCOPED_TRACE(name);
    Module from_bytecode = parse_module(read_text(kDir / (std::string(name) + ".mlirbc")),
                                        {.source_name = std::string(name) + ".mlirbc"});
    Module from_text = parse_module(read_text(kDir / (std::string(name) + ".mlir")));
    EXPECT_EQ(to_mlir(from_bytecode), to_mlir(from_text));
  }
}

TEST(SymbolicBytecode, TheSessionRefinesBytecodeAndMatchesJax) {
  Session session(cpu());
  std::string bytes = read_text(kDir / "poly_mlp.mlirbc");
  for (int k = 0; k < 3; ++k) {
    SCOPED_TRACE(fmt::format("size {}", k));
    expect_matches(session.run(bytes, vectors("poly_mlp", fmt::format("s{}.in", k))),
                   vectors("poly_mlp", fmt::format("s{}.out", k)));
  }
  // Symbolic and multi-platform: the platform index bound before refinement, as for the text.
  PrepareOptions options;
  options.export_platforms = {"cpu", "cuda"};
  expect_matches(session.run(read_text(kDir / "poly_multiplatform_solve.mlirbc"),
                             vectors("poly_multiplatform_solve", "s1.in"), {}, options),
                 vectors("poly_multiplatform_solve", "s1.out"));
}

TEST(SymbolicBytecode, MalformedBytecodeIsAParseErrorNotACrash) {
  // A flipped byte of a bytecode program aborted inside MLIR's reader in the plugin (issue 22);
  // ours reads it and refuses it, and nothing reaches the plugin.
  std::string bytes = read_text(kDir / "poly_mlp.mlirbc");
  int refused = 0;
  for (std::size_t at = 8; at < bytes.size(); at += 1 + bytes.size() / 97) {
    std::string bad = bytes;
    bad[at] = static_cast<char>(bad[at] ^ 0x5a);
    try {
      compile(cpu(), bad);
    } catch (const ParseError& e) {
      ++refused;
      EXPECT_EQ(e.line(), 0u) << e.what();
    } catch (const Error&) {
      ++refused;  // read, then refused by the verifier or the plugin: an error, never a crash
    }
  }
  EXPECT_GT(refused, 0);
}

}  // namespace
}  // namespace hhlo
