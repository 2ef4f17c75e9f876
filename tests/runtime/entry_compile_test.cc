// Entry selection (PrepareOptions::entry) and the platform index of multi-platform jax.exports
// (PrepareOptions::export_platforms), through the program stage (hhlo::compile) and Session.
// Expected values are hand-derived from each program (2 * a, a * a, ...).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "hhlo/ir/ops.h"
#include "hhlo/program/compile.h"
#include "hhlo/session.h"
#include "runtime_util.h"

namespace hhlo {
namespace {

constexpr const char* kMainAndOthers = R"(module @m {
  func.func public @main(%a: tensor<2xf32>) -> tensor<2xf32> {
    %0 = stablehlo.negate %a : tensor<2xf32>
    return %0 : tensor<2xf32>
  }
  func.func public @twice(%a: tensor<2xf32>) -> tensor<2xf32> {
    %0 = stablehlo.add %a, %a : tensor<2xf32>
    return %0 : tensor<2xf32>
  }
  func.func public @square_then_negate(%a: tensor<2xf32>) -> tensor<2xf32> {
    %0 = stablehlo.multiply %a, %a : tensor<2xf32>
    %1 = func.call @main(%0) : (tensor<2xf32>) -> tensor<2xf32>
    return %1 : tensor<2xf32>
  }
}
)";

