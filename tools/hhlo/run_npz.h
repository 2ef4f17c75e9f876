// `.npz` inputs and outputs of `hhlo run`: archive members matched to @main's arguments and
// results by name.
#pragma once

#include <string>
#include <vector>

#include "hhlo/core/array.h"
#include "hhlo/program/program.h"

namespace hhlo::cli {

using hhlo::IoNames;

/// The inputs of `hhlo run -i ...` and a label for each (for messages: the file, "A.npz:name",
/// "name=file").
struct Inputs {
  std::vector<Array> arrays;
  std::vector<std::string> labels;
};

/// The inputs of `hhlo run -i ...`, in three forms: each `.npy` file is the next argument; each
/// `NAME=FILE.npy` gives the argument NAME (io_names, hhlo/program/program.h: e.g. "x",
/// "args[0]['w']" of a jax.export artifact, or `arg<i>` for any argument), and then every
/// argument must be given so, once; a `.npz` archive gives every argument by name (member
/// `<name>.npy`, or `arg<i>`), and must then be the only input. A spec with '=' that is the path
/// of an existing file is a file. Throws hhlo::IoError for unreadable files and hhlo::Error
/// naming the missing, repeated and unknown names (and the argument names) when the names do
/// not match, or when named and positional inputs are mixed.
Inputs read_inputs(const std::vector<std::string>& specs, const IoNames& names);

/// Writes `outputs` to the `.npz` archive `path`, member `<name>.npy` per result (names from
/// io_names; `out<i>` for results beyond them). Throws hhlo::IoError when it cannot be written.
void write_outputs_npz(const std::string& path, const std::vector<Array>& outputs,
                       const IoNames& names);

}  // namespace hhlo::cli
