// Parameter checkpoints: ad::ParamArrays as NumPy `.npz` archives (a zip of `.npy` members, one
// per parameter, member name "<param name>.npy"; readable with numpy.load), through the reader and
// writer of hhlo/core/npz.h, or as safetensors files (one tensor per parameter, keyed by its
// name; readable with safetensors.numpy.load_file), through hhlo/core/safetensors.h.
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

/// Writes `params` to the safetensors file `path`, one tensor per parameter keyed by its name,
/// atomically (write_safetensors). Throws hhlo::Error for a c128 parameter (safetensors has no
/// 128-bit complex) or a name that is not UTF-8, hhlo::IoError when the file cannot be written.
void save_safetensors(const std::string& path, const ad::ParamArrays& params);
/// Reads every tensor of the safetensors file `path` as a parameter named by its key.
/// Throws hhlo::IoError naming the file and the cause for a missing or malformed file (what
/// read_safetensors throws).
ad::ParamArrays load_safetensors(const std::string& path);

/// True when `path` names a safetensors file (it ends in ".safetensors"); the checkpoint
/// functions below write and read that format then, else `.npz`.
bool is_safetensors_path(const std::string& path);
/// save_safetensors when is_safetensors_path(path), else save_npz.
void save_params(const std::string& path, const ad::ParamArrays& params);
/// load_safetensors when is_safetensors_path(path), else load_npz.
ad::ParamArrays load_params(const std::string& path);

}  // namespace hhlo::nn
