// `--unroll-loops K` and the tuner's unrolling candidate (issue 26): a counted while loop
// unrolled gives the values of the loop as written (here hand-derived: exact in f32), `hhlo tune`
// measures it, and `hhlo run` follows a remembered choice of it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli_util.h"
#include "hhlo/core/array.h"
#include "hhlo/program/load.h"
#include "hhlo/program/tune.h"
#include "hhlo/runtime/client.h"

namespace hhlo::test {
namespace {

using ::testing::HasSubstr;

// x <- 3x - 2 for 10 iterations of an i64 counter running 0..9, the bound and the step captured
// from @main as JAX's fori_loop captures them: x_10 = 3^10 (x - 1) + 1.
const char* kLoop = R"(func.func public @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %start = stablehlo.constant dense<0> : tensor<i64>
  %bound = stablehlo.constant dense<10> : tensor<i64>
  %step = stablehlo.constant dense<1> : tensor<i64>
  %three = stablehlo.constant dense<3.0> : tensor<4xf32>
  %two = stablehlo.constant dense<2.0> : tensor<4xf32>
  %r:2 = stablehlo.while(%k = %start, %v = %x) : tensor<i64>, tensor<4xf32>
  cond {
    %p = stablehlo.compare LT, %k, %bound, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %a = stablehlo.multiply %v, %three : tensor<4xf32>
    %b = stablehlo.subtract %a, %two : tensor<4xf32>
    %k1 = stablehlo.add %step, %k : tensor<i64>
    stablehlo.return %k1, %b : tensor<i64>, tensor<4xf32>
  }
  return %r#1 : tensor<4xf32>
}
)";

struct Files {
  std::string dir;
  std::vector<std::string> env;
};

Files loop_files(const std::string& name) {
  Files f{temp_dir(name), {}};
  f.env = {"HHLO_COMPILE_CACHE=" + f.dir + "/cache"};
  write_text(f.dir + "/p.mlir", kLoop);
  Array x(DType::f32, {4});
  float* p = static_cast<float*>(x.data());
  p[0] = 1;
  p[1] = 2;
  p[2] = 0;
  p[3] = 1.5;
  write_npy(f.dir + "/x.npy", x);
  return f;
}

/// 3^10 (x - 1) + 1 for the inputs above: exact in f32.
const std::vector<float> kExpected = {1, 59050, -59048, 29525.5};

TEST(LoopUnroll, UnrolledLoopsGiveTheLoopsValues) {
  Files f = loop_files("unroll_values");
  for (const char* k : {"2", "4", "10"}) {
    SCOPED_TRACE(k);
    std::string out = f.dir + "/out" + k;
    ProcessResult r =
        run_hhlo({"run", f.dir + "/p.mlir", "-i", f.dir + "/x.npy", "-o", out, "--unroll-loops", k},
                 {.env = f.env});
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(read_npy(out + "/out0.npy").to_vector<float>(), kExpected);
    // `hhlo run` says what it rewrote, as `hhlo bench` does.
    EXPECT_THAT(r.output, HasSubstr(std::string("loops: 1 unrolled by up to ") + k + ", 0 kept\n"));
  }
  // Again from the compile cache's record (the program is not read): the same line, kept there.
  ProcessResult again = run_hhlo({"run", f.dir + "/p.mlir", "-i", f.dir + "/x.npy", "-o",
                                  f.dir + "/again", "--unroll-loops", "4"},
                                 {.env = f.env});
  ASSERT_EQ(again.exit_code, 0) << again.output;
  EXPECT_THAT(again.output, HasSubstr("loops: 1 unrolled by up to 4, 0 kept\n"));
  EXPECT_EQ(read_npy(f.dir + "/again/out0.npy").to_vector<float>(), kExpected);
  ProcessResult r = run_hhlo(
      {"bench", f.dir + "/p.mlir", "-i", f.dir + "/x.npy", "-n", "3", "--unroll-loops", "4"},
      {.env = f.env});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("loops: 1 unrolled by up to 4, 0 kept"));
  r = run_hhlo({"run", f.dir + "/p.mlir", "--unroll-loops", "1"});
  EXPECT_NE(r.exit_code, 0) << r.output;  // a factor below 2 is refused
}

// `hhlo tune` measures the unrolled loop (the program has one it unrolls) and, when it is the
// choice remembered, `hhlo run` follows it with the same values.
TEST(LoopUnroll, TuneMeasuresUnrollingAndRunFollowsARememberedChoice) {
  Files f = loop_files("unroll_tune");
  ProcessResult r = run_hhlo({"tune", f.dir + "/p.mlir", "-i", f.dir + "/x.npy", "--budget", "20"},
                             {.env = f.env});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("loops unrolled by up to 4"));
  EXPECT_THAT(r.output, ::testing::Not(HasSubstr("outputs differ")));
  // A choice of unrolling written as tune writes it, for this machine's CPU client.
  LoadOptions options{.prepare = {.arg_types = std::vector<TensorType>{{DType::f32, {4}}}}};
  CompileCache cache({.dir = f.dir + "/cache"});
  TuneResult chosen;
  chosen.choice.unroll_loops = 4;
  ASSERT_TRUE(remember_tuned(cache, tuned_key_for(kLoop, options),
                             cache.plugin_identity(Plugin::for_platform("cpu")), chosen));
  r = run_hhlo({"run", f.dir + "/p.mlir", "-i", f.dir + "/x.npy", "-o", f.dir + "/tuned"},
               {.env = f.env});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("tuned: execution async, loops unrolled by up to 4"));
  EXPECT_EQ(read_npy(f.dir + "/tuned/out0.npy").to_vector<float>(), kExpected);
}

}  // namespace
}  // namespace hhlo::test
