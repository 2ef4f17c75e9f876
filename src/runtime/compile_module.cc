// Client::compile(const Module&): the runtime's one use of the IR (DESIGN.md, layer rules).
#include "hhlo/runtime/client.h"

#if __has_include("hhlo/ir/printer.h")
#include "hhlo/ir/printer.h"

namespace hhlo {
LoadedExecutable Client::compile(const Module& module, const CompileOptions& options) const {
  return compile(to_mlir(module), options);
}
}  // namespace hhlo
#endif
