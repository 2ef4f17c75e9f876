// Parameter checkpoints as NumPy `.npz` archives (a zip of `.npy` members, one per parameter,
// member name "<param name>.npy"; readable with numpy.load): ad::ParamArrays through the reader
// and writer of hhlo/core/npz.h.
#pragma once

#include <cstddef>
#include <span>
#include <string>

#include "hhlo/autodiff/params.h"

namespace hhlo::nn {

/// Writes `params` to `path` (stored, uncompressed zip; CRC-32 from zlib).
/// Throws hhlo::IoError when the file cannot be written.
void save_npz(const std::string& path, const ad::ParamArrays& params);
/// Reads every `.npy` member of `path` (stored or deflated members).
/// Throws hhlo::IoError on a missing file, a corrupt archive or an unsupported member.
ad::ParamArrays load_npz(const std::string& path);
/// Reads the `.npz` archive `bytes` (as load_npz reads a file's contents); `what` names the source
/// in error messages. Throws hhlo::IoError on a corrupt archive or an unsupported member.
ad::ParamArrays parse_npz(std::span<const std::byte> bytes, const std::string& what);

}  // namespace hhlo::nn
