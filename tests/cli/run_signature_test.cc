// `hhlo run` checks every input against the compiled program's parameter types, whatever the
// text around @main looks like (argument attributes, locations, calls, comments).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "cli_util.h"
#include "hhlo/core/array.h"

namespace hhlo::test {
namespace {

using ::testing::HasSubstr;

/// Writes `program` and two inputs, b.npy (i32) and a.npy (f32), into a fresh folder.
struct Fixture {
  std::string dir, program, a, b;
  Fixture(const std::string& name, const std::string& text) : dir(temp_dir(name)) {
    program = dir + "/p.mlir";
    a = dir + "/a.npy";
    b = dir + "/b.npy";
    write_text(program, text);
    write_npy(a, Array::from<float>({2}, {1.5f, 2}));
    write_npy(b, Array::from<int32_t>({2}, {1, 2}));
  }
};

// Each program takes (f32[2], f32[2]) and returns their sum.
constexpr const char* kSharded = R"(module @m {
  func.func public @main(%a: tensor<2xf32> {mhlo.sharding = "{devices=[1]<=[1]}"}, %b: tensor<2xf32>) -> tensor<2xf32> {
    %0 = stablehlo.add %a, %b : tensor<2xf32>
    return %0 : tensor<2xf32>
  }
}
)";
constexpr const char* kLoc = R"(module @m {
  func.func public @main(%a: tensor<2xf32> loc("a(b"), %b: tensor<2xf32>) -> tensor<2xf32> {
    %0 = stablehlo.add %a, %b : tensor<2xf32>
    return %0 : tensor<2xf32>
  }
}
)";
constexpr const char* kCallFirst = R"(module @m {
  func.func private @twice(%a: tensor<2xf32>, %b: tensor<2xf32>) -> tensor<2xf32> {
    %0 = func.call @main(%a, %b) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    return %0 : tensor<2xf32>
  }
  func.func public @main(%a: tensor<2xf32>, %b: tensor<2xf32>) -> tensor<2xf32> {
    %0 = stablehlo.add %a, %b : tensor<2xf32>
    return %0 : tensor<2xf32>
  }
}
)";
constexpr const char* kComment = R"(// @main(%arg0: tensor<5xi64>)
module @m {
  func.func public @main(%a: tensor<2xf32>, %b: tensor<2xf32>) -> tensor<2xf32> {
    %0 = stablehlo.add %a, %b : tensor<2xf32>
    return %0 : tensor<2xf32>
  }
}
)";

class RunSignature : public ::testing::TestWithParam<const char*> {};

TEST_P(RunSignature, WrongDtypeIsRefusedAndRightInputsRun) {
  std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
  std::replace(name.begin(), name.end(), '/', '-');
  Fixture f("run-signature-" + name, GetParam());
  ProcessResult wrong = run_hhlo({"run", f.program, "-i", f.b, "-i", f.a});
  EXPECT_EQ(wrong.signal, 0) << wrong.output;
  EXPECT_EQ(wrong.exit_code, 1) << wrong.output;
  EXPECT_THAT(wrong.output, HasSubstr("input 0 ('" + f.b + "') has dtype i32"));
  ProcessResult right = run_hhlo({"run", f.program, "-i", f.a, "-i", f.a});
  EXPECT_EQ(right.exit_code, 0) << right.output;
  EXPECT_THAT(right.output, HasSubstr("out0: tensor<2xf32> [3, 4]"));
}

INSTANTIATE_TEST_SUITE_P(TextAroundMain, RunSignature,
                         ::testing::Values(kSharded, kLoc, kCallFirst, kComment));

}  // namespace
}  // namespace hhlo::test

namespace hhlo::test {
namespace {

using ::testing::HasSubstr;

// The plugin names only the first unregistered custom-call target; `hhlo run` names them all,
// and not a target the plugin resolves itself (`Sharding`).
TEST(RunCustomCalls, EveryUnregisteredTargetIsNamed) {
  std::string dir = temp_dir("run-unregistered-targets");
  write_text(dir + "/p.mlir", R"(module @m {
  func.func public @main(%a: tensor<2xf32>) -> tensor<2xf32> {
    %0 = stablehlo.custom_call @no_such_one(%a) {api_version = 4 : i32} : (tensor<2xf32>) -> tensor<2xf32>
    %1 = stablehlo.custom_call @no_such_two(%0) {api_version = 4 : i32} : (tensor<2xf32>) -> tensor<2xf32>
    %2 = stablehlo.custom_call @Sharding(%1) {api_version = 1 : i32, mhlo.sharding = "{replicated}"} : (tensor<2xf32>) -> tensor<2xf32>
    return %2 : tensor<2xf32>
  }
}
)");
  write_npy(dir + "/a.npy", Array::from<float>({2}, {1, 2}));
  ProcessResult r = run_hhlo({"run", dir + "/p.mlir", "-i", dir + "/a.npy"});
  EXPECT_EQ(r.signal, 0) << r.output;
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("2 custom-call targets of the program are not registered with "
                                  "the plugin: no_such_one, no_such_two"));
  EXPECT_THAT(r.output, ::testing::Not(HasSubstr("Sharding,")));
}

}  // namespace
}  // namespace hhlo::test

