// `hhlo tune` (issue 26): one progress line per candidate, the choice remembered in the compile
// cache and used by a later `hhlo run` and `hhlo bench` (which say so) with the defaults' values;
// a damaged remembered choice gives one warning and the defaults; the budget bounds the
// candidates; bad budgets and XLA options the plugin refuses are clear errors. Timings are
// printed, never asserted.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli_util.h"
#include "hhlo/core/array.h"
#include "hhlo/program/load.h"
#include "hhlo/program/record_store.h"
#include "hhlo/program/tune.h"

namespace hhlo::test {
namespace {

namespace fs = std::filesystem;
using testing::HasSubstr;
using testing::Not;

const char* kProgram =
    "func.func public @main(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {\n"
    "  %0 = stablehlo.dot_general %x, %x, contracting_dims = [1] x [0] : (tensor<8x8xf32>, "
    "tensor<8x8xf32>) -> tensor<8x8xf32>\n"
    "  %1 = stablehlo.tanh %0 : tensor<8x8xf32>\n"
    "  return %1 : tensor<8x8xf32>\n}\n";

/// A folder with the program p.mlir and its input x.npy.
std::string setup(const std::string& name) {
  std::string dir = temp_dir(name);
  write_text(dir + "/p.mlir", kProgram);
  std::vector<float> v(64);
  for (int i = 0; i < 64; ++i) v[i] = 0.05f * static_cast<float>(i % 9) - 0.2f;
  write_npy(dir + "/x.npy", Array::from<float>({8, 8}, v));
  return dir;
}

/// Runs `hhlo ARGS` with the compile cache in DIR/cache.
ProcessResult hhlo_in(const std::string& dir, const std::vector<std::string>& args) {
  return run_hhlo(args, {.env = {"HHLO_COMPILE_CACHE=" + dir + "/cache"}});
}

/// The path of the choice `hhlo tune DIR/p.mlir -i DIR/x.npy` remembers.
std::string choice_path(const std::string& dir) {
  LoadOptions options{
      .prepare = {.arg_types = std::vector<TensorType>{read_npy(dir + "/x.npy").type()}}};
  CompileCache cache({.dir = dir + "/cache"});
  return RecordStore(cache).path(tuned_key_for(kProgram, options));
}

/// The number of lines of `text` holding `what`.
int lines_with(const std::string& text, const std::string& what) {
  int n = 0;
  for (std::size_t at = 0; (at = text.find(what, at)) != std::string::npos; at += what.size()) ++n;
  return n;
}

TEST(TuneCli, TheChoiceIsRememberedAndUsedByRunAndBench) {
  std::string dir = setup("tune_cli_used");
  std::vector<std::string> run = {"run", dir + "/p.mlir", "-i", dir + "/x.npy"};
  auto with_out = [&](const std::string& out) {
    std::vector<std::string> a = run;
    a.insert(a.end(), {"-o", dir + "/" + out});
    return a;
  };
  ProcessResult r = hhlo_in(dir, with_out("defaults"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, Not(HasSubstr("tuned:")));

  r = hhlo_in(dir, {"tune", dir + "/p.mlir", "-i", dir + "/x.npy", "--budget", "3"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // The defaults, the synchronous client, each option set, and oneDNN's dot_generals on one
  // thread and on its default threads, under each mode (the program has a dot_general).
  // Then, when a candidate other than the defaults won, it, the runner-up and the defaults
  // timed again in rotation (the confirmation, three lines), idle and then with a busy process
  // per core (three more lines), and the two medians of each side in a table.
  int confirmation = lines_with(r.output, "; confirmation, in alternation");
  EXPECT_EQ(lines_with(r.output, " us  (min ") - confirmation,
            static_cast<int>(6 + tune_option_sets().size()))
      << r.output;
  bool chose_defaults = r.output.find("chosen: execution async (defaults)") != std::string::npos;
  EXPECT_TRUE(confirmation == 6 || (chose_defaults && confirmation == 0)) << r.output;
  EXPECT_EQ(lines_with(r.output, "in alternation, with "), confirmation / 2) << r.output;
  if (confirmation > 0) {
    EXPECT_THAT(r.output, HasSubstr("confirmation in rotation (idle; loaded: "));
    EXPECT_THAT(r.output, HasSubstr("idle median   loaded median  candidate"));
  }
  EXPECT_THAT(r.output, HasSubstr("execution sync (defaults)"));
  EXPECT_THAT(r.output, HasSubstr("xla_cpu_use_xnnpack=false"));
  EXPECT_THAT(r.output, HasSubstr("chosen: execution "));
  EXPECT_THAT(r.output, HasSubstr("remembered in the compile cache"));
  EXPECT_TRUE(fs::exists(choice_path(dir)));

  r = hhlo_in(dir, with_out("tuned"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("tuned: execution "));
  EXPECT_TRUE(
      outputs_agree(read_npy(dir + "/tuned/out0.npy"), read_npy(dir + "/defaults/out0.npy")));
  r = hhlo_in(dir, {"bench", dir + "/p.mlir", "-i", dir + "/x.npy", "-n", "5"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("tuned:              execution "));
  // Without -i bench runs zeros of the program's input types: the same load, the same choice.
  r = hhlo_in(dir, {"bench", dir + "/p.mlir", "-n", "5"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("tuned:              execution "));
  // --execution wins over the choice's mode; the line says which runs.
  r = hhlo_in(dir, {"run", dir + "/p.mlir", "-i", dir + "/x.npy", "--execution", "async"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("tuned: execution async"));
  // Other options than those tuned with: no choice.
  r = hhlo_in(dir, {"run", dir + "/p.mlir", "-i", dir + "/x.npy", "--xla-option",
                    "xla_cpu_use_xnnpack=true"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, Not(HasSubstr("tuned:")));
  // --forget removes the choice: run is back to the defaults; a second --forget says so.
  std::vector<std::string> forget = {"tune", dir + "/p.mlir", "-i", dir + "/x.npy", "--forget"};
  r = hhlo_in(dir, forget);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("forgot the tuned choice of " + dir + "/p.mlir"));
  EXPECT_FALSE(fs::exists(choice_path(dir)));
  r = hhlo_in(dir, run);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, Not(HasSubstr("tuned:")));
  r = hhlo_in(dir, forget);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("no tuned choice is remembered for " + dir + "/p.mlir"));
}

// Without -i, tune says it needs the inputs (it said "execute: @main takes 1 arguments, 0
// given"); --forget names what the choice is remembered for.
TEST(TuneCli, WithoutInputsItAsksForThem) {
  std::string dir = setup("tune_cli_no_inputs");
  ProcessResult r = hhlo_in(dir, {"tune", dir + "/p.mlir"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("hhlo: error: '" + dir +
                                  "/p.mlir' takes inputs: hhlo tune times it on them, give them "
                                  "with -i"));
  r = hhlo_in(dir, {"tune", dir + "/p.mlir", "--forget"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("no tuned choice is remembered for " + dir +
                                  "/p.mlir with these inputs and options"));
}

TEST(TuneCli, ADamagedChoiceGivesOneWarningAndTheDefaults) {
  std::string dir = setup("tune_cli_damaged");
  ProcessResult r = hhlo_in(dir, {"tune", dir + "/p.mlir", "-i", dir + "/x.npy", "--budget", "1"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  {
    std::fstream f(choice_path(dir), std::ios::in | std::ios::out | std::ios::binary);
    ASSERT_TRUE(f);
    f.seekp(-3, std::ios::end);
    f.write("xyz", 3);  // the payload no longer matches its checksum
  }
  std::vector<std::string> run = {"run", dir + "/p.mlir", "-i", dir + "/x.npy", "-o", dir + "/o"};
  r = hhlo_in(dir, run);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(lines_with(r.output, "warning:"), 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("warning: the tuned choice remembered for " + dir +
                                  "/p.mlir is damaged (its cache entry is corrupted); running "
                                  "with the defaults"));
  EXPECT_THAT(r.output, Not(HasSubstr("tuned:")));
  r = hhlo_in(dir, run);  // removed: no second warning
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, Not(HasSubstr("warning:")));
}

// The CPU plugin logs an INFO line (absl, on stderr) for each synchronous client, which tune always
// creates: hhlo drops XLA's INFO level (TF_CPP_MIN_LOG_LEVEL=1 unless set), and a user's own
// TF_CPP_MIN_LOG_LEVEL=0 shows it again (so the line this checks for is the plugin's real one).
TEST(TuneCli, ThePluginsInfoLogIsQuietUnlessAskedFor) {
  std::string dir = setup("tune_cli_quiet");
  ProcessResult r = hhlo_in(dir, {"tune", dir + "/p.mlir", "-i", dir + "/x.npy", "--budget", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("execution sync (defaults)"));  // a synchronous client was made
  EXPECT_THAT(r.output, Not(HasSubstr("asynchronous set via create_options")));
  EXPECT_THAT(r.output, Not(HasSubstr("I0000 ")));
  EXPECT_THAT(r.output, Not(HasSubstr("WARNING: All log messages before absl::InitializeLog()")));
  r = run_hhlo({"run", dir + "/p.mlir", "-i", dir + "/x.npy", "--execution", "sync"},
               {.env = {"HHLO_COMPILE_CACHE=off", "TF_CPP_MIN_LOG_LEVEL=0"}});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("asynchronous set via create_options: false"));
}

TEST(TuneCli, TheBudgetBoundsTheCandidates) {
  std::string dir = setup("tune_cli_budget");
  ProcessResult r =
      hhlo_in(dir, {"tune", dir + "/p.mlir", "-i", dir + "/x.npy", "--budget", "0.000001"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(lines_with(r.output, " us  (min "), 1) << r.output;  // the defaults, always measured
  EXPECT_EQ(lines_with(r.output, "skipped: budget spent"),
            static_cast<int>(5 + tune_option_sets().size()))
      << r.output;
  EXPECT_THAT(r.output, HasSubstr("chosen: execution async (defaults)"));
}

TEST(TuneCli, BadBudgetsAndRefusedOptionsAreErrors) {
  std::string dir = setup("tune_cli_errors");
  for (const char* budget : {"0", "-2"}) {
    ProcessResult r =
        hhlo_in(dir, {"tune", dir + "/p.mlir", "-i", dir + "/x.npy", "--budget", budget});
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_THAT(r.output, HasSubstr("--budget: '" + std::string(budget) +
                                    "' is not a positive number of seconds (inf: no bound)"));
  }
  ProcessResult r = hhlo_in(
      dir, {"tune", dir + "/p.mlir", "-i", dir + "/x.npy", "--xla-option", "xla_no_such_option=1"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("cannot compile '" + dir + "/p.mlir'"));
  EXPECT_THAT(r.output, HasSubstr("No such compile option: 'xla_no_such_option'"));
  EXPECT_FALSE(fs::exists(choice_path(dir)));
}

// --json: one JSON object, every timing, the confirmation's sides idle and loaded (one busy
// process here), the choice; --loaded-workers 0 makes no loaded rotation; a negative count is an
// error naming it.
TEST(TuneCli, JsonHasTheConfirmationIdleAndLoaded) {
  std::string dir = setup("tune_cli_json");
  std::vector<std::string> tune = {"tune", dir + "/p.mlir", "-i", dir + "/x.npy", "--budget",
                                   "3",    "--json"};
  for (int workers : {1, 0}) {
    std::vector<std::string> args = tune;
    args.insert(args.end(), {"--loaded-workers", std::to_string(workers)});
    ProcessResult r = hhlo_in(dir, args);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_THAT(r.output, Not(HasSubstr(" us  (min ")));  // no progress lines
    std::size_t from = r.output.find("{\n"), to = r.output.rfind("\n}");
    ASSERT_TRUE(from != std::string::npos && to != std::string::npos) << r.output;
    nlohmann::json j = nlohmann::json::parse(r.output.substr(from, to + 2 - from));
    EXPECT_EQ(j.at("program"), dir + "/p.mlir");
    EXPECT_EQ(j.at("timings").size(), 6 + tune_option_sets().size());
    EXPECT_EQ(j.at("timings")[0].at("candidate"), "execution async (defaults)");
    EXPECT_TRUE(j.at("remembered").get<bool>());
    const nlohmann::json& c = j.at("confirmation");
    if (c.is_null()) {  // no candidate timed below the defaults
      EXPECT_EQ(j.at("chosen"), "execution async (defaults)");
      continue;
    }
    EXPECT_EQ(c.at("rounds"), 3);
    EXPECT_EQ(c.at("loaded_workers"), workers);
    ASSERT_GE(c.at("sides").size(), 2u);
    EXPECT_EQ(c.at("sides")[0].at("candidate"), "execution async (defaults)");
    for (const nlohmann::json& side : c.at("sides")) {
      EXPECT_TRUE(side.at("idle_median_us").is_number()) << side.dump();
      EXPECT_EQ(side.at("loaded_median_us").is_number(), workers > 0) << side.dump();
      EXPECT_EQ(side.at("loaded").is_null(), workers == 0) << side.dump();
    }
    if (workers == 0) {
      EXPECT_TRUE(j.at("refused_under_load").is_null());
    }
  }
  ProcessResult r =
      hhlo_in(dir, {"tune", dir + "/p.mlir", "-i", dir + "/x.npy", "--loaded-workers", "-1"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("--loaded-workers -1: give 0 (no loaded confirmation) to 256"));
}

// A training step donates its parameters (tf.aliasing_output): every candidate's calls run on the
// same inputs, which the executions keep (ExecuteOptions::keeping_inputs), instead of the second
// call finding its argument donated.
TEST(TuneCli, AProgramThatDonatesItsInputsIsTimedOnTheSameInputs) {
  std::string dir = temp_dir("tune_cli_donated");
  write_text(dir + "/step.mlir",
             "func.func public @main(%w: tensor<8xf32> {tf.aliasing_output = 0 : i32}, %x: "
             "tensor<8xf32>) -> (tensor<8xf32>, tensor<f32>) {\n"
             "  %0 = stablehlo.subtract %w, %x : tensor<8xf32>\n"
             "  %z = stablehlo.constant dense<0.0> : tensor<f32>\n"
             "  %1 = stablehlo.reduce(%0 init: %z) applies stablehlo.add across dimensions = [0] "
             ": (tensor<8xf32>, tensor<f32>) -> tensor<f32>\n"
             "  return %0, %1 : tensor<8xf32>, tensor<f32>\n}\n");
  write_npy(dir + "/w.npy", Array::from<float>({8}, {1, 2, 3, 4, 5, 6, 7, 8}));
  write_npy(dir + "/x.npy", Array::from<float>({8}, {1, 1, 1, 1, 1, 1, 1, 1}));
  std::vector<std::string> inputs = {"-i", dir + "/w.npy", "-i", dir + "/x.npy"};
  std::vector<std::string> tune = {"tune", dir + "/step.mlir", "--budget", "2"};
  tune.insert(tune.end(), inputs.begin(), inputs.end());
  ProcessResult r = hhlo_in(dir, tune);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, Not(HasSubstr("donated to an earlier execution")));
  EXPECT_THAT(r.output, Not(HasSubstr("refused")));
  EXPECT_THAT(r.output, HasSubstr("chosen: execution"));
  std::vector<std::string> bench = {"bench", dir + "/step.mlir", "-n", "5"};
  bench.insert(bench.end(), inputs.begin(), inputs.end());
  r = hhlo_in(dir, bench);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("latency over 5 call(s)"));
  // The sum of w - x = 36 - 8: the tuned choice runs the step as the defaults do.
  std::vector<std::string> run = {"run", dir + "/step.mlir"};
  run.insert(run.end(), inputs.begin(), inputs.end());
  r = hhlo_in(dir, run);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("28"));
}

TEST(TuneCli, InputsOfTheWrongShapeOrCountAreRefusedAsRunRefusesThemBeforeAnyWork) {
  // tune printed its header, then "execute: argument 0 has type ..." (issue 44).
  std::string dir = setup("tune_bad_inputs");
  write_npy(dir + "/x3.npy", Array::from<float>({2, 3}, {1, 2, 3, 4, 5, 6}));
  const std::string shape = "input 0 ('" + dir +
                            "/x3.npy') has shape [2x3], @main parameter 0 expects "
                            "tensor<8x8xf32>\n";
  const std::string count = "@main takes 1 input(s) (tensor<8x8xf32>), 2 given with --input\n";
  struct Case {
    std::vector<std::string> inputs;
    std::string message;
  };
  for (const Case& c :
       {Case{{dir + "/x3.npy"}, shape}, Case{{dir + "/x.npy", dir + "/x.npy"}, count}}) {
    for (const std::string command : {"tune", "run"}) {
      std::vector<std::string> args = {command, dir + "/p.mlir"};
      for (const std::string& i : c.inputs) args.insert(args.end(), {"-i", i});
      ProcessResult r = hhlo_in(dir, args);
      EXPECT_EQ(r.signal, 0) << command << ": " << r.output;
      EXPECT_EQ(r.exit_code, 1) << command << ": " << r.output;
      EXPECT_THAT(r.output, HasSubstr("hhlo: error: " + c.message)) << command;
      EXPECT_THAT(r.output, Not(HasSubstr("tuning "))) << command;
      EXPECT_THAT(r.output, Not(HasSubstr("execute:"))) << command;
    }
  }
}

}  // namespace
}  // namespace hhlo::test
