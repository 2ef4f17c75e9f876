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

namespace hhlo::cli {

std::vector<ClientOption> execution_options(const std::string& mode, const std::string& platform) {
  if (mode == "async") return {};
  if (mode != "sync") throw Error(fmt::format("--execution '{}': expected async or sync", mode));
  if (platform != "cpu")
    throw Error(
        fmt::format("--execution sync is an option of the CPU client; the {} plugin has "
                    "none",
                    platform));
  return {{"asynchronous", false}};
}

void add_execution_option(CLI::App& sub, std::string& mode) {
  sub.add_option("--execution", mode,
                 "async (default: XLA's thread pool runs each execution) or sync (the calling "
                 "thread runs it: less latency for small programs; CPU only)")
      ->check(CLI::IsMember({"async", "sync"}));
}

void add_timeout_option(CLI::App& sub, double& seconds) {
  sub.add_option("--timeout", seconds,
                 "Seconds allowed for compiling and executing; past them the run stops with a "
                 "message and exit status 124 (PJRT cannot cancel an execution)")
      ->check(CLI::Validator(
          [](std::string& v) {
            char* end = nullptr;
            double s = std::strtod(v.c_str(), &end);
            return end && *end == '\0' && s > 0 ? std::string()
                                                : "--timeout takes a positive number of seconds";
          },
          "SECONDS"));
}

void add_run_options(CLI::App& sub, RunOptions& o) {
  sub.add_option("program", o.program, "StableHLO program (.mlir text or bytecode)")->required();
  sub.add_option("--input,-i", o.inputs,
                 "Input .npy file, one per @main parameter, in order; or one .npz with a "
                 "member per parameter by name (jax.arg_info, else arg0, arg1, ...)");
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
  add_execution_option(sub, o.execution);
  add_timeout_option(sub, o.timeout);
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

Program read_program(const std::string& path) {
  try {
    return read_program_file(path);
  } catch (const IoError&) {
    throw;
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

RunInputs load_run_inputs(const RunOptions& o) {
  RunInputs in{.program = read_program(o.program)};
  in.options = compile_options(o.xla_options);
  in.prepare = {
      .entry = o.entry, .export_platforms = split_list(o.export_platforms), .platform = o.platform};
  // The names of the entry's arguments, read from the entry as the program stage will select it.
  in.io = io_names(in.program.module, o.entry);
  in.inputs = read_inputs(o.inputs, in.io);
  std::vector<TensorType> types;
  for (const Array& a : in.inputs) types.push_back(a.type());
  in.prepare.arg_types = std::move(types);
  return in;
}

}  // namespace hhlo::cli
