// The program text the runtime compiles: what the program stage printed (DESIGN.md "Layers").
#pragma once

#include <string>
#include <string_view>
#include <utility>

namespace hhlo {

namespace detail {
struct PrintedProgramMaker;
struct PluginTextProbe;
}  // namespace detail

/// MLIR text for PJRT_Client_Compile (format "mlir") that hhlo's printer wrote from a Module
/// its readers read or its builders built: made only by the program stage (print_program in
/// hhlo/program/compile.h), so nothing reaches the plugin that our readers did not read (the
/// plugins' own MLIR readers abort the process on some inputs: docs/facts.md). Client::compile
/// and CompileCache::compile take it; the runtime never reads it. Cheap to move.
class PrintedProgram {
 public:
  /// The MLIR text.
  std::string_view text() const { return text_; }

 private:
  friend struct detail::PrintedProgramMaker;  // the program stage's print_program
  friend struct detail::PluginTextProbe;      // tests of the plugins' own readers
  explicit PrintedProgram(std::string text) : text_(std::move(text)) {}
  std::string text_;
};

}  // namespace hhlo