namespace hhlo::test {
namespace {

using ::testing::HasSubstr;

constexpr const char* kTwoPublic = R"(module @m {
  func.func public @twice(%a: tensor<2xf32>) -> tensor<2xf32> {
    %0 = stablehlo.add %a, %a : tensor<2xf32>
    return %0 : tensor<2xf32>
  }
  func.func public @square(%a: tensor<2xf32>) -> tensor<2xf32> {
    %0 = stablehlo.multiply %a, %a : tensor<2xf32>
    return %0 : tensor<2xf32>
  }
}
)";

struct EntryFixture {
  std::string dir, program, a;
  EntryFixture(const std::string& name, const std::string& text) : dir(temp_dir(name)) {
    program = dir + "/p.mlir";
    a = dir + "/a.npy";
    write_text(program, text);
    write_npy(a, Array::from<float>({2}, {3, -4}));
  }
};

TEST(RunEntry, TheOnlyPublicFunctionRunsWhenThereIsNoMain) {
  EntryFixture f("run-entry-single", R"(module @m {
  func.func private @helper(%a: tensor<2xf32>) -> tensor<2xf32> {
    %0 = stablehlo.negate %a : tensor<2xf32>
    return %0 : tensor<2xf32>
  }
  func.func public @entry_2(%a: tensor<2xf32>) -> tensor<2xf32> {
    %0 = func.call @helper(%a) : (tensor<2xf32>) -> tensor<2xf32>
    %1 = stablehlo.add %0, %a : tensor<2xf32>
    %2 = stablehlo.add %1, %a : tensor<2xf32>
    return %2 : tensor<2xf32>
  }
}
)");
  ProcessResult r = run_hhlo({"run", f.program, "-i", f.a});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("out0: tensor<2xf32> [3, -4]"));  // -a + a + a
}

TEST(RunEntry, SeveralPublicFunctionsAndNoMainListsThem) {
  EntryFixture f("run-entry-several", kTwoPublic);
  ProcessResult r = run_hhlo({"run", f.program, "-i", f.a});
  EXPECT_EQ(r.signal, 0) << r.output;
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("has no @main and 2 public functions (@twice, @square)"));
  EXPECT_THAT(r.output, HasSubstr("--entry NAME"));
}

TEST(RunEntry, EntryChoosesTheFunction) {
  EntryFixture f("run-entry-chosen", kTwoPublic);
  ProcessResult sq = run_hhlo({"run", f.program, "--entry", "square", "-i", f.a});
  EXPECT_EQ(sq.exit_code, 0) << sq.output;
  EXPECT_THAT(sq.output, HasSubstr("out0: tensor<2xf32> [9, 16]"));
  ProcessResult tw = run_hhlo({"run", f.program, "--entry", "twice", "-i", f.a});
  EXPECT_EQ(tw.exit_code, 0) << tw.output;
  EXPECT_THAT(tw.output, HasSubstr("out0: tensor<2xf32> [6, -8]"));
}

TEST(RunEntry, UnknownEntryNamesThePublicFunctions) {
  EntryFixture f("run-entry-unknown", kTwoPublic);
  ProcessResult r = run_hhlo({"run", f.program, "--entry", "cube", "-i", f.a});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output,
              HasSubstr("has no public function @cube (public functions: @twice, @square)"));
}

TEST(RunEntry, AnotherEntryBesideMainRunsThatFunction) {
  EntryFixture f("run-entry-beside-main", R"(module @m {
  func.func public @main(%a: tensor<2xf32>) -> tensor<2xf32> {
    return %a : tensor<2xf32>
  }
  func.func public @other(%a: tensor<2xf32>) -> tensor<2xf32> {
    %0 = stablehlo.multiply %a, %a : tensor<2xf32>
    %1 = func.call @main(%0) : (tensor<2xf32>) -> tensor<2xf32>
    return %1 : tensor<2xf32>
  }
}
)");
  ProcessResult r = run_hhlo({"run", f.program, "--entry", "other", "-i", f.a});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("out0: tensor<2xf32> [9, 16]"));
  ProcessResult m = run_hhlo({"run", f.program, "--entry", "main", "-i", f.a});
  EXPECT_EQ(m.exit_code, 0) << m.output;
  EXPECT_THAT(m.output, HasSubstr("out0: tensor<2xf32> [3, -4]"));
}

