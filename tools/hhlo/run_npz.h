// Inputs and outputs of `hhlo run` by name: `-i NAME=FILE.npy`, `-i PATH=FILE.safetensors` (the
// tensors of one safetensors file bound to every leaf under a pytree path) and `.npz` archives,
// matched to @main's arguments and results by name.
#pragma once

#include <functional>
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

/// Where one argument's array comes from: a `.npy` file, or one tensor of a safetensors file.
struct InputSource {
  std::string file;
  /// For a `.safetensors` file: the key of the argument's tensor (safetensors_key).
  std::optional<std::string> key;
  bool operator==(const InputSource&) const = default;
};

/// The safetensors key of the leaf whose pytree path below the bound path is `rest` (JAX's
/// keystr: "['dense']['kernel']", "[1]", ".h"): the entries joined with '.' ("dense.kernel",
/// "1", "h"), as Flax's `flatten_dict(params, sep=".")` and `safetensors.flax` name a flattened
/// pytree. A dict key is unquoted as JAX's DictKey prints it (Python's repr of a str: backslash
/// escapes). nullopt when `rest` is empty or not such a path. Never throws.
std::optional<std::string> safetensors_key(std::string_view rest);

/// The source of each argument from `specs`, all NAME=FILE (split_named_input), in the order of
/// the arguments: `names.args` (or arg0, arg1, ... as many as there are specs when it is empty),
/// each also reachable as `arg<i>`. A FILE ending in `.safetensors` binds every argument whose
/// name is NAME followed by a further path ('[' or '.'), each to the tensor keyed by that path
/// (safetensors_key). Reads no file. Throws hhlo::Error listing the unknown, repeated and missing
/// names with the program's names when they do not match (a safetensors NAME with no argument
/// below it is unknown), one naming two arguments under one safetensors NAME that have the same
/// key, and one naming a spec that is not NAME=FILE (or is the path of an existing file).
std::vector<InputSource> match_named_inputs(const std::vector<std::string>& specs,
                                            const IoNames& names);

/// The inputs of `hhlo run -i ...`, in three forms: each `.npy` file is the next argument; each
/// `NAME=FILE.npy` gives the argument NAME (io_names, hhlo/program/program.h: e.g. "x",
/// "args[0]['w']" of a jax.export artifact, or `arg<i>` for any argument), and each
/// `PATH=FILE.safetensors` every argument under the pytree path PATH (match_named_inputs), and
/// then every argument must be given so, once; a `.npz` archive gives every argument by name
/// (member `<name>.npy`, or `arg<i>`), and must then be the only input. A spec with '=' that is
/// the path of an existing file is a file. Throws hhlo::IoError for unreadable or malformed files
/// (read_safetensors) and hhlo::Error naming the missing, repeated and unknown names (and the
/// argument names) when the names do not match, the keys a safetensors file lacks and the
/// tensors it holds that no argument takes, when named and positional inputs are mixed, and for
/// a `.safetensors` file given without a pytree path. A single input whose path has none of the
/// extensions .npy, .npz, .safetensors (a pipe: `-i <(cat x.npz)`, /dev/stdin) is read once and
/// taken by its content: a zip archive as an .npz, anything else as an .npy. `names` is called
/// only when the inputs are bound by name (it reads the program's signature).
Inputs read_inputs(const std::vector<std::string>& specs,
                   const std::function<const IoNames&()>& names);

/// Writes `outputs` to the `.npz` archive `path`, member `<name>.npy` per result (names from
/// io_names; `out<i>` for results beyond them). Throws hhlo::IoError when it cannot be written.
void write_outputs_npz(const std::string& path, const std::vector<Array>& outputs,
                       const IoNames& names);

/// The keys of the outputs in a safetensors file (-o FILE.safetensors): each result's name below
/// JAX's leading "result" as safetensors_key makes it ("result['params']['w']" -> "params.w", so
/// a train step's new parameters feed back as `-i "args[0]=FILE.safetensors"`) when every result
/// has one and they are distinct; else `stems` (the output file stems). Never throws.
std::vector<std::string> output_keys(const std::vector<std::string>& results,
                                     const std::vector<std::string>& stems);

/// Writes `outputs` to the safetensors file `path` (write_safetensors), keyed by `keys`
/// (output_keys). Throws hhlo::Error for an output safetensors cannot hold (c128), hhlo::IoError
/// when the file cannot be written.
void write_outputs_safetensors(const std::string& path, const std::vector<Array>& outputs,
                               const std::vector<std::string>& keys);

}  // namespace hhlo::cli
