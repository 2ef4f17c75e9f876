// Checking `hhlo run` / `hhlo bench` inputs against the parameter types of the executable the
// plugin compiled (the program's entry as the plugin read it), with messages naming the input.
#pragma once

#include <string>
#include <vector>

#include "hhlo/core/array.h"
#include "hhlo/core/tensor_type.h"
#include "hhlo/runtime/executable.h"

namespace hhlo::cli {

/// The global types an SPMD executable takes: shard dtype, global dims of its layout
/// (PJRT_Executable_GetParameterLayouts via LoadedExecutable::input_layouts).
std::vector<TensorType> global_input_types(const LoadedExecutable& exe);

/// Checks `inputs` (read from the files `names`, one per input) against the compiled program's
/// parameter types: count, dtype, then shape (a dynamic dimension takes any size). `entry` names
/// the function in messages (empty: @main). An input of bytes (ui8: a `.npy` of descr u1, or V1
/// as np.save writes an ml_dtypes int4/float8 array) for a parameter of a narrow type (i4,
/// f8E4M3FN, ...) becomes that type, each byte the element's bits. Throws hhlo::Error naming the
/// input, its file and the expected type (for bytes: the first byte with bits above the type's
/// width); also when the parameter types could not be read (it refuses to run on unchecked
/// inputs).
void check_inputs(const LoadedExecutable& exe, std::vector<Array>& inputs,
                  const std::vector<std::string>& names, const std::string& entry);

/// check_inputs against the parameter types `want` (the program's entry as read before
/// compiling: static_input_types, hhlo/program/load.h), for a command that checks its inputs
/// before it compiles (`hhlo tune`). Throws hhlo::Error as the overload above.
void check_inputs(const std::vector<TensorType>& want, std::vector<Array>& inputs,
                  const std::vector<std::string>& names, const std::string& entry);

}  // namespace hhlo::cli
