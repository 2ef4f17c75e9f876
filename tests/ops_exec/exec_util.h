// Shared fixture of the execution tests: compile a Module on the CPU plugin and run @main.
#pragma once

#include <string>
#include <vector>

#include "hhlo/core/array.h"
#include "hhlo/ir/module.h"

namespace hhlo::test {

/// Verifies `m` (hhlo::verify), then compiles (cached) and runs @main on the CPU plugin through
/// hhlo::run (session.h); returns all outputs copied to the host.
std::vector<Array> run(const Module& m, const std::vector<Array>& args = {});

/// Element values of `a` as doubles (complex: real parts), for EXPECT comparisons.
std::vector<double> values(const Array& a);

}  // namespace hhlo::test
