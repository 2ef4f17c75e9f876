// Compiling programs made elsewhere (hhlo/program/compile.h).
#include "hhlo/program/compile.h"

namespace hhlo {

CompileOptions compile_options_for(const PreparedFacts& program, CompileOptions options) {
  if (program.num_partitions > 1 && options.num_partitions == 1) {
    options.num_partitions = program.num_partitions;
    options.use_spmd_partitioning = true;
    options.use_shardy_partitioner = program.shardy;
  }
  options.entry.clear();
  options.export_platforms.clear();
  return options;
}

LoadedExecutable compile(const Client& client, const PreparedProgram& program,
                         const CompileOptions& options, CompileCache* cache,
                         CacheOutcome* outcome) {
  CompileOptions o = compile_options_for(program, options);
  if (cache) return cache->compile(client, program.module, o, outcome);
  if (outcome) *outcome = CacheOutcome::disabled;
  return client.compile(program.module, o);
}

namespace {

PrepareOptions prepare_options(const Client& client, const CompileOptions& options) {
  return {.entry = options.entry,
          .export_platforms = options.export_platforms,
          .platform = client.platform_name()};
}

}  // namespace

LoadedExecutable compile(const Client& client, std::string_view program,
                         const CompileOptions& options) {
  Program read = read_program(program, {.source_name = "-"});
  return compile(client, prepare_program(std::move(read), prepare_options(client, options)),
                 options);
}

LoadedExecutable compile(const Client& client, Module module, const CompileOptions& options) {
  Program read{.module = std::move(module), .source_name = "module"};
  return compile(client, prepare_program(std::move(read), prepare_options(client, options)),
                 options);
}

}  // namespace hhlo
