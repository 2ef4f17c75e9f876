#include "hhlo/core/array.h"

#include <complex>
#include <cstdlib>
#include <limits>
#include <new>

namespace hhlo {

void Array::Free::operator()(std::byte* p) const { std::free(p); }

Array::Array(DType dtype, Dims dims) : type_{dtype, std::move(dims)} {
  for (int64_t d : type_.dims)
    if (d < 0)
      throw Error("Array: dimension sizes must be static and non-negative, got [" +
                  dims_to_string(type_.dims) + "]");
  // The element count and byte size, checked: a wrapped product would allocate too little.
  int64_t n = 1;
  for (int64_t d : type_.dims)
    if (__builtin_mul_overflow(n, d, &n))
      throw Error("Array: shape [" + dims_to_string(type_.dims) +
                  "] has more elements than a 64-bit count holds");
  num_elements_ = n;
  if (__builtin_mul_overflow(static_cast<std::size_t>(n), hhlo::byte_size(dtype), &bytes_) ||
      bytes_ > std::numeric_limits<std::size_t>::max() - 63)
    throw Error("Array: " + type_.to_string() + " needs more bytes than a 64-bit size holds");
  std::size_t alloc = ((bytes_ + 63) / 64) * 64;
  if (alloc == 0) alloc = 64;
  auto* p = static_cast<std::byte*>(std::aligned_alloc(64, alloc));
  if (!p) throw std::bad_alloc();
  std::memset(p, 0, alloc);
  data_.reset(p);
}

Array Array::from_bytes(const TensorType& type, const void* bytes, std::size_t size) {
  Array a(type);
  if (size != a.byte_size())
    throw Error("Array::from_bytes: " + std::to_string(size) + " bytes given for " +
                type.to_string() + " which needs " + std::to_string(a.byte_size()));
  if (size) std::memcpy(a.data(), bytes, size);
  return a;
}

Array::Array(const Array& other) : Array(other.type_) {
  if (bytes_) std::memcpy(data(), other.data(), bytes_);
}

Array& Array::operator=(const Array& other) {
  if (this != &other) *this = Array(other);
  return *this;
}

void Array::check_type(DType t) const {
  if (t != type_.dtype)
    throw Error("Array: element type is " + std::string(dtype_name(type_.dtype)) + ", requested " +
                std::string(dtype_name(t)));
}

double Array::element_as_double(int64_t i) const {
  if (i < 0 || i >= num_elements_)
    throw Error("Array: index " + std::to_string(i) + " out of range for " + type_.to_string());
  return visit_dtype(dtype(), [&](auto tag) -> double {
    using T = decltype(tag);
    T v;
    std::memcpy(&v, static_cast<const std::byte*>(data()) + i * sizeof(T), sizeof(T));
    if constexpr (std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>)
      return static_cast<double>(v.real());
    else if constexpr (kIsFloatStruct<T>)
      return static_cast<double>(static_cast<float>(v));
    else if constexpr (kIsNarrowInt<T>)
      return static_cast<double>(v.value());
    else
      return static_cast<double>(v);
  });
}

Array Array::reshaped(Dims dims) const {
  Array a(dtype(), std::move(dims));
  if (a.num_elements() != num_elements_)
    throw Error("Array::reshaped: cannot reshape " + type_.to_string() + " to " +
                a.type().to_string());
  if (bytes_) std::memcpy(a.data(), data(), bytes_);
  return a;
}

bool Array::operator==(const Array& o) const {
  return type_ == o.type_ && (bytes_ == 0 || std::memcmp(data(), o.data(), bytes_) == 0);
}

}  // namespace hhlo
