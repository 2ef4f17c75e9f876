// A dense host array: element type, dimensions and 64-byte aligned row-major storage, plus `.npy`
// file I/O. The unit of data that moves between the host and PJRT buffers.
#pragma once

#include <cstddef>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "hhlo/core/error.h"
#include "hhlo/core/tensor_type.h"

namespace hhlo {

/// Dense row-major (C order) host array. Storage is 64-byte aligned (the alignment XLA:CPU needs
/// for zero-copy) and zero-initialised. Copying copies the data; moving is cheap.
class Array {
 public:
  /// Empty f32 scalar-less array (0 elements, rank 1).
  Array() : Array(DType::f32, Dims{0}) {}
  /// Zero-filled array of the given type and static dims. Throws hhlo::Error on a dynamic or
  /// negative dimension, or when the element count or the byte size overflows 64 bits (e.g.
  /// [4611686018427387904, 4]); std::bad_alloc when the storage cannot be allocated.
  Array(DType dtype, Dims dims);
  explicit Array(const TensorType& type) : Array(type.dtype, type.dims) {}

  /// Array of type `dtype_of<T>` and `dims` holding `values` in row-major order.
  /// Throws hhlo::Error when values.size() differs from the element count.
  template <typename T>
  static Array from(Dims dims, std::span<const T> values) {
    Array a(dtype_of<T>, std::move(dims));
    if (static_cast<int64_t>(values.size()) != a.num_elements())
      throw Error("Array::from: " + std::to_string(values.size()) + " values for shape [" +
                  dims_to_string(a.dims()) + "] of " + std::to_string(a.num_elements()) +
                  " elements");
    if (!values.empty()) std::memcpy(a.data(), values.data(), a.byte_size());
    return a;
  }
  template <typename T>
  static Array from(Dims dims, std::initializer_list<T> values) {
    return from<T>(std::move(dims), std::span<const T>(values.begin(), values.size()));
  }
  template <typename T>
  static Array from(Dims dims, const std::vector<T>& values) {
    if constexpr (std::is_same_v<T, bool>) {
      std::vector<uint8_t> bytes(values.begin(), values.end());
      Array a(DType::pred, std::move(dims));
      if (static_cast<int64_t>(bytes.size()) != a.num_elements())
        throw Error("Array::from: " + std::to_string(bytes.size()) + " values for shape [" +
                    dims_to_string(a.dims()) + "]");
      if (!bytes.empty()) std::memcpy(a.data(), bytes.data(), bytes.size());
      return a;
    } else {
      return from<T>(std::move(dims), std::span<const T>(values));
    }
  }
  /// Rank-0 array holding `value`.
  template <typename T>
  static Array scalar(T value) {
    return from<T>(Dims{}, std::span<const T>(&value, 1));
  }
  /// Array of `type` whose bytes are copied from `bytes` (must be exactly type.byte_size() long).
  static Array from_bytes(const TensorType& type, const void* bytes, std::size_t size);

  Array(const Array& other);
  Array& operator=(const Array& other);
  Array(Array&&) noexcept = default;
  Array& operator=(Array&&) noexcept = default;

  DType dtype() const { return type_.dtype; }
  const Dims& dims() const { return type_.dims; }
  const TensorType& type() const { return type_; }
  int64_t rank() const { return type_.rank(); }
  int64_t num_elements() const { return num_elements_; }
  std::size_t byte_size() const { return bytes_; }

  void* data() { return data_.get(); }
  const void* data() const { return data_.get(); }
  /// Typed view; throws hhlo::Error when T does not match dtype().
  template <typename T>
  std::span<T> values() {
    check_type(dtype_of<T>);
    return {static_cast<T*>(data()), static_cast<std::size_t>(num_elements_)};
  }
  template <typename T>
  std::span<const T> values() const {
    check_type(dtype_of<T>);
    return {static_cast<const T*>(data()), static_cast<std::size_t>(num_elements_)};
  }
  /// Copy of the elements; for pred arrays use T = bool.
  template <typename T>
  std::vector<T> to_vector() const {
    if constexpr (std::is_same_v<T, bool>) {
      check_type(DType::pred);
      auto p = static_cast<const uint8_t*>(data());
      return std::vector<bool>(p, p + num_elements_);
    } else {
      auto v = values<T>();
      return {v.begin(), v.end()};
    }
  }
  /// Element `i` (row-major index) converted to double (complex: real part). For tests and
  /// printing.
  double element_as_double(int64_t i) const;
  /// Same element type, same number of elements, new dims. Throws hhlo::Error on a count mismatch.
  Array reshaped(Dims dims) const;
  /// Bytes equal and same type.
  bool operator==(const Array& other) const;

 private:
  void check_type(DType t) const;
  struct Free {
    void operator()(std::byte* p) const;
  };
  TensorType type_;
  int64_t num_elements_ = 0;
  std::size_t bytes_ = 0;
  std::unique_ptr<std::byte[], Free> data_;
};

/// Reads a NumPy `.npy` file (format 1.0/2.0/3.0; numpy.lib.format). Supported descrs: b1 (pred),
/// i1 i2 i4 i8, u1 u2 u4 u8, f2 f4 f8, c8 c16, and bfloat16 as written by ml_dtypes (`V2`, read
/// as bf16: raw 2-byte void has no other meaning for us), each in any byte order (`<`, `>`, `=`,
/// `|`): big-endian data is byte-swapped (complex: each part). `fortran_order: True` data is
/// transposed, so the result is always the logical array in row-major order. Bool bytes other
/// than 0 are read as true (1), as NumPy does.
/// Throws hhlo::IoError naming the file and the cause for: a missing/unreadable file, bad magic
/// or version, a header that is not the dict NumPy writes (no closing `}`, an unclosed or
/// malformed `shape` tuple, a negative dimension, a structured dtype, a missing or unexpected
/// key), an unsupported dtype, a shape whose element count or byte size overflows 64 bits, and
/// truncated data.
Array read_npy(const std::string& path);
/// Parses `.npy` bytes (as read_npy does); `what` names the source in error messages.
Array parse_npy(std::span<const std::byte> bytes, const std::string& what);
/// Writes `.npy` in this machine's byte order, C order: format 1.0, or 2.0 when the header is
/// longer than 1.0's 16-bit length allows (as NumPy does); data 64-byte aligned in the file.
/// bf16 is written as `<V2`, the ml_dtypes convention.
/// Throws hhlo::IoError naming the path when the file cannot be written.
void write_npy(const std::string& path, const Array& array);
/// The `.npy` file contents for `array`, as write_npy writes them.
std::string serialize_npy(const Array& array);

}  // namespace hhlo
