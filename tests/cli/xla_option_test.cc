// `hhlo run --xla-option NAME=VALUE`: XLA compile options from the command line, over the
// default IEEE max/min (xla_cpu_enable_fast_min_max=false).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>

#include "cli_util.h"
#include "hhlo/core/array.h"

namespace hhlo::test {
namespace {

using ::testing::HasSubstr;

constexpr const char* kMaximum =
    R"(func.func @main(%a: tensor<f32>, %b: tensor<f32>) -> tensor<f32> {
  %0 = stablehlo.maximum %a, %b : tensor<f32>
  return %0 : tensor<f32>
}
)";

/// A folder with max.mlir, five.npy = 5 and nan.npy = NaN (f32 scalars).
struct MaxFixture {
  std::string dir, program, five, nan;
  explicit MaxFixture(const std::string& name) : dir(temp_dir(name)) {
    program = dir + "/max.mlir";
    five = dir + "/five.npy";
    nan = dir + "/nan.npy";
    write_text(program, kMaximum);
    write_npy(five, Array::scalar<float>(5));
    write_npy(nan, Array::scalar<float>(std::numeric_limits<float>::quiet_NaN()));
  }
};

TEST(CliXlaOption, MaximumPropagatesNaNByDefault) {
  MaxFixture f("xla_default");
  ProcessResult r = run_hhlo({"run", f.program, "-i", f.five, "-i", f.nan});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("out0: tensor<f32> [nan]"));
}

TEST(CliXlaOption, FastMinMaxTurnedBackOnDropsNaN) {
  MaxFixture f("xla_fast");
  // Before the program too: one NAME=VALUE per flag, the program is not taken as a value.
  ProcessResult r = run_hhlo({"run", "--xla-option", "xla_cpu_enable_fast_min_max=true", f.program,
                              "-i", f.five, "-i", f.nan});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("out0: tensor<f32> [5]"));
  ProcessResult off = run_hhlo({"run", f.program, "-i", f.five, "-i", f.nan, "--xla-option",
                                "xla_cpu_enable_fast_min_max=false"});
  ASSERT_EQ(off.exit_code, 0) << off.output;
  EXPECT_THAT(off.output, HasSubstr("out0: tensor<f32> [nan]"));
}

TEST(CliXlaOption, MalformedOptionIsACleanError) {
  MaxFixture f("xla_bad");
  ProcessResult r =
      run_hhlo({"run", f.program, "-i", f.five, "-i", f.nan, "--xla-option", "no_value"});
  EXPECT_EQ(r.signal, 0) << r.output;
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("hhlo: error: --xla-option 'no_value' is not NAME=VALUE"));
}

}  // namespace
}  // namespace hhlo::test
