// The input stage of `hhlo run`, which needs no plugin: the subcommand's options, reading the
// program, entry selection, --xla-option values and the .npy inputs. Shared by run.cc and the
// CLI fuzz target (tests/fuzz/targets/cli.cc), which calls it in-process.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "hhlo/core/array.h"
#include "hhlo/runtime/compile_options.h"

namespace hhlo::cli {

/// The options of `hhlo run`, as parsed from the command line.
struct RunOptions {
  std::string program;
  std::vector<std::string> inputs;
  std::string output_dir;
  std::string platform = "cpu";
  int repeat = 0;
  std::vector<std::string> xla_options;
  std::string entry;
};

/// Adds the options of `hhlo run` to `sub`, storing into `o` (which must outlive the parse).
void add_run_options(CLI::App& sub, RunOptions& o);

/// CompileOptions with each `--xla-option NAME=VALUE` applied over the defaults (VALUE parsed by
/// parse_xla_option_value: true/false, integer, decimal number, else string). Throws hhlo::Error
/// naming an option that is not NAME=VALUE.
CompileOptions compile_options(const std::vector<std::string>& xla_options);

/// The bytes of the program file `path`. Throws hhlo::IoError when it is missing, a directory,
/// unreadable or blank.
std::string read_program(const std::string& path);

/// The program text to compile for entry `entry` ("" = `@main`, or the single public function
/// when there is no `@main`). When the entry is not `@main`, the parsed module gets a public
/// `@main` that calls it (its argument attributes copied) and is re-printed. Bytecode and texts
/// that need no change are returned as they are; a text that does not parse is left to the
/// plugin unless an entry was asked for. Throws hhlo::Error naming the candidates. `path` names
/// the program in messages.
std::string program_for_entry(const std::string& text, const std::string& entry,
                              const std::string& path);

/// What `hhlo run` has read before it loads a plugin.
struct RunInputs {
  /// The program text (or bytecode) to compile.
  std::string text;
  /// The compile options from --xla-option.
  CompileOptions options;
  /// The --input arrays, in order.
  std::vector<Array> inputs;
};

/// Reads the program (read_program, program_for_entry), the compile options and the inputs
/// (read_npy) of `o`. Throws hhlo::Error / hhlo::IoError as those do; loads no plugin.
RunInputs load_run_inputs(const RunOptions& o);

}  // namespace hhlo::cli
