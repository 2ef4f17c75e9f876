// `.npz` inputs and outputs of `hhlo run`: archive members matched to @main's arguments and
// results by name.
#pragma once

#include <string>
#include <vector>

#include "hhlo/core/array.h"
#include "hhlo/program/program.h"

namespace hhlo::cli {

using hhlo::IoNames;

/// The inputs of `hhlo run -i ...`: each `.npy` file is the next argument; a `.npz` archive gives
/// every argument by name (member `<name>.npy`, `name` from io_names (hhlo/program/program.h), or
/// `arg<i>` for any argument), and must then be the only input. Throws hhlo::IoError for unreadable
/// files and hhlo::Error naming the missing and unused members when the archive does not match.
std::vector<Array> read_inputs(const std::vector<std::string>& paths, const IoNames& names);

/// Writes `outputs` to the `.npz` archive `path`, member `<name>.npy` per result (names from
/// io_names; `out<i>` for results beyond them). Throws hhlo::IoError when it cannot be written.
void write_outputs_npz(const std::string& path, const std::vector<Array>& outputs,
                       const IoNames& names);

}  // namespace hhlo::cli
