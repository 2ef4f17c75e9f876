// The conformance runner end to end: worker crash and timeout isolation, a known-good file passes,
// a corrupted expected value fails (in both check modes, so a check cannot silently pass), and
// the whole corpus (HHLO_CONFORMANCE_DIR, tests/corpus_util.h) reaches the target pass rate with
// every non-passing file a known, explained one (docs/conformance.md).
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "conformance/runner.h"
#include "corpus_util.h"
#include "hhlo/core/error.h"

namespace hhlo::conformance {
namespace {

using ::testing::HasSubstr;

const std::string kCorpus = test::kConformanceDir;
const std::string kKnownGood = "abs_float64_20_20.mlir";

RunnerOptions options(CheckMode mode) {
  RunnerOptions o;
  o.worker_command = {HHLO_CLI_PATH, "conformance-worker", "--check-mode",
                      mode == CheckMode::ffi ? "ffi" : "outputs"};
  o.timeout_s = 120;
  o.jobs = 2;
  return o;
}

std::vector<CheckMode> modes() { return {CheckMode::outputs, CheckMode::ffi}; }

std::string temp_dir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() /
             fmt::format("hhlo_conformance_{}_{}", getpid(), name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// A fake worker: a shell loop answering "passed" except for files named *crash* (it kills itself
/// with SIGSEGV) and *hang* (it sleeps).
RunnerOptions fake_worker() {
  RunnerOptions o;
  o.worker_command = {"/bin/sh", "-c",
                      "echo ready; while read f; do case $f in *crash*) kill -SEGV $$;; "
                      "*hang*) sleep 30;; *) printf 'passed\\t0.001\\t\\n';; esac; done"};
  o.timeout_s = 0.5;
  o.jobs = 1;
  return o;
}

TEST(Runner, CrashedWorkerFailsOneFileAndIsRestarted) {
  Report r = run_files({"a_crash.mlir", "b.mlir"}, fake_worker());
  ASSERT_EQ(r.total(), 2u);
  EXPECT_EQ(r.results[0].status, Status::failed);
  EXPECT_THAT(r.results[0].reason, HasSubstr("worker crashed (signal 11"));
  EXPECT_EQ(r.results[1].status, Status::passed);
  EXPECT_EQ(r.summary(), "conformance: 1 passed, 1 failed, 0 unsupported of 2");
}

TEST(Runner, HungWorkerTimesOutAndIsRestarted) {
  Report r = run_files({"a_hang.mlir", "b.mlir"}, fake_worker());
  EXPECT_EQ(r.results[0].status, Status::failed);
  EXPECT_THAT(r.results[0].reason, HasSubstr("timeout after 0.5 s"));
  EXPECT_EQ(r.results[1].status, Status::passed);
  EXPECT_LT(r.seconds, 10);
}

TEST(Runner, WorkerThatCannotStartIsAnError) {
  RunnerOptions o = fake_worker();
  o.worker_command = {"/bin/sh", "-c", "echo 'error\tplugin not found' ; exit 1"};
  EXPECT_THAT([&] { run_files({"x.mlir"}, o); },
              ::testing::ThrowsMessage<Error>(HasSubstr("plugin not found")));
  o.worker_command = {"/nonexistent/hhlo"};
  EXPECT_THROW(run_files({"x.mlir"}, o), Error);
}

TEST(Runner, BadDirectoryAndFilterAreErrors) {
  EXPECT_THROW(list_corpus("/nonexistent"), IoError);
  std::string dir = temp_dir("filter");  // a folder of one file: no corpus needed
  std::ofstream(dir + "/a.mlir") << "";
  EXPECT_THAT([&] { list_corpus(dir, "("); },
              ::testing::ThrowsMessage<Error>(HasSubstr("bad --filter regex '('")));
  EXPECT_THAT(
      [&] {
        run_corpus(dir, [] {
          RunnerOptions o = fake_worker();
          o.filter = "^no_such_file$";
          return o;
        }());
      },
      ::testing::ThrowsMessage<Error>(HasSubstr("no .mlir file in")));
}

TEST(Corpus, KnownGoodFilePasses) {
  HHLO_SKIP_WITHOUT_CORPUS();
  for (CheckMode mode : modes()) {
    Report r = run_files({kCorpus + "/" + kKnownGood}, options(mode));
    ASSERT_EQ(r.total(), 1u);
    EXPECT_EQ(r.results[0].status, Status::passed) << r.results[0].reason;
  }
}

TEST(Corpus, CorruptedExpectedValueFails) {
  HHLO_SKIP_WITHOUT_CORPUS();
  // Flip one hex digit of the @expected constant: the check must catch it in every mode.
  std::string text = read(kCorpus + "/" + kKnownGood);
  std::size_t expected_fn = text.find("func.func private @expected");
  ASSERT_NE(expected_fn, std::string::npos);
  std::size_t hex = text.find("dense<\"0x", expected_fn);
  ASSERT_NE(hex, std::string::npos);
  std::size_t digit = hex + std::string("dense<\"0x").size() + 14;  // inside element 0
  text[digit] = text[digit] == 'A' ? 'B' : 'A';
  std::string dir = temp_dir("corrupt");
  std::string path = dir + "/corrupted_" + kKnownGood;
  std::ofstream(path) << text;
  for (CheckMode mode : modes()) {
    Report r = run_files({path}, options(mode));
    ASSERT_EQ(r.total(), 1u);
    EXPECT_EQ(r.results[0].status, Status::failed);
    EXPECT_THAT(r.results[0].reason, HasSubstr("check.expect_close: 1 of 400 elements"));
    EXPECT_THAT(r.results[0].reason, HasSubstr("first at [0, 0]"));
  }
}

// Files that do not pass on the default plugin (lammps-jax-pjrt-cpu 0.11.2), each explained in
// docs/conformance.md with its measured error. Only tolerance-level numerics may be here, never a
// wrong value: the runner-up's wrong gathers (PluginQuirks.*On0_81) are why it is not the default.
const std::set<std::string> kKnownNonPassing = {
    // XLA:CPU numerics: 1 f32 ULP (0.0039) at magnitudes ~5e4 exceeds the absolute 1e-3 of
    // expect_almost_eq; worst relative error ~1e-7. Bit-identical to jaxlib 0.10.2's XLA:CPU.
    "pow_complex64_20_30_complex64_20_30.mlir",
    "sin_complex64_20_20.mlir",
    // XLA:CPU numerics: up to 9 ULP (relative ~5e-7) where expect_close allows 3 (f32
    // accumulation order; jaxlib 0.10.2's XLA:CPU is also beyond 3 ULP).
    "triangular_solve_float32_2_8_8_float32_2_10_8.mlir",
};

/// Every non-passing file of `r` is a known one, and fails by a tolerance-level error only: its
/// reason carries the worst relative difference (compare.cc), at most 1e-5, so a known file that
/// starts computing wrong values fails here instead of hiding behind the list.
void expect_only_known_failures(const Report& r) {
  for (const FileResult& f : r.results) {
    if (f.status == Status::passed) continue;
    EXPECT_TRUE(kKnownNonPassing.count(f.file))
        << "new non-passing file " << f.file << ": " << f.reason;
    std::size_t at = f.reason.find("(relative ");
    ASSERT_NE(at, std::string::npos) << f.file << ": no measured error in: " << f.reason;
    double relative = std::stod(f.reason.substr(at + 10));
    EXPECT_LE(relative, 1e-5) << f.file << " is off by more than numerics: " << f.reason;
  }
}

// The whole corpus in the default mode (FFI handlers when built with them): about 25 s on 2 cores.
TEST(Corpus, WholeCorpusReachesTargetPassRate) {
  HHLO_SKIP_WITHOUT_CORPUS();
  CheckMode mode = default_check_mode();
  Report r = run_corpus(kCorpus, options(mode));
  std::size_t files = list_corpus(kCorpus).size();
  EXPECT_EQ(r.total(), files);
  EXPECT_GE(files, 1000u);
  double rate = static_cast<double>(r.passed) / static_cast<double>(r.total());
  EXPECT_GE(rate, 0.97) << r.summary();
  expect_only_known_failures(r);
  std::printf("[%s checks] %s (%.1f s)\n", mode == CheckMode::ffi ? "ffi" : "host",
              r.summary().c_str(), r.seconds);
}

// The other check mode on a sample that includes every known failure: both modes agree.
TEST(Corpus, BothCheckModesAgreeOnASample) {
  HHLO_SKIP_WITHOUT_CORPUS();
  std::vector<Report> reports;
  for (CheckMode mode : modes()) {
    RunnerOptions o = options(mode);
    o.filter =
        "^(abs_|add_|bitcast|convert_element_type_int8_100|cos|gather_float32|pow_complex64|"
        "sin_complex64|triangular_solve)";
    reports.push_back(run_corpus(kCorpus, o));
  }
  ASSERT_EQ(reports.size(), 2u);
  ASSERT_EQ(reports[0].total(), reports[1].total());
  EXPECT_GE(reports[0].total(), 40u);
  EXPECT_EQ(reports[0].failed, kKnownNonPassing.size());
  for (std::size_t i = 0; i < reports[0].total(); ++i)
    EXPECT_EQ(reports[0].results[i].status, reports[1].results[i].status)
        << reports[0].results[i].file << ": " << reports[0].results[i].reason << " / "
        << reports[1].results[i].reason;
  expect_only_known_failures(reports[1]);
}

// `hhlo conformance --reprint`: every file parsed by our parser and re-printed by our printer
// before compiling gives the same per-file results as the original text (the same known set).
TEST(Corpus, ReprintedCorpusGivesTheSameResults) {
  HHLO_SKIP_WITHOUT_CORPUS();
  CheckMode mode = default_check_mode();
  RunnerOptions o = options(mode);
  o.worker_command.push_back("--reprint");
  Report r = run_corpus(kCorpus, o);
  EXPECT_EQ(r.total(), list_corpus(kCorpus).size());
  EXPECT_EQ(r.failed, kKnownNonPassing.size()) << r.summary();
  expect_only_known_failures(r);
  for (const FileResult& f : r.results)
    EXPECT_EQ(f.reason.find("reprint:"), std::string::npos) << f.file << ": " << f.reason;
  std::printf("[reprint] %s (%.1f s)\n", r.summary().c_str(), r.seconds);
}

}  // namespace
}  // namespace hhlo::conformance