std::vector<float> run1(const std::string& text, const PrepareOptions& options,
                        std::vector<float> a) {
  LoadedExecutable exe = test::compile(text, {}, options);
  auto out = test::run(exe, {Array::from<float>({static_cast<int64_t>(a.size())}, a)});
  EXPECT_EQ(out.size(), 1u);
  return out.empty() ? std::vector<float>{} : out[0].to_vector<float>();
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(CompileEntry, DefaultRunsMain) {
  EXPECT_EQ(run1(kMainAndOthers, {}, {3, -4}), (std::vector<float>{-3, 4}));
}

TEST(CompileEntry, AnEntryBesideMainRunsThatFunction) {
  PrepareOptions o;
  o.entry = "twice";
  EXPECT_EQ(run1(kMainAndOthers, o, {3, -4}), (std::vector<float>{6, -8}));
}

TEST(CompileEntry, AnEntryCallingTheOldMainStillCallsIt) {
  PrepareOptions o;
  o.entry = "square_then_negate";
  EXPECT_EQ(run1(kMainAndOthers, o, {3, -4}), (std::vector<float>{-9, -16}));
}

TEST(CompileEntry, UnknownEntryNamesThePublicFunctions) {
  PrepareOptions o;
  o.entry = "cube";
  EXPECT_EQ(error_of([&] { test::compile(kMainAndOthers, {}, o); }),
            "the module has no public function @cube (public functions: @main, @twice, "
            "@square_then_negate)");
}

TEST(CompileEntry, NoMainAndOnePublicFunctionRunsIt) {
  EXPECT_EQ(run1(R"(
func.func private @h(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.multiply %a, %a : tensor<2xf32>
  return %0 : tensor<2xf32>
}
func.func public @only(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = func.call @h(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
)",
                 {}, {3, -4}),
            (std::vector<float>{9, 16}));
}

TEST(CompileEntry, NoMainAndSeveralPublicFunctionsListsThem) {
  std::string text = R"(
func.func public @f(%a: tensor<2xf32>) -> tensor<2xf32> {
  return %a : tensor<2xf32>
}
func.func public @g(%a: tensor<2xf32>) -> tensor<2xf32> {
  return %a : tensor<2xf32>
}
)";
  EXPECT_EQ(error_of([&] { test::compile(text); }),
            "the module has no @main and 2 public functions (@f, @g): choose one (--entry NAME; "
            "PrepareOptions::entry)");
}

TEST(CompileEntry, EntryOfABuiltModule) {
  Module m;
  Func& f = m.add_func("main", {{DType::f32, {2}}});
  f.ret({f.arg(0)});
  Func& g = m.add_func("plus_one", {{DType::f32, {2}}});
  g.ret({add(g.arg(0), constant(g, Array::from<float>({2}, {1, 1})))});
  // A built module compiles its @main as it is; another entry is the program stage's choice.
  auto args = std::vector<Array>{Array::from<float>({2}, {3, -4})};
  EXPECT_EQ(test::run(compile(test::cpu(), m), args).at(0).to_vector<float>(),
            (std::vector<float>{3, -4}));
  PreparedProgram p = prepare_program({.module = std::move(m)}, {.entry = "plus_one"});
  EXPECT_EQ(test::run(compile(test::cpu(), p), args).at(0).to_vector<float>(),
            (std::vector<float>{4, -3}));
}

TEST(CompileEntry, AModuleWithoutMainIsRefusedBeforeThePlugin) {
  Module m;
  Func& g = m.add_func("plus_one", {{DType::f32, {2}}});
  g.ret({g.arg(0)});
  EXPECT_NE(error_of([&] { compile(test::cpu(), m); }).find("the module has no @main to compile"),
            std::string::npos);
}

TEST(CompileEntry, SessionCachesPerEntry) {
  Session s(test::cpu());
  PrepareOptions twice{.entry = "twice"};
  auto a = Array::from<float>({2}, {1.5f, 2});
  EXPECT_EQ(s.run(kMainAndOthers, {a}).at(0).to_vector<float>(), (std::vector<float>{-1.5f, -2}));
  EXPECT_EQ(s.run(kMainAndOthers, {a}, {}, twice).at(0).to_vector<float>(),
            (std::vector<float>{3, 4}));
  EXPECT_EQ(s.run(kMainAndOthers, {a}, {}, twice).at(0).to_vector<float>(),
            (std::vector<float>{3, 4}));
  EXPECT_EQ(s.cache_size(), 2u);
}

TEST(CompileEntry, BytecodeNamesAMissingEntryAsTextDoes) {
  std::ifstream in(std::string(HHLO_GENERATED_DIR) + "/top_k_2x5_k3.mlirbc", std::ios::binary);
  ASSERT_TRUE(in) << "generated bytecode missing";
  std::stringstream ss;
  ss << in.rdbuf();
  PrepareOptions o;
  o.entry = "other";
  // Bytecode is read as text is (issue 21): the entry is looked up among its public functions.
  EXPECT_NE(error_of([&] { test::compile(ss.str(), {}, o); }).find("@other"), std::string::npos);
}

std::string read_export(const std::string& name) {
  std::string path = std::string(HHLO_GENERATED_DIR) + "/entry/" + name + ".mlir";
  std::ifstream in(path);
  EXPECT_TRUE(in) << path << " missing (tests/runtime/gen_entry_exports.py)";
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// lax.platform_dependent(x, cpu=x * 2, default=x * 3), exported for ("cuda", "cpu").
TEST(PlatformIndex, TheClientsPlatformIsChosenFromTheExportsPlatforms) {
  PrepareOptions o;
  o.export_platforms = {"cuda", "cpu"};
  LoadedExecutable exe = test::compile(read_export("multiplatform_dependent"), {}, o);
  ASSERT_TRUE(exe.input_types().has_value());
  EXPECT_EQ(*exe.input_types(), (std::vector<TensorType>{{DType::f32, {3}}}));
  auto out = test::run(exe, {Array::from<float>({3}, {1, -2, 0.5f})});
  EXPECT_EQ(out.at(0).to_vector<float>(), (std::vector<float>{2, -4, 1}));
}

TEST(PlatformIndex, APlatformDependentExportNeedsItsPlatforms) {
  EXPECT_NE(error_of([&] {
              test::compile(read_export("multiplatform_dependent"));
            }).find("depends on its _platform_index argument: give the export's platforms"),
            std::string::npos);
  PrepareOptions o;
  o.export_platforms = {"cuda", "rocm"};
  EXPECT_EQ(error_of([&] { test::compile(read_export("multiplatform_dependent"), {}, o); }),
            "the program is a multi-platform jax.export for [cuda, rocm], which does not include "
            "this client's platform 'cpu'");
}

// sin(x) * 2 exported for ("cpu", "cuda"): the index is never read, so none is needed.
TEST(PlatformIndex, AnIndexTheCodeNeverReadsIsFilledIn) {
  LoadedExecutable exe = test::compile(read_export("multiplatform_plain"));
  auto out = test::run(exe, {Array::from<float>({3}, {0, 1, -2})});
  std::vector<float> got = out.at(0).to_vector<float>();
  std::vector<float> want = {0, 2 * std::sin(1.0f), 2 * std::sin(-2.0f)};
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(got[i], want[i], 1e-6) << i;
}

}  // namespace
}  // namespace hhlo
