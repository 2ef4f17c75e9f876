// What the plugin compiles: the program text after entry selection and the binding of a
// multi-platform jax.export's platform index (Client::compile). The runtime's use of the IR
// (DESIGN.md, layer rules): the parser, the entry rules and the printer.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <optional>

#include "hhlo/ir/entry.h"
#include "hhlo/ir/parser.h"
#include "hhlo/ir/printer.h"
#include "hhlo/ir/refine.h"
#include "hhlo/runtime/client.h"

namespace hhlo {
namespace {

bool names_other_entry(const CompileOptions& o) { return !o.entry.empty() && o.entry != "main"; }

/// Applies options.entry and options.export_platforms to `m`; true when `m` changed.
bool prepare(Module& m, const CompileOptions& options, const Client& client) {
  bool changed = select_entry(m, options.entry) != "main";
  const Func& main = *m.find("main");
  if (!has_platform_index(main)) return changed;
  bind_platform_index(m, platform_index_for(options.export_platforms, client.platform_name()), "");
  return true;
}

}  // namespace

LoadedExecutable Client::compile(std::string_view mlir, const CompileOptions& options) const {
  // Nothing reaches the plugin that our reader did not read: text our parser refuses (deep
  // nesting, a 100,000-digit literal, a call cycle) is refused with its message and never reaches
  // the plugin's parser, which recursed until SIGSEGV or took minutes on such texts; bytecode
  // (a flipped byte aborted MLIR's reader inside the plugin) is read by ours and compiled as the
  // text of what we read. Verified as `hhlo check` verifies (every file of the conformance corpus
  // passes): a wrong recorded type or an out-of-bounds slice is our ShapeError with its line,
  // not the plugin's message about StableHLO versions.
  Module parsed = parse_module(mlir, {.source_name = "-", .verify = true});
  if (!prepare(parsed, options, *this) && !is_mlir_bytecode(mlir))
    return compile_program(mlir, options);
  return compile_program(to_mlir(parsed), options);
}

LoadedExecutable Client::compile(const Module& module, const CompileOptions& options) const {
  const Func* main = module.find("main");
  if (!names_other_entry(options) && main && !has_platform_index(*main))
    return compile_program(to_mlir(module), options);
  return compile(std::string_view(to_mlir(module)), options);
}

}  // namespace hhlo
