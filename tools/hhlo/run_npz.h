// `.npz` inputs and outputs of `hhlo run`: archive members matched to @main's arguments and
// results by name.
#pragma once

#include <optional>
#include <string>
#include <string_view>
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

/// One `-i NAME=FILE` spec, split.
struct NamedInput {
  /// The argument's name: a pytree path such as "x", "arg0" or "args[0]['a=b']".
  std::string name;
  /// The `.npy` file.
  std::string file;
};

/// `spec` split at its first '=' after a complete pytree path: outside brackets ([...], also
/// nested) and outside the quotes of a key inside them ('...' or "...", with backslash escapes,
/// as JAX's keystr writes a dict key), so a key holding '=' or ']' stays in the name
/// (`args[0]['a=b']=x.npy` is the name "args[0]['a=b']" and the file "x.npy"). nullopt when there
/// is no such '=' (a plain path, or an unclosed bracket or quote). The name may be empty
/// ("=x.npy"). Never throws.
std::optional<NamedInput> split_named_input(std::string_view spec);

/// The file of each argument from `specs`, all NAME=FILE (split_named_input), in the order of the
/// arguments: `names.args` (or arg0, arg1, ... as many as there are specs when it is empty), each
/// also reachable as `arg<i>`. Reads no file. Throws hhlo::Error listing the unknown, repeated
/// and missing names with the program's names when they do not match, and one naming a spec that
/// is not NAME=FILE (or is the path of an existing file) among them.
std::vector<std::string> match_named_inputs(const std::vector<std::string>& specs,
                                            const IoNames& names);

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
