// The one conversion of a time limit (tools/hhlo/time_limit.h, issue 44): `--timeout`,
// `--budget` and `--mpi-timeout` take a positive number of seconds or `inf`; every conversion
// saturates, so no huge value overflows a clock, and no positive value becomes 0. The commands
// that take the flags are checked end to end here too.
#include "time_limit.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <limits>
#include <string>

#include "cli_util.h"
#include "hhlo/core/array.h"

namespace hhlo::cli {
namespace {

using ::testing::HasSubstr;
using Ms = std::chrono::milliseconds;
using Steady = std::chrono::steady_clock;

TEST(TimeLimit, PositiveNumbersAndInfAreLimits) {
  for (const char* ok : {"1", "0.5", "0.0001", "60", "1e10", "86400000000", "1e400", "inf",
                         "infinity", "INF", "1e-300"})
    EXPECT_EQ(time_limit_error(ok), "") << ok;
}

TEST(TimeLimit, WhatIsNotPositiveIsOneShortLine) {
  for (const char* bad : {"0", "-1", "-0", "-inf", "nan", "NaN", "", "abc", "5s", "1e", " "})
    EXPECT_EQ(time_limit_error(bad),
              std::string("'") + bad + "' is not a positive number of seconds (inf: no bound)")
        << bad;
  // The text is shortened, never a 300-digit number printed in full.
  std::string long_text = "-" + std::string(300, '9');
  EXPECT_EQ(
      time_limit_error(long_text),
      "'-" + std::string(20, '9') + "...' is not a positive number of seconds (inf: no bound)");
}

TEST(TimeLimit, HugeLimitsSaturateAndBoundNothing) {
  const double inf = std::numeric_limits<double>::infinity();
  for (double s : {1e10, 86400000000.0, inf, 1e300, kNoTimeLimitSeconds}) {
    EXPECT_FALSE(is_bounded(s)) << s;
    Steady::duration d = to_steady_duration(s);
    EXPECT_EQ(std::chrono::duration_cast<std::chrono::seconds>(d).count(), 1'000'000'000) << s;
    // A deadline from it lies in the future (1e10 s as nanoseconds wrapped into the past).
    EXPECT_GT(Steady::now() + d, Steady::now() + std::chrono::hours(24 * 365 * 30)) << s;
    Ms ms = to_milliseconds(s);
    EXPECT_EQ(ms.count(), 1'000'000'000'000) << s;
    // Twice it, as steady_clock's nanoseconds (checked mode's wait for rank 0), fits too.
    EXPECT_GT(Steady::now() + 2 * ms, Steady::now()) << s;
  }
}

TEST(TimeLimit, SmallLimitsRoundUpAndNothingPositiveIsZero) {
  EXPECT_TRUE(is_bounded(0.0001));
  EXPECT_EQ(to_milliseconds(0.0001), Ms(1));  // truncated, 0 ms: refused by mpi::set_timeout
  EXPECT_EQ(to_milliseconds(1e-300), Ms(1));
  EXPECT_EQ(to_milliseconds(0.0015), Ms(2));
  EXPECT_EQ(to_milliseconds(120), Ms(120'000));
  EXPECT_EQ(to_steady_duration(2), std::chrono::seconds(2));
  for (double s : {0.0, -1.0, std::nan("")}) {
    EXPECT_FALSE(is_bounded(s));
    EXPECT_EQ(to_milliseconds(s), Ms(0));
    EXPECT_EQ(to_steady_duration(s), Steady::duration::zero());
  }
}

struct Files {
  std::string dir, program, input;
};

Files prepare(const std::string& name) {
  Files f{test::temp_dir(name), "", ""};
  f.program = f.dir + "/p.mlir";
  f.input = f.dir + "/x.npy";
  test::write_text(f.program,
                   "module @m {\n  func.func public @main(%x: tensor<2xf32>) -> tensor<2xf32> {\n"
                   "    %0 = stablehlo.add %x, %x : tensor<2xf32>\n    return %0 : tensor<2xf32>\n"
                   "  }\n}\n");
  write_npy(f.input, Array::from<float>({2}, {1, 2}));
  return f;
}

// `--timeout 1e10` (or inf, or 86400000000) stopped every run at once with exit 124.
TEST(TimeLimitCli, AHugeOrInfiniteTimeoutIsNoBound) {
  Files f = prepare("timeout_huge");
  for (const char* s : {"1e10", "inf", "86400000000", "60"})
    for (const char* command : {"run", "bench"}) {
      test::ProcessResult r = test::run_hhlo({command, f.program, "-i", f.input, "--timeout", s});
      EXPECT_EQ(r.exit_code, 0) << command << " --timeout " << s << ": " << r.output;
      EXPECT_THAT(r.output, ::testing::Not(HasSubstr("ran longer than"))) << command << " " << s;
      if (std::string(command) == "run") {
        EXPECT_THAT(r.output, HasSubstr("[2, 4]"));
      }
    }
}

TEST(TimeLimitCli, WhatIsNotPositiveIsRefusedNamingTheFlag) {
  Files f = prepare("timeout_bad");
  for (const char* s : {"0", "-1", "nan", "abc"}) {
    test::ProcessResult r = test::run_hhlo({"run", f.program, "-i", f.input, "--timeout", s});
    EXPECT_EQ(r.exit_code, 1) << s << ": " << r.output;
    EXPECT_THAT(r.output, HasSubstr(std::string("--timeout: '") + s +
                                    "' is not a positive number of seconds (inf: no bound)"));
    r = test::run_hhlo({"tune", f.program, "-i", f.input, "--budget", s});
    EXPECT_EQ(r.exit_code, 1) << s << ": " << r.output;
    EXPECT_THAT(r.output, HasSubstr(std::string("--budget: '") + s +
                                    "' is not a positive number of seconds (inf: no bound)"));
  }
  // --mpi-timeout: `inf` and `0` were refused with a 367-character line printing DBL_MAX; now 0
  // is one short line and inf is taken (the check runs before MPI starts).
  for (const char* s : {"0", "-1", "nan"}) {
    test::ProcessResult r = test::run_hhlo({"demo", "--mpi", "--mpi-timeout", s});
    EXPECT_EQ(r.exit_code, 1) << s << ": " << r.output;
    EXPECT_THAT(r.output, HasSubstr(std::string("--mpi-timeout: '") + s +
                                    "' is not a positive number of seconds (inf: no bound)\n"));
    EXPECT_LT(r.output.find('\n'), 100u) << r.output;
  }
}

}  // namespace
}  // namespace hhlo::cli
