// Client::compile(const Module&): the module printed once and compiled as it is. The runtime's use
// of the IR (DESIGN.md, layer rules): the Module and its printer; reading programs made elsewhere,
// entry selection and platform binding are the program stage's (hhlo/program/compile.h).
#include "compile_module.h"

#include <fmt/format.h>

#include "hhlo/ir/module.h"
#include "hhlo/ir/printer.h"
#include "hhlo/runtime/client.h"

namespace hhlo {
namespace detail {

void check_compiles_as_given(const Module& module, const CompileOptions& options) {
  if (!options.entry.empty() && options.entry != "main")
    throw Error(fmt::format(
        "CompileOptions::entry '{}': Client::compile runs the module's @main as it is; choose "
        "another entry through the program stage (hhlo::compile, hhlo/program/compile.h)",
        options.entry));
  if (!options.export_platforms.empty())
    throw Error(
        "CompileOptions::export_platforms: Client::compile compiles the module as it is; bind a "
        "multi-platform export's platform index through the program stage (hhlo::compile, "
        "hhlo/program/compile.h)");
  if (!module.find("main"))
    throw Error(
        "Client::compile: the module has no @main (plugins run @main; select_entry in "
        "hhlo/ir/entry.h renames another function)");
}

}  // namespace detail

LoadedExecutable Client::compile(const Module& module, const CompileOptions& options) const {
  detail::check_compiles_as_given(module, options);
  return compile_program(to_mlir(module), options);
}

}  // namespace hhlo
