// Compiling programs made elsewhere: the program stage (hhlo/program/program.h) in front of the
// runtime's Client::compile. Text and MLIR bytecode alike are read once by our readers; nothing
// reaches the plugin that they did not read and the verifier did not pass.
#pragma once

#include <string_view>

#include "hhlo/program/program.h"
#include "hhlo/runtime/client.h"
#include "hhlo/runtime/compile_cache.h"

namespace hhlo {

/// `options` for compiling `program`: with `program.num_partitions` > 1 and options.num_partitions
/// left at 1, num_partitions and use_spmd_partitioning set, and use_shardy_partitioner when
/// `program.shardy`; entry and export_platforms cleared (the prepared `@main` is the entry, its
/// platform index bound).
CompileOptions compile_options_for(const PreparedFacts& program, CompileOptions options);

/// Compiles a prepared program (Client::compile of its module with compile_options_for), through
/// `cache` (the persistent compile cache) when not null; `outcome` (if not null) says what the
/// cache did. Throws what Client::compile throws.
LoadedExecutable compile(const Client& client, const PreparedProgram& program,
                         const CompileOptions& options = {}, CompileCache* cache = nullptr,
                         CacheOutcome* outcome = nullptr);

/// Compiles a StableHLO program, MLIR text or bytecode (the plugin runs `@main`): read_program
/// (verified), then prepare_program with options.entry (none: `@main`, or the only public
/// function), options.export_platforms and the client's platform (no refinement: a dynamic entry
/// needs prepare_program's arg_types), then compile. Throws hhlo::ParseError (or a call cycle's
/// hhlo::Error, or the verifier's hhlo::ShapeError) for a program our readers refuse, which never
/// reaches the plugin; hhlo::Error when the entry cannot be chosen (the public functions are
/// listed) or the platform index is read and options.export_platforms does not name the client's
/// platform; and what Client::compile throws.
LoadedExecutable compile(const Client& client, std::string_view program,
                         const CompileOptions& options = {});

/// compile of a Module built or read elsewhere: prepare_program with options.entry and
/// options.export_platforms, then Client::compile. Throws as prepare_program and Client::compile.
LoadedExecutable compile(const Client& client, Module module, const CompileOptions& options);

}  // namespace hhlo
