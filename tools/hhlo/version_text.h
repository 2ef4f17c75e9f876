// `hhlo --version`: what main.cc prints for it.
#pragma once

#include <string>

namespace hhlo::cli {

/// The lines `hhlo --version` prints: "hhlo MAJOR.MINOR.PATCH" (hhlo::version(), the library
/// linked), then the PJRT C API version of hhlo's own declarations. Loads no plugin (`hhlo
/// devices` loads one and prints its XLA and StableHLO versions).
std::string version_text();

}  // namespace hhlo::cli
