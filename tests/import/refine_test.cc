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
#include <sstream>

#include "hhlo/core/array.h"
#include "hhlo/ir/parser.h"
#include "hhlo/ir/printer.h"
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
  LoadedExecutable exe = cpu().compile(text);
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
  EXPECT_THROW(cpu().compile(read_text(kDir / (GetParam() + ".mlir"))), PjrtError);
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
                                           "poly_scan", "poly_indexing", "poly_rbg",
                                           "poly_top_k"),
                         [](const auto& info) { return info.param; });

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

TEST(SymbolicSession, ConstraintViolationIsTheAssertionError) {
  Session session(cpu());
  EXPECT_THROW(session.run(read_text(kDir / "poly_even.mlir"), vectors("poly_even", "bad.in")),
               ShapeAssertionError);
}

// refine_program_text: the one text-to-text path of the CLI and the Session.
TEST(RefineProgramText, RefinedTextIsStaticAndMatchesJax) {
  std::vector<Array> in = vectors("poly_mlp", "s1.in");
  std::optional<std::string> refined =
      refine_program_text(read_text(kDir / "poly_mlp.mlir"), types_of(in), "", "poly_mlp.mlir");
  ASSERT_TRUE(refined.has_value());
  EXPECT_EQ(refined->find('?'), std::string::npos);
  expect_matches(run_text(*refined, in), vectors("poly_mlp", "s1.out"));
  // A static text has nothing left to refine.
  EXPECT_FALSE(refine_program_text(*refined, types_of(in)).has_value());
}

TEST(RefineProgramText, NothingToRefineForBytecodeOrUnparsableText) {
  std::vector<TensorType> types = types_of(vectors("poly_mlp", "s1.in"));
  EXPECT_FALSE(refine_program_text(read_text(kDir / "poly_mlp.mlirbc"), types).has_value());
  EXPECT_FALSE(refine_program_text("func.func @main(%a: tensor<?xf32>) -> ", types).has_value());
  EXPECT_FALSE(
      refine_program_text(read_text(kDir / "poly_mlp.mlir"), types, "no_such_entry").has_value());
}

TEST(RefineProgramText, WrongArgumentCountNamesTheEntryAndItsTypes) {
  std::vector<TensorType> one = {TensorType{DType::f32, {3, 8}}};
  try {
    refine_program_text(read_text(kDir / "poly_mlp.mlir"), one, "", "poly_mlp.mlir");
    FAIL() << "expected hhlo::Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("@main of 'poly_mlp.mlir' takes 4 argument(s) ("),
              std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("1 given"), std::string::npos) << e.what();
  }
}

// Refinement and gradients are asked of the parsed module: bytecode is a ParseError saying to use
// the text, and the Session's compile error of a dynamic bytecode program says the same.
TEST(SymbolicBytecode, ParsingSaysToUseTheTextForm) {
  try {
    parse_module(read_text(kDir / "poly_mlp.mlirbc"), {.source_name = "poly_mlp.mlirbc"});
    FAIL() << "expected hhlo::ParseError";
  } catch (const ParseError& e) {
    EXPECT_EQ(e.line(), 1u);
    EXPECT_EQ(e.column(), 1u);
    EXPECT_EQ(e.found(), "MLIR bytecode");
    EXPECT_NE(std::string(e.what()).find("need the text form"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(is_mlir_bytecode(read_text(kDir / "poly_mlp.mlirbc")));
  EXPECT_FALSE(is_mlir_bytecode(read_text(kDir / "poly_mlp.mlir")));
}

TEST(SymbolicBytecode, SessionCompileErrorSaysToUseTheTextForm) {
  Session session(cpu());
  try {
    session.run(read_text(kDir / "poly_mlp.mlirbc"), vectors("poly_mlp", "s1.in"));
    FAIL() << "expected hhlo::PjrtError";
  } catch (const PjrtError& e) {
    EXPECT_NE(std::string(e.what()).find("needs the text form"), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).find("PJRT error code 3): PJRT_Client_Compile"),
              std::string::npos)
        << "prefix repeated: " << e.what();
  }
}

}  // namespace
}  // namespace hhlo