std::string generated_export(const std::string& name) {
  return std::string(HHLO_GENERATED_DIR) + "/entry/" + name + ".mlir";
}

// {"total": sum(x), "largest": max(x)} exported by JAX: results named by jax.result_info.
TEST(RunOutputs, NamedByJaxResultInfo) {
  std::string dir = temp_dir("run-result-names");
  std::string x = dir + "/x.npy";
  write_npy(x, Array::from<float>({3}, {1, 5, -2}));
  ProcessResult r =
      run_hhlo({"run", generated_export("named_results"), "-i", x, "-o", dir + "/out"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("out0 (largest): tensor<f32> [5]"));
  EXPECT_THAT(r.output, HasSubstr("out1 (total): tensor<f32> [4]"));
  EXPECT_EQ(read_npy(dir + "/out/largest.npy").to_vector<float>(), (std::vector<float>{5}));
  EXPECT_EQ(read_npy(dir + "/out/total.npy").to_vector<float>(), (std::vector<float>{4}));
}

TEST(RunOutputs, UnnamedResultsKeepTheDefaultNames) {
  EntryFixture f("run-result-default", kTwoPublic);
  ProcessResult r = run_hhlo({"run", f.program, "--entry", "twice", "-i", f.a, "-o", f.dir});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(read_npy(f.dir + "/out0.npy").to_vector<float>(), (std::vector<float>{6, -8}));
}

// lax.platform_dependent(x, cpu=x * 2, default=x * 3) exported for ("cuda", "cpu").
TEST(RunPlatformIndex, FilledInFromExportPlatforms) {
  std::string dir = temp_dir("run-platform-index");
  std::string x = dir + "/x.npy";
  write_npy(x, Array::from<float>({3}, {1, -2, 0.5f}));
  ProcessResult r = run_hhlo({"run", generated_export("multiplatform_dependent"), "-i", x,
                              "--export-platforms", "cuda,cpu"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("out0: tensor<3xf32> [2, -4, 1]"));
  ProcessResult missing = run_hhlo({"run", generated_export("multiplatform_dependent"), "-i", x});
  EXPECT_EQ(missing.exit_code, 1) << missing.output;
  EXPECT_THAT(missing.output, HasSubstr("--export-platforms"));
}

TEST(Check, ReportsTheEntryAndTheOps) {
  ProcessResult r = run_hhlo({"check", generated_export("named_results")});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("named_results.mlir: ok"));
  EXPECT_THAT(r.output,
              HasSubstr("entry @main(tensor<3xf32>) -> (tensor<f32> \"result['largest']\", "
                        "tensor<f32> \"result['total']\")"));
  EXPECT_THAT(r.output, HasSubstr("stablehlo.reduce"));
  EntryFixture f("check-two", kTwoPublic);
  ProcessResult two = run_hhlo({"check", f.program, "--entry", "square"});
  ASSERT_EQ(two.exit_code, 0) << two.output;
  EXPECT_THAT(two.output, HasSubstr("entry @square(tensor<2xf32>) -> (tensor<2xf32>)"));
  EXPECT_THAT(two.output, HasSubstr("      1  stablehlo.multiply"));
  ProcessResult none = run_hhlo({"check", f.program});
  EXPECT_EQ(none.exit_code, 1) << none.output;
  EXPECT_THAT(none.output, HasSubstr("has no @main and 2 public functions"));
}

TEST(Check, ErrorsCarryTheLine) {
  EntryFixture bad_shape("check-bad-shape", R"(module @m {
  func.func public @main(%a: tensor<2xf32>) -> tensor<3xf32> {
    %0 = stablehlo.add %a, %a : (tensor<2xf32>, tensor<2xf32>) -> tensor<3xf32>
    return %0 : tensor<3xf32>
  }
}
)");
  ProcessResult r = run_hhlo({"check", bad_shape.program});
  EXPECT_EQ(r.signal, 0) << r.output;
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr(bad_shape.program + ":3:"));
  EntryFixture bad_syntax("check-bad-syntax",
                          "module @m {\n  func.func public @main(%a: tensor<2xf32>\n");
  ProcessResult s = run_hhlo({"check", bad_syntax.program});
  EXPECT_EQ(s.exit_code, 1) << s.output;
  EXPECT_THAT(s.output, HasSubstr(bad_syntax.program + ":"));
  ProcessResult missing = run_hhlo({"check", bad_syntax.dir + "/nope.mlir"});
  EXPECT_EQ(missing.exit_code, 1) << missing.output;
  EXPECT_THAT(missing.output, HasSubstr("does not exist"));
}

}  // namespace
}  // namespace hhlo::test
