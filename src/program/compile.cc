// Compiling programs (hhlo/program/compile.h).
#include "hhlo/program/compile.h"

#include "hhlo/ir/printer.h"
#include "hhlo/program/hoist_constants.h"

namespace hhlo {
namespace detail {

/// The program stage's way to make the text the runtime compiles (PrintedProgram's friend).
struct PrintedProgramMaker {
  static PrintedProgram make(std::string text) { return PrintedProgram(std::move(text)); }
};

}  // namespace detail

PrintedProgram print_program(const Module& module) {
  if (!module.find("main"))
    throw Error(
        "the module has no @main to compile (plugins run @main; select_entry in hhlo/ir/entry.h "
        "renames another function, and hhlo::compile of a program's text chooses its entry)");
  return detail::PrintedProgramMaker::make(to_mlir(module));
}

LoadedExecutable compile(const Client& client, const Module& module,
                         const CompileOptions& options) {
  return client.compile(print_program(module), options);
}

CompileOptions compile_options_for(const PreparedFacts& program, CompileOptions options) {
  if (program.num_partitions > 1 && options.num_partitions == 1) {
    options.num_partitions = program.num_partitions;
    options.use_spmd_partitioning = true;
    options.use_shardy_partitioner = program.shardy;
  }
  return options;
}

LoadedExecutable compile(const Client& client, const PreparedProgram& program,
                         const CompileOptions& options, CompileCache* cache,
                         CacheOutcome* outcome) {
  CompileOptions o = compile_options_for(program, options);
  LoadedExecutable exe = [&] {
    if (cache) return cache->compile(client, print_program(program.module), o, outcome);
    if (outcome) *outcome = CacheOutcome::disabled;
    return compile(client, program.module, o);
  }();
  bind_hoisted(exe, client, program.hoisted);
  return exe;
}

LoadedExecutable compile(const Client& client, std::string_view program,
                         const CompileOptions& options, PrepareOptions prepare) {
  Program read = read_program(program, {.source_name = "-"});
  prepare.platform = client.platform_name();
  return compile(client, prepare_program(std::move(read), prepare), options);
}

}  // namespace hhlo
