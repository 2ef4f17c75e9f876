// Shared fixtures of the runtime tests: one CPU client for the whole test binary.
#pragma once

#include "hhlo/program/program.h"
#include "hhlo/runtime/client.h"

namespace hhlo::test {

/// The CPU client with 4 devices (cpu_device_count = 4), created once.
const Client& cpu();

/// Compiles `mlir` on cpu().
LoadedExecutable compile(const std::string& mlir, const CompileOptions& options = {},
                         const PrepareOptions& prepare = {});

/// Copies each array to device 0 of cpu(), executes, and copies all outputs back.
std::vector<Array> run(const LoadedExecutable& exe, const std::vector<Array>& args);

}  // namespace hhlo::test
