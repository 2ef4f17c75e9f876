// The runtime's check before compiling a Module as it is (compile_module.cc).
#pragma once

#include "hhlo/ir/module.h"
#include "hhlo/runtime/compile_options.h"

namespace hhlo::detail {

/// Throws hhlo::Error when `module` has no `@main`, or when options.entry names another function
/// or options.export_platforms is set: entry selection and platform binding are the program
/// stage's (hhlo/program/compile.h), and Client::compile runs `@main` as it is.
void check_compiles_as_given(const Module& module, const CompileOptions& options);

}  // namespace hhlo::detail
