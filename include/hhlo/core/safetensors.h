// safetensors files (Hugging Face's format, what safetensors.flax, safetensors.numpy, PyTorch's
// and Hugging Face's model hubs and ReactantServer write): an 8-byte little-endian header length N,
// N bytes of JSON `{"NAME": {"dtype": "F32", "shape": [..], "data_offsets": [BEGIN, END]}, ...,
// "__metadata__": {str: str}}` (may be padded with spaces), then the byte buffer, offsets relative
// to its start. Spec: the safetensors README ("Format") and its reference reader
// (safetensors/src/tensor.rs, SafeTensors::read_metadata and Metadata::validate).
#pragma once

#include <cstddef>
#include <map>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "hhlo/core/array.h"

namespace hhlo {

/// The tensors of a safetensors file, in the order of its header, and its `__metadata__`.
struct Safetensors {
  /// (name, tensor) in header order; names are unique.
  std::vector<std::pair<std::string, Array>> tensors;
  /// The free-form string-to-string `__metadata__` map (empty when the file has none).
  std::map<std::string, std::string> metadata;
};

/// The largest header read or written: the reference implementation's limit (100,000,000 bytes).
inline constexpr std::size_t kSafetensorsMaxHeader = 100'000'000;

/// Reads the safetensors file `path` (read_file: a regular file, bounded by its size, or a
/// pipe, bounded by kMaxStreamBytes).
/// Dtypes read: BOOL (pred; any nonzero byte reads as true), U8, I8, U16, I16, U32, I32, U64,
/// I64, F16, BF16, F32, F64, C64 (complex64); little-endian, row-major.
/// Throws hhlo::IoError naming the file and the cause for every malformed file, as the spec and
/// its reference reader require: fewer than 8 bytes; a header length over 100,000,000 bytes or
/// past the end of the file; a header that does not begin with '{', is not UTF-8 JSON, is not an
/// object, or repeats a key; a `__metadata__` that is not an object of strings; an entry without
/// a known `dtype`, a `shape` of non-negative integers or two integer `data_offsets`; a dtype
/// hhlo has no type for (F8_*, F6_*, F4: named); a shape whose byte size overflows 64 bits or
/// differs from END - BEGIN; tensors that, ordered by offset, do not tile the byte buffer from 0
/// to its end with no gap and no overlap (the spec forbids holes: no polyglot files).
Safetensors read_safetensors(const std::string& path);

/// Parses safetensors `bytes` as read_safetensors does; `what` names the source in messages.
Safetensors parse_safetensors(std::span<const std::byte> bytes, const std::string& what);

/// The safetensors bytes of `tensors` with `metadata` (omitted when empty), as the reference
/// writer lays them out (safetensors' `prepare`): the tensors ordered by the spec's dtype order,
/// widest alignment first, then by name, packed with no gap; the compact JSON header padded
/// with spaces to a multiple of 8 bytes. For the same tensors and at most one metadata entry the
/// bytes equal safetensors.numpy.save's. Throws hhlo::Error for a repeated name, a c128 tensor
/// (safetensors has no 128-bit complex), a name or metadata string that is not valid UTF-8, and
/// a header longer than 100,000,000 bytes.
std::string serialize_safetensors(const std::vector<std::pair<std::string, Array>>& tensors,
                                  const std::map<std::string, std::string>& metadata = {});

/// Writes serialize_safetensors(tensors, metadata) to `path` atomically (write_file_atomically).
/// Throws hhlo::Error as serialize_safetensors does, hhlo::IoError naming the path when the
/// file cannot be written (the previous file, if any, is kept).
void write_safetensors(const std::string& path,
                       const std::vector<std::pair<std::string, Array>>& tensors,
                       const std::map<std::string, std::string>& metadata = {});

}  // namespace hhlo
