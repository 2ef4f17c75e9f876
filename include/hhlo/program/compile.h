// Compiling programs: the program stage (hhlo/program/program.h) in front of the runtime's
// Client::compile. Text and MLIR bytecode alike are read once by our readers, and a Module is
// printed here (print_program); nothing reaches the plugin that they did not read and the
// verifier did not pass, or that the IR's builders did not build.
#pragma once

#include <string_view>

#include "hhlo/ir/module.h"
#include "hhlo/program/program.h"
#include "hhlo/runtime/client.h"
#include "hhlo/runtime/compile_cache.h"

namespace hhlo {

/// `module` printed for the runtime (to_mlir), whose `@main` the plugin runs as it is. Throws
/// hhlo::Error when the module has no `@main` (select_entry in hhlo/ir/entry.h renames another
/// function; prepare_program chooses one).
PrintedProgram print_program(const Module& module);

/// Compiles `module`'s `@main` as it is (print_program, then Client::compile): a Module built with
/// the IR's builders, or one already prepared. Throws what print_program and Client::compile
/// throw.
LoadedExecutable compile(const Client& client, const Module& module,
                         const CompileOptions& options = {});

/// `options` for compiling `program`: with `program.num_partitions` > 1 and options.num_partitions
/// left at 1, num_partitions and use_spmd_partitioning set, and use_shardy_partitioner when
/// `program.shardy`.
CompileOptions compile_options_for(const PreparedFacts& program, CompileOptions options);

/// Compiles a prepared program (print_program of its module, Client::compile with
/// compile_options_for), through `cache` (the persistent compile cache) when not null; `outcome`
/// (if not null) says what the cache did; the constants hoisted out of it
/// (PreparedProgram::hoisted) bound to the executable (bind_hoisted,
/// hhlo/program/hoist_constants.h). Throws what Client::compile and bind_hoisted throw.
LoadedExecutable compile(const Client& client, const PreparedProgram& program,
                         const CompileOptions& options = {}, CompileCache* cache = nullptr,
                         CacheOutcome* outcome = nullptr);

/// Compiles a StableHLO program, MLIR text or bytecode (the plugin runs `@main`): read_program
/// (verified), then prepare_program with `prepare` (its platform set to the client's: entry ""
/// is `@main` or the only public function; no refinement unless prepare.arg_types are given),
/// then compile. Throws hhlo::ParseError (or a call cycle's hhlo::Error, or the verifier's
/// hhlo::ShapeError) for a program our readers refuse, which never reaches the plugin;
/// hhlo::Error when the entry cannot be chosen (the public functions are listed) or the platform
/// index is read and prepare.export_platforms does not name the client's platform; what
/// prepare_program and Client::compile throw.
LoadedExecutable compile(const Client& client, std::string_view program,
                         const CompileOptions& options = {}, PrepareOptions prepare = {});

}  // namespace hhlo
