// `hhlo check PROGRAM.mlir [--entry NAME]`: parses and verifies a StableHLO program (text or MLIR
// bytecode) with our parser and shape rules (no plugin), and reports the entry's types, the
// functions and an op histogram; errors carry the file's line and column. A serialized jax.export
// artifact (`Exported.serialize()`, a `.jax` file) has its signature printed first (names,
// avals with symbolic dimensions, platforms, shardings; check_exported.cc), then its module's
// report. Exit status 0 when the program is well formed, 1 otherwise.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>

#include "check_exported.h"
#include "commands.h"
#include "hhlo/core/file_io.h"
#include "hhlo/ir/entry.h"
#include "hhlo/ir/parser.h"
#include "hhlo/program/exported.h"
#include "hhlo/program/program.h"
#include "hhlo/program/spec_rewrites.h"
#include "hhlo/program/torch_xla_bundle.h"

namespace hhlo::cli {
namespace {

struct CheckOptions {
  std::string program;
  std::string entry;
};

void count_ops(const Block& b, std::map<std::string, int64_t>& histogram) {
  for (const auto& op : b.ops()) {
    ++histogram[op->name()];
    for (const auto& r : op->regions()) count_ops(*r, histogram);
  }
}

std::string types_with_names(const std::vector<TensorType>& types,
                             const std::vector<std::string>& names) {
  std::string s;
  for (size_t i = 0; i < types.size(); ++i) {
    s += (i ? ", " : "") + types[i].to_string();
    if (i < names.size() && !names[i].empty()) s += fmt::format(" \"{}\"", names[i]);
  }
  return s;
}

/// What a torch_xla bundle binds: its user inputs in torch's order and each weight's file.
void print_torch_xla_bundle(const TorchXlaFunction& f) {
  fmt::print(
      "torch_xla bundle, function {}: {} user input(s), {} argument(s) bound from the "
      "folder\n",
      f.name, f.user_inputs.size(), f.inputs.size() - f.user_inputs.size());
  for (size_t p = 0; p < f.user_inputs.size(); ++p)
    fmt::print("  args[{}]  {}\n", p, f.user_inputs[p].to_string());
  for (const TorchXlaInput& in : f.inputs) {
    if (in.kind == TorchXlaInput::Kind::parameter)
      fmt::print("  {}  {}  (data/{})\n", in.name, in.type.to_string(), in.name);
    if (in.kind == TorchXlaInput::Kind::constant)
      fmt::print("  constant {}  {}  (constants/{})\n", in.position, in.type.to_string(),
                 in.position);
  }
}

int check_program(const CheckOptions& o) {
  bool bundle = is_torch_xla_bundle(o.program);
  std::string text = bundle ? read_program_file_bytes(o.program) : read_file(o.program, "program");
  if (bundle) print_torch_xla_bundle(read_torch_xla_meta(o.program));
  Module m;
  try {
    // A damaged .jax file gets the artifact reader's error (reads_as_exported).
    Program p = read_program(text, {.source_name = o.program, .verify = true});
    refuse_plugin_aborts(p.module, o.program);
    if (p.artifact) print_exported_signature(*p.artifact, o.program);
    m = std::move(p.module);
  } catch (const Error& e) {
    // ParseError and the verifier's errors start with "FILE:LINE:COLUMN: "; the others are
    // prefixed with the file. "hhlo: error: " as every subcommand's errors (main.cc).
    std::string what = e.what();
    bool located = what.rfind(o.program + ":", 0) == 0;
    fmt::print(stderr, "hhlo: error: {}{}{}\n", located ? "" : o.program, located ? "" : ": ",
               what);
    return 1;
  }
  std::string entry;
  try {
    entry = resolve_entry(m, o.entry);
  } catch (const Error& e) {
    fmt::print(stderr, "hhlo: error: {}: {}\n", o.program, e.what());
    return 1;
  }
  FuncSignature sig = signature(*m.find(entry));
  size_t publics = public_functions(m).size();
  fmt::print("{}: ok\n", o.program);
  fmt::print("module{}: {} function(s), {} public\n", m.name().empty() ? "" : " @" + m.name(),
             m.funcs().size(), publics);
  std::vector<std::string> arg_notes;
  for (size_t i = 0; i < sig.arg_types.size(); ++i) arg_notes.emplace_back();
  if (has_platform_index(*m.find(entry))) arg_notes[0] = "_platform_index";
  fmt::print("entry @{}({}) -> ({})\n", entry, types_with_names(sig.arg_types, arg_notes),
             types_with_names(sig.result_types, sig.result_names));
  bool dynamic = std::any_of(sig.arg_types.begin(), sig.arg_types.end(), [](const TensorType& t) {
    return std::find(t.dims.begin(), t.dims.end(), kDynamic) != t.dims.end();
  });
  if (dynamic)
    fmt::print("entry has dynamic dimensions: shapes are refined from the inputs at run time\n");
  std::map<std::string, int64_t> histogram;
  for (const auto& f : m.funcs()) count_ops(f->body(), histogram);
  std::vector<std::pair<std::string, int64_t>> ops(histogram.begin(), histogram.end());
  std::stable_sort(ops.begin(), ops.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  int64_t total = 0;
  for (const auto& [name, n] : ops) total += n;
  fmt::print("ops: {} in all, {} kinds\n", total, ops.size());
  for (const auto& [name, n] : ops) fmt::print("  {:>7}  {}\n", n, name);
  return 0;
}

const bool registered = register_command({
    .name = "check",
    .description =
        "Parse and verify a StableHLO program, text, MLIR bytecode, a jax.export artifact or a "
        "torch_xla bundle folder (no plugin): signature, entry types, op histogram, errors with "
        "line numbers; exit status 0 "
        "or 1",
    .setup = [](CLI::App& sub) -> Action {
      auto o = std::make_shared<CheckOptions>();
      sub.add_option(
             "program", o->program,
             "StableHLO program (.mlir text, .mlirbc bytecode, or .jax: jax.export's serialize())")
          ->required();
      sub.add_option("--entry", o->entry,
                     "Public function to report (default: @main, or the only public function)");
      return [o] { return check_program(*o); };
    },
});

}  // namespace
}  // namespace hhlo::cli
