// NumPy `.npz` archives: a zip of `.npy` members, member name "<name>.npy" (what numpy.savez
// writes and numpy.load reads). Model checkpoints (hhlo/nn/checkpoint.h) and the CLI's `.npz`
// inputs and outputs are read and written here.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <span>
#include <string>

#include "hhlo/core/array.h"

namespace hhlo {

/// The arrays of an `.npz` archive by member name (without ".npy"), in name order.
using NpzArrays = std::map<std::string, Array, std::less<>>;

/// Writes `arrays` to `path` (stored, uncompressed zip; CRC-32 from zlib; written atomically as
/// write_file_atomically writes). Throws hhlo::IoError when the file cannot be written,
/// hhlo::Error for an empty name.
void write_npz(const std::string& path, const NpzArrays& arrays);
/// Reads every `.npy` member of `path` (stored or deflated members).
/// Throws hhlo::IoError on a missing file, a corrupt archive, an unsupported member or a member
/// named only ".npy".
NpzArrays read_npz(const std::string& path);
/// Reads the `.npz` archive `bytes` (as read_npz reads a file's contents); `what` names the source
/// in error messages. Throws hhlo::IoError on a corrupt archive or an unsupported member.
NpzArrays parse_npz(std::span<const std::byte> bytes, const std::string& what);

}  // namespace hhlo
