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
#include "hhlo/ir/entry.h"
#include "hhlo/program/program_cache.h"
#include "time_limit.h"

namespace hhlo::cli {

std::vector<ClientOption> execution_options(const std::string& mode, const std::string& platform) {
  if (mode == "async") return {};
  if (mode != "sync") throw Error(fmt::format("--execution '{}': expected async or sync", mode));
  if (platform != "cpu")
    throw Error(
        fmt::format("--execution sync is an option of the CPU client; the {} plugin has "
                    "none",
                    platform));
  return execution_client_options(true);
}

CLI::Option* add_execution_option(CLI::App& sub, std::string& mode) {
  return sub
      .add_option("--execution", mode,
                  "async (default: XLA's thread pool runs each execution) or sync (the calling "
                  "thread runs it: less latency for small programs; CPU only)")
      ->check(CLI::IsMember({"async", "sync"}));
}

void add_onednn_option(CLI::App& sub, OneDnnOps& ops) {
  CLI::Option* conv =
      sub.add_flag("--onednn-convolution", ops.convolution,
                   "Run the f32 convolutions oneDNN serves as oneDNN's kernel (opt-in: faster "
                   "only where measured, docs/benchmarks.md)");
  CLI::Option* dot =
      sub.add_flag("--onednn-dot-general", ops.dot_general,
                   "Run the f32 dot_generals oneDNN serves as oneDNN's matmul (opt-in: faster "
                   "only where measured, docs/benchmarks.md)");
  CLI::Option* threads =
      sub.add_option("--onednn-threads", ops.threads,
                     "Threads of each oneDNN call (convolutions: OpenMP's; dot_generals: the "
                     "matmul's own team): 0 the default (every core), 1 the calling thread "
                     "alone (default 0); needs --onednn-convolution or --onednn-dot-general")
          ->check(CLI::Range(0, 4096));
  sub.parse_complete_callback([threads, conv, dot] {
    if (threads->count() > 0 && conv->count() + dot->count() == 0)
      throw CLI::RequiresError("--onednn-threads", "--onednn-convolution or --onednn-dot-general");
  });
}

void add_unroll_option(CLI::App& sub, int& factor) {
  sub.add_option("--unroll-loops", factor,
                 "Unroll counted while loops (JAX's scan, fori_loop) by up to K iterations per "
                 "body (opt-in: faster only where measured, docs/benchmarks.md)")
      ->check(CLI::Range(2, 1024));
}

void add_timeout_option(CLI::App& sub, double& seconds) {
  sub.add_option("--timeout", seconds,
                 "Seconds allowed for compiling and executing; past them the run stops with a "
                 "message and exit status 124 (PJRT cannot cancel an execution)")
      ->check(CLI::Validator([](std::string& v) { return time_limit_error(v); }, "SECONDS"));
}

void add_run_options(CLI::App& sub, RunOptions& o) {
  sub.add_option("program", o.program,
                 "StableHLO program (.mlir text or bytecode) or jax.export artifact (.jax)")
      ->required();
  sub.add_option("--input,-i", o.inputs,
                 "Input .npy file, one per @main parameter, in order; or NAME=FILE.npy for each "
                 "parameter by name (jax.arg_info, a jax.export artifact's names as `hhlo check` "
                 "prints them, or arg0, arg1, ...); or one .npz with a member per parameter by "
                 "name")
      ->allow_extra_args(false);  // one file per -i: a mistyped flag is never an input
  sub.add_option("--vjp-order", o.vjp_order,
                 "For a jax.export artifact serialized with vjp_order >= K: run its K-th VJP "
                 "(inputs: the primals, then one cotangent per output)")
      ->check(CLI::Range(0, 64));
  sub.add_option("--output-dir,-o", o.output_dir,
                 "Directory to write the outputs (created if needed): NAME.npy from each "
                 "result's jax.result_info when all have distinct ones, else out0.npy, ...; "
                 "a path ending in .npz writes one archive with members of those names")
      ->each([&o](const std::string&) { o.output_dir_given = true; });
  sub.add_flag("--json", o.json, "With --repeat: also print the latencies as one JSON line");
  sub.add_option("--entry", o.entry,
                 "Public function to run (default: @main, or the only public function)");
  sub.add_option("--export-platforms", o.export_platforms,
                 "For a multi-platform jax.export: its platforms in order (Exported.platforms, "
                 "e.g. cpu,cuda); the _platform_index argument is then filled in");
  sub.add_option("--custom-call-library", o.custom_call_libraries,
                 "Kernel library (.so) whose HHLO_CUSTOM_CALL_TARGETS to register before "
                 "compiling, repeatable")
      ->allow_extra_args(false);
  sub.add_option("--platform", o.platform, "Platform whose plugin to load")
      ->check(CLI::IsMember({"cpu", "cuda"}));
  add_execution_option(sub, o.execution)->each([&o](const std::string&) {
    o.execution_given = true;
  });
  add_timeout_option(sub, o.timeout);
  add_onednn_option(sub, o.onednn);
  add_unroll_option(sub, o.unroll_loops);
  sub.add_option("--repeat", o.repeat, "Run N more times and print per-call latency min/median")
      ->check(CLI::Range(1, 1000000));
  sub.add_option("--xla-option", o.xla_options,
                 "XLA compile option NAME=VALUE (a DebugOptions field; VALUE true/false, an "
                 "integer, a number or a string), repeatable; default "
                 "xla_cpu_enable_fast_min_max=false (NaN-propagating max/min)")
      ->allow_extra_args(false);  // one NAME=VALUE per flag: never swallows the program
}

CompileOptions compile_options(const std::vector<std::string>& xla_options) {
  CompileOptions options;
  for (const std::string& o : xla_options) {
    std::size_t eq = o.find('=');
    if (eq == std::string::npos || eq == 0)
      throw Error(
          fmt::format("--xla-option '{}' is not NAME=VALUE (e.g. "
                      "xla_cpu_enable_fast_min_max=true)",
                      o));
    options.xla_options[o.substr(0, eq)] = parse_xla_option_value(o.substr(eq + 1));
  }
  return options;
}

std::string name_program_in(std::string message, const std::string& program) {
  // Bytecode positions: "- (bytecode IR section):0:378: ..." (read_bytecode's source name).
  for (std::size_t at = 0; (at = message.find("- (bytecode ", at)) != std::string::npos;) {
    bool starts = at == 0 || message[at - 1] == '\n' || message[at - 1] == ' ';
    if (starts) message.replace(at, 1, program);
    at += starts ? program.size() : 1;
  }
  for (std::size_t at = 0; (at = message.find("-:", at)) != std::string::npos;) {
    bool starts_line = at == 0 || message[at - 1] == '\n' || message[at - 1] == ' ';
    bool has_position =
        at + 2 < message.size() && std::isdigit(static_cast<unsigned char>(message[at + 2]));
    if (starts_line && has_position) {
      message.replace(at, 1, program);
      at += program.size() + 1;
    } else {
      at += 2;
    }
  }
  return message;
}

Program read_program(const std::string& path, int vjp_order) {
  try {
    return read_program_file(path, true, vjp_order);
  } catch (const IoError&) {
    throw;
  } catch (const Error& e) {  // our reader's or the verifier's message, naming the file
    throw Error(fmt::format("cannot compile '{}': {}", path, e.what()));
  }
}

Program read_program_bytes(std::string_view bytes, const std::string& path, int vjp_order) {
  try {
    return hhlo::read_program(bytes, {.source_name = path, .verify = true, .vjp_order = vjp_order});
  } catch (const Error& e) {  // our reader's or the verifier's message, naming the file
    throw Error(fmt::format("cannot compile '{}': {}", path, e.what()));
  }
}

std::vector<std::string> split_list(const std::string& list) {
  std::vector<std::string> out;
  std::stringstream ss(list);
  for (std::string item; std::getline(ss, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

std::string read_program_file_bytes(const std::string& path) {
  std::string bytes = read_regular_file(path, "program");
  if (bytes.find_first_not_of(" \t\r\n") == std::string::npos)
    throw IoError(fmt::format(
        "program '{}' is empty; expected StableHLO MLIR text or bytecode, or a jax.export artifact",
        path));
  return bytes;
}

bool inputs_by_name(const std::vector<std::string>& specs) {
  for (const std::string& p : specs)
    if (p.ends_with(".npz") || p.find('=') != std::string::npos) return true;
  return false;
}

Program& ensure_program(const RunOptions& o, RunInputs& in) {
  if (!in.program) in.program = read_program_bytes(in.bytes, o.program, o.vjp_order);
  return *in.program;
}

namespace {

/// The names of the program's inputs and outputs: remembered by `cache`, else read.
IoNames names_for_inputs(const RunOptions& o, RunInputs& in, CompileCache* cache) {
  std::string key = cache ? names_key(in.bytes, o.vjp_order, o.entry) : "";
  if (cache)
    if (std::optional<IoNames> names = find_names(*cache, key)) return *names;
  IoNames names = io_names(ensure_program(o, in), o.entry);
  if (cache) remember_names(*cache, key, names);
  return names;
}

}  // namespace

RunInputs load_run_inputs(const RunOptions& o, CompileCache* cache) {
  RunInputs in;
  in.bytes = read_program_file_bytes(o.program);
  in.options = compile_options(o.xla_options);
  in.prepare = {.entry = o.entry,
                .export_platforms = split_list(o.export_platforms),
                .platform = o.platform,
                .onednn = o.onednn,
                .unroll_loops = o.unroll_loops};
  if (inputs_by_name(o.inputs)) in.io = names_for_inputs(o, in, cache);
  Inputs read = read_inputs(o.inputs, in.io);
  in.inputs = std::move(read.arrays);
  in.labels = std::move(read.labels);
  std::vector<TensorType> types;
  for (const Array& a : in.inputs) types.push_back(a.type());
  in.prepare.arg_types = std::move(types);
  return in;
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

std::optional<RememberedChoice> find_tuned_choice(const std::string& program, CompileCache& cache,
                                                  const std::string& source) {
  std::string damaged;
  std::optional<RememberedChoice> choice = find_tuned(cache, tuned_key(source), &damaged);
  if (!damaged.empty()) fmt::print(stderr, "{}\n", damaged_choice_warning(program, damaged));
  return choice;
}

}  // namespace hhlo::cli
