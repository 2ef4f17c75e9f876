// What the plugin compiles: the program text after entry selection and the binding of a
// multi-platform jax.export's platform index (Client::compile). The runtime's use of the IR
// (DESIGN.md, layer rules): the parser, the entry rules and the printer.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "hhlo/ir/entry.h"
#include "hhlo/ir/parser.h"
#include "hhlo/ir/printer.h"
#include "hhlo/runtime/client.h"

namespace hhlo {
namespace {

bool names_other_entry(const CompileOptions& o) { return !o.entry.empty() && o.entry != "main"; }

/// Applies options.entry and options.export_platforms to `m`; true when `m` changed.
bool prepare(Module& m, const CompileOptions& options, const Client& client) {
  bool changed = select_entry(m, options.entry) != "main";
  const Func& main = *m.find("main");
  if (!has_platform_index(main)) return changed;
  int64_t index = 0;
  if (!options.export_platforms.empty()) {
    std::string platform = client.platform_name();
    const auto& list = options.export_platforms;
    auto it = std::find(list.begin(), list.end(), platform);
    if (it == list.end())
      throw Error(fmt::format(
          "the program is a multi-platform jax.export for [{}], which does not include this "
          "client's platform '{}'",
          fmt::join(list, ", "), platform));
    index = it - list.begin();
  } else if (uses_argument(main, 0)) {
    throw Error(
        "the program is a multi-platform jax.export whose code depends on its "
        "_platform_index argument: give the export's platforms in order "
        "(CompileOptions::export_platforms, `hhlo run --export-platforms cpu,cuda`; JAX's "
        "Exported.platforms)");
  }
  bind_platform_index(m, index);
  return true;
}

/// `e` (a compile error of an MLIR bytecode program) with a note when the plugin refused dynamic
/// shapes: refinement to the input shapes needs the text form.
PjrtError with_bytecode_note(const PjrtError& e) {
  std::string message = e.what();
  bool dynamic = message.find("dynamic") != std::string::npos ||
                 message.find("can't be translated to XLA HLO") != std::string::npos;
  std::string prefix = PjrtError(e.function(), e.code(), "").what();
  if (message.starts_with(prefix)) message.erase(0, prefix.size());
  if (dynamic)
    message +=
        "\nthe program is MLIR bytecode, which hhlo cannot refine to the input shapes: shape "
        "refinement of a shape-polymorphic program needs the text form (e.g. jax.export's "
        "Exported.mlir_module() written to a .mlir file)";
  return PjrtError(e.function(), e.code(), message);
}

}  // namespace

LoadedExecutable Client::compile(std::string_view mlir, const CompileOptions& options) const {
  if (is_mlir_bytecode(mlir)) {
    if (names_other_entry(options))
      throw Error(fmt::format(
          "entry @{}: the program is MLIR bytecode; choosing an entry needs the text form",
          options.entry));
    try {
      return compile_program(mlir, options);
    } catch (const PjrtError& e) {
      throw with_bytecode_note(e);
    }
  }
  // Only text our parser reads goes to the plugin: what it refuses (deep nesting, a 100,000-digit
  // literal, a call cycle) is refused with its message, and never reaches the plugin's parser,
  // which recursed until SIGSEGV or took minutes on such texts.
  Module parsed = parse_module(mlir, {.source_name = "-", .verify = false});
  if (!prepare(parsed, options, *this)) return compile_program(mlir, options);
  return compile_program(to_mlir(parsed), options);
}

LoadedExecutable Client::compile(const Module& module, const CompileOptions& options) const {
  const Func* main = module.find("main");
  if (!names_other_entry(options) && main && !has_platform_index(*main))
    return compile_program(to_mlir(module), options);
  return compile(std::string_view(to_mlir(module)), options);
}

}  // namespace hhlo
