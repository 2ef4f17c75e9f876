// Shared fixture of the execution tests: compile a Module on the CPU plugin and run @main.
#pragma once

#include <string>
#include <vector>

#include "hhlo/core/array.h"
#include "hhlo/ir/module.h"
#include "hhlo/runtime/compile_options.h"

namespace hhlo::test {

/// Verifies `m` (hhlo::verify), then compiles (cached) and runs @main on the CPU plugin through
/// hhlo::run (session.h); returns all outputs copied to the host.
std::vector<Array> run(const Module& m, const std::vector<Array>& args = {});

/// Verifies `m`, compiles it on the session's CPU client (4 devices) with `options` (e.g.
/// num_replicas = 4) and runs @main on every device at once: `args[d]` are device d's arguments.
/// Returns the outputs per device, copied to the host.
std::vector<std::vector<Array>> run_per_device(const Module& m, const CompileOptions& options,
                                               const std::vector<std::vector<Array>>& args);

/// Asserts that the CPU plugin refuses to compile `m` with `options`: a PjrtError whose message
/// contains `why`. Its ops then count as covered by a recorded refusal (the coverage check
/// lists them apart), so an op the plugin cannot run is still named by a test that fails once
/// the plugin starts to accept it.
void expect_refused_by_plugin(const Module& m, const CompileOptions& options,
                              const std::string& why);

/// Element values of `a` as doubles (complex: real parts), for EXPECT comparisons.
std::vector<double> values(const Array& a);

}  // namespace hhlo::test
