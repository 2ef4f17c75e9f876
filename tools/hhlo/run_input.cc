// The input stage of `hhlo run` (run_input.h).
#include "run_input.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string_view>

#include "hhlo/core/file_io.h"
#include "hhlo/program/program_cache.h"
#include "time_limit.h"

namespace hhlo::cli {

void add_timeout_option(CLI::App& sub, double& seconds) {
  sub.add_option("--timeout", seconds,
                 "Seconds allowed for compiling and executing (a positive number, or inf for "
                 "no limit); past them the run stops with a message and exit status 124 (PJRT "
                 "cannot cancel an execution)")
      ->check(CLI::Validator([](std::string& v) { return time_limit_error(v); }, "SECONDS"));
}

void add_run_options(CLI::App& sub, RunOptions& o) {
  add_load_flags(sub, o);
  sub.add_option("--input,-i", o.inputs,
                 "Input .npy file, one per @main parameter, in order; or NAME=FILE.npy for each "
                 "parameter by name (jax.arg_info, a jax.export artifact's names as `hhlo check` "
                 "prints them, or arg0, arg1, ...), and PATH=FILE.safetensors for every "
                 "parameter under a pytree path (args[0]['dense']['kernel'] takes the tensor "
                 "'dense.kernel'); or one .npz with a member per parameter by name")
      ->allow_extra_args(false);  // one file per -i: a mistyped flag is never an input
  sub.add_option("--output-dir,-o", o.output_dir,
                 "Directory to write the outputs (created if needed): NAME.npy from each "
                 "result's jax.result_info when all have distinct ones, else out0.npy, ...; "
                 "a path ending in .npz writes one archive with members of those names, one "
                 "ending in .safetensors one safetensors file keyed by each result's pytree path "
                 "joined with '.' (result['params']['w'] -> params.w), one ending in .npy the "
                 "only output's file (as np.save writes it)")
      ->each([&o](const std::string&) { o.output_dir_given = true; });
  sub.add_flag("--json", o.json, "With --repeat: also print the latencies as one JSON line");
  add_timeout_option(sub, o.timeout);
  sub.add_option("--repeat", o.repeat, "Run N more times and print per-call latency min/median")
      ->check(CLI::Range(1, 1000000));
}

bool inputs_by_name(const std::vector<std::string>& specs) {
  for (const std::string& p : specs)
    if (p.ends_with(".npz") || p.find('=') != std::string::npos) return true;
  return false;
}

Program& ensure_program(const LoadFlags& f, RunInputs& in) {
  if (!in.program) {
    try {
      in.program = hhlo::read_program(
          in.bytes, {.source_name = f.program, .verify = true, .vjp_order = f.vjp_order});
    } catch (const Error& e) {  // our reader's or the verifier's message, naming the file
      throw Error(fmt::format("cannot compile '{}': {}", f.program, e.what()));
    }
  }
  return *in.program;
}

namespace {

/// The names of the program's inputs and outputs: remembered by `cache`, else read.
IoNames names_for_inputs(const LoadFlags& f, RunInputs& in, CompileCache* cache) {
  std::string key = cache ? names_key(in.bytes, f.vjp_order, f.entry) : "";
  if (cache)
    if (std::optional<IoNames> names = find_names(*cache, key)) return *names;
  IoNames names = io_names(ensure_program(f, in), f.entry);
  if (cache) remember_names(*cache, key, names);
  return names;
}

/// Zeros of each input type of the program (static_input_types), labelled "input K (zeros)".
/// Throws hhlo::Error when an input has a dynamic dimension (no shapes to make zeros of).
void zero_inputs(const LoadFlags& f, RunInputs& in) {
  std::optional<std::vector<TensorType>> types;
  Program& program = ensure_program(f, in);
  try {
    types = static_input_types(program, f.entry);
  } catch (const Error& e) {  // the entry
    throw Error(fmt::format("cannot compile '{}': {}", f.program, e.what()));
  }
  if (!types)
    throw Error(fmt::format(
        "'{}' has inputs of dynamic shape: give inputs (-i) to refine it to their shapes",
        f.program));
  for (std::size_t k = 0; k < types->size(); ++k) {
    in.inputs.emplace_back((*types)[k]);
    in.labels.push_back(fmt::format("input {} (zeros)", k));
  }
}

}  // namespace

RunInputs read_run_inputs(const LoadFlags& f, const std::vector<std::string>& specs,
                          CompileCache* cache, bool zeros_when_none) {
  RunInputs in;
  in.bytes = read_program_file_bytes(f.program);
  bool named = inputs_by_name(specs);
  if (named) in.io = names_for_inputs(f, in, cache);
  if (specs.empty() && zeros_when_none) {
    zero_inputs(f, in);
  } else {
    Inputs read = read_inputs(specs, [&]() -> const IoNames& {
      if (!named) in.io = names_for_inputs(f, in, cache);  // an .npz read from a pipe
      named = true;
      return in.io;
    });
    in.inputs = std::move(read.arrays);
    in.labels = std::move(read.labels);
  }
  std::vector<TensorType> types;
  for (const Array& a : in.inputs) types.push_back(a.type());
  in.load = load_options(f, std::move(types));
  return in;
}

RunInputs load_run_inputs(const RunOptions& o, CompileCache* cache) {
  return read_run_inputs(o, o.inputs, cache, false);
}

void release_program(RunInputs& in) {
  std::string().swap(in.bytes);
  in.program.reset();
}

void keep_module_inputs(const PreparedFacts& program, RunInputs& in) {
  if (program.kept_inputs.empty()) return;
  std::vector<Array*> kept;
  for (Array& a : in.inputs) kept.push_back(&a);
  kept = select_kept(program.kept_inputs, kept);
  std::vector<Array> inputs;
  for (Array* a : kept) inputs.push_back(std::move(*a));
  in.labels = select_kept(program.kept_inputs, in.labels);
  in.inputs = std::move(inputs);
}

}  // namespace hhlo::cli
