// `hhlo tune PROGRAM -i ... [--budget SECONDS] [--xla-option NAME=VALUE ...] [--forget]`: times the
// program on its inputs under the CPU client's execution modes and the XLA option sets of
// tune_option_sets (hhlo/program/tune.h), one line per candidate with its median, keeps the
// fastest whose outputs agree with the defaults', and remembers it in the compile cache beside
// the program's source record, where `hhlo run`, `hhlo bench` and Session find it. `--forget`
// removes that remembered choice.
#include "hhlo/program/tune.h"

#include <fmt/format.h>

#include <memory>
#include <string>

#include "commands.h"
#include "deadline.h"
#include "hhlo/program/load.h"
#include "load_flags.h"
#include "run_input.h"
#include "time_limit.h"

namespace hhlo::cli {
namespace {

struct TuneCliOptions {
  RunOptions run;
  double budget = 30;
  bool forget = false;  ///< remove the remembered choice instead of tuning
};

/// One progress line: the figures first (aligned whatever the candidate's length), then the
/// candidate; or the candidate and why it is not usable.
void print_progress(const TuneTiming& t) {
  if (t.usable)
    fmt::print("  median {:10.1f} us  (min {:.1f}, {} calls)  {}{}\n", t.median_us, t.min_us,
               t.calls, t.candidate.describe(), t.note.empty() ? "" : "; " + t.note);
  else
    fmt::print("  {:>38}  {}: {}\n", "not usable", t.candidate.describe(), t.note);
  std::fflush(stdout);
}

/// The last lines: the choice and its speed-up over the defaults, and where it is remembered.
void print_choice(const TuneResult& r, bool remembered) {
  double speedup = r.choice_median_us > 0 ? r.default_median_us / r.choice_median_us : 1;
  fmt::print("chosen: {} (median {:.1f} us, {:.2f}x the defaults' speed)\n", r.choice.describe(),
             r.choice_median_us, speedup);
  if (remembered)
    fmt::print("remembered in the compile cache: `hhlo run`, `hhlo bench` and Session use it\n");
  else
    fmt::print(
        "not remembered: the compile cache is off, not writable, or its size bound keeps "
        "nothing (HHLO_COMPILE_CACHE, HHLO_COMPILE_CACHE_MAX_MB)\n");
}

/// The program of `in` prepared as hhlo::load prepares it for `in.load` (read once).
PreparedProgram prepare_for_tune(const RunOptions& o, RunInputs& in) {
  Program& program = ensure_program(o, in);
  try {
    return prepare_program(std::move(program), in.load.prepare);
  } catch (const ShapeError&) {
    throw;
  } catch (const Error& e) {  // the entry, the platform index, the inputs against the avals
    throw Error(fmt::format("cannot compile '{}': {}", o.program, e.what()));
  }
}

int run_tune(const TuneCliOptions& t) {
  const RunOptions& o = t.run;
  if (!(t.budget > 0))
    throw Error(fmt::format("--budget {}: give a positive number of seconds", t.budget));
  // The tuner plans its candidates within the budget; a call that never ends cannot be cut
  // short (PJRT cannot cancel an execution): the whole command is stopped at twice the budget
  // plus 10 s.
  double bound = 2 * t.budget + 10;
  Deadline deadline(bound, o.program, fmt::format("twice --budget {} s plus 10 s", t.budget));
  CompileCache cache;
  RunInputs in = load_run_inputs(o, &cache);
  std::string key = tuned_key_for(in.bytes, in.load, o.program);
  if (t.forget) {
    bool removed = forget_tuned(cache, key);
    fmt::print("{} {} with these inputs and options: run, bench and Session use the defaults\n",
               removed ? "forgot the tuned choice of" : "no tuned choice is remembered for",
               o.program);
    return 0;
  }
  if (in.inputs.empty())
    if (auto types = static_input_types(ensure_program(o, in), o.entry); !types || !types->empty())
      throw Error(
          fmt::format("'{}' takes inputs: hhlo tune times it on them, give them with -i "
                      "(as for hhlo run)",
                      o.program));
  PreparedProgram program = prepare_for_tune(o, in);
  if (program.num_partitions > 1)
    throw Error(
        fmt::format("'{}' is partitioned over {} devices; hhlo tune times one-device "
                    "programs",
                    o.program, program.num_partitions));
  keep_module_inputs(program, in);
  ClientFactory make_candidate_client = [&](bool synchronous) {
    ClientSpec spec = in.load.client;
    spec.execution = synchronous ? ExecutionMode::sync : ExecutionMode::async;
    return make_client(spec, 1, true, o.program);  // with the oneDNN candidates' kernels
  };
  fmt::print("tuning {} (budget {} s): median of execute + await, candidate\n", o.program,
             t.budget);
  TuneResult r;
  try {
    r = tune(program, in.inputs, in.load.compile, make_candidate_client,
             {.budget_s = t.budget, .try_onednn = true, .progress = print_progress});
  } catch (const PjrtError& e) {
    throw Error(
        fmt::format("cannot compile '{}': {}", o.program, name_program_in(e.what(), o.program)));
  }
  std::string plugin = cache.plugin_identity(Plugin::for_platform(in.load.client.platform));
  deadline.disarm();
  print_choice(r, remember_tuned(cache, key, plugin, r));
  return 0;
}

const bool registered = register_command({
    .name = "tune",
    .description =
        "Time a program under the execution modes and XLA CPU option sets; remember the fastest "
        "that agrees with the defaults for run, bench and Session",
    .setup = [](CLI::App& sub) -> Action {
      auto t = std::make_shared<TuneCliOptions>();
      RunOptions& o = t->run;
      add_load_flags(sub, o, LoadFlagSet::tune);
      sub.add_option("--input,-i", o.inputs,
                     "Inputs as for `hhlo run` (.npy in order, NAME=FILE.npy, or one .npz); the "
                     "choice is remembered for inputs of these types")
          ->allow_extra_args(false);  // one file per -i: a mistyped flag is never an input
      sub.add_option("--budget", t->budget,
                     "Seconds for the whole tuning (default 30; inf: no bound but each "
                     "candidate's call count); candidates past it are skipped, and a command "
                     "still running at twice it plus 10 s (a call that never ends) is stopped "
                     "with exit status 124")
          ->check(time_limit_validator());
      sub.add_flag("--forget", t->forget,
                   "Remove the choice remembered for this program, inputs and options instead "
                   "of tuning (run, bench and Session then use the defaults)");
      return [t] { return run_tune(*t); };
    },
});

}  // namespace
}  // namespace hhlo::cli
