// The input stage of `hhlo run` (run_input.h).
#include "run_input.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "hhlo/ir/ops.h"
#include "hhlo/ir/parser.h"
#include "hhlo/ir/printer.h"

namespace hhlo::cli {
namespace {

/// The public functions of `m`, for messages: "@a, @b" (or "none").
std::string public_names(const Module& m) {
  std::string names;
  for (const FuncSignature& s : public_functions(m))
    names += (names.empty() ? "@" : ", @") + s.name;
  return names.empty() ? "none" : names;
}

}  // namespace

void add_run_options(CLI::App& sub, RunOptions& o) {
  sub.add_option("program", o.program, "StableHLO program (.mlir text or bytecode)")->required();
  sub.add_option("--input,-i", o.inputs, "Input .npy file, one per @main parameter, in order");
  sub.add_option("--output-dir,-o", o.output_dir,
                 "Directory to write out0.npy, out1.npy, ... (created if needed)");
  sub.add_option("--entry", o.entry,
                 "Public function to run (default: @main, or the only public function)");
  sub.add_option("--platform", o.platform, "Platform whose plugin to load")
      ->check(CLI::IsMember({"cpu", "cuda"}));
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

std::string read_program(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))
    throw IoError(fmt::format("program '{}' does not exist", path));
  if (std::filesystem::is_directory(path, ec))
    throw IoError(fmt::format("program '{}' is a directory, expected a .mlir file", path));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw IoError(fmt::format("cannot open program '{}' for reading", path));
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  if (text.find_first_not_of(" \t\r\n") == std::string::npos)
    throw IoError(
        fmt::format("program '{}' is empty; expected StableHLO MLIR text or bytecode", path));
  return text;
}

std::string program_for_entry(const std::string& text, const std::string& entry,
                              const std::string& path) {
  bool bytecode = text.rfind("ML\xefR", 0) == 0;
  if (bytecode) {
    if (!entry.empty() && entry != "main")
      throw Error(
          fmt::format("--entry {}: '{}' is MLIR bytecode; entry selection needs the text "
                      "form",
                      entry, path));
    return text;
  }
  std::optional<Module> parsed;
  try {
    parsed.emplace(parse_module(text, {.source_name = path, .verify = false}));
  } catch (const Error&) {
    if (!entry.empty() && entry != "main") throw;
    return text;  // the plugin's own diagnostics will say what is wrong
  }
  Module& m = *parsed;
  const Func* main = m.find("main");
  const Func* chosen = nullptr;
  if (entry.empty()) {
    if (main) return text;
    std::vector<FuncSignature> publics = public_functions(m);
    if (publics.size() != 1)
      throw Error(
          fmt::format("'{}' has no @main and {} public functions ({}): choose one with "
                      "--entry NAME",
                      path, publics.size(), public_names(m)));
    chosen = m.find(publics[0].name);
  } else {
    chosen = m.find(entry);
    if (!chosen || chosen->visibility() != Visibility::public_)
      throw Error(fmt::format("--entry {}: '{}' has no public function @{} (public functions: {})",
                              entry, path, entry, public_names(m)));
    if (entry == "main") return text;
    if (main)
      throw Error(
          fmt::format("--entry {}: '{}' also defines @main, which the plugin always runs; "
                      "renaming @main is not supported yet",
                      entry, path));
  }
  Func& wrapper = m.add_func("main", chosen->arg_types());
  std::vector<Value> args;
  for (size_t i = 0; i < chosen->arg_types().size(); ++i) {
    args.push_back(wrapper.arg(i));
    for (const NamedAttr& a : chosen->arg_attrs(i)) wrapper.set_arg_attr(i, a);
  }
  wrapper.ret(call(*chosen, args));
  return to_mlir(m);
}

RunInputs load_run_inputs(const RunOptions& o) {
  RunInputs in;
  in.text = program_for_entry(read_program(o.program), o.entry, o.program);
  in.options = compile_options(o.xla_options);
  for (const std::string& path : o.inputs) in.inputs.push_back(read_npy(path));
  return in;
}

}  // namespace hhlo::cli
