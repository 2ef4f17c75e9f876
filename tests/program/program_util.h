// Helpers of the program stage's tests: the CPU client and a text run as `hhlo run` runs it.
#pragma once

#include <string>
#include <vector>

#include "hhlo/core/array.h"
#include "hhlo/runtime/client.h"

namespace hhlo::test {

/// One CPU client for the test process.
const Client& cpu();

/// Outputs of `text` loaded through the program stage (hhlo::compile of the text: the spec
/// rewrites, the readers of every form), run on `args`.
std::vector<Array> run_text(const std::string& text, const std::vector<Array>& args);

}  // namespace hhlo::test
