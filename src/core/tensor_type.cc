#include "hhlo/core/tensor_type.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "hhlo/core/error.h"

namespace hhlo {

int64_t num_elements(const Dims& dims) {
  int64_t n = 1;
  for (int64_t d : dims)
    if (d < 0)
      throw Error("num_elements: shape " + dims_to_string(dims) + " has a dynamic dimension");
  // A 0 dimension means no elements, however large the others (their product may overflow).
  if (std::find(dims.begin(), dims.end(), 0) != dims.end()) return 0;
  for (int64_t d : dims) {
    if (__builtin_mul_overflow(n, d, &n))
      throw Error("num_elements: shape " + dims_to_string(dims) +
                  " has more elements than a 64-bit count holds");
  }
  return n;
}

std::string dims_to_string(const Dims& dims) {
  std::string s;
  for (std::size_t i = 0; i < dims.size(); ++i) {
    if (i) s += 'x';
    s += dims[i] == kDynamic ? std::string("?") : std::to_string(dims[i]);
  }
  return s;
}

bool TensorType::is_static() const {
  for (int64_t d : dims)
    if (d < 0) return false;
  return true;
}

int64_t TensorType::byte_size() const {
  int64_t bytes;
  if (__builtin_mul_overflow(num_elements(), static_cast<int64_t>(hhlo::byte_size(dtype)), &bytes))
    throw Error("byte_size: " + to_string() + " needs more bytes than a 64-bit size holds");
  return bytes;
}

std::string TensorType::to_string() const {
  if (dtype == DType::token) return std::string(mlir_name(dtype));
  if (dims.empty()) return fmt::format("tensor<{}>", mlir_name(dtype));
  return fmt::format("tensor<{}x{}>", dims_to_string(dims), mlir_name(dtype));
}

TensorType parse_tensor_type(const std::string& text) {
  auto fail = [&]() -> TensorType {
    throw Error("cannot parse tensor type '" + text + "' (expected e.g. tensor<2x3xf32>)");
  };
  std::string_view s = text;
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  if (s == mlir_name(DType::token)) return TensorType{DType::token, {}};
  if (!s.starts_with("tensor<") || !s.ends_with(">")) return fail();
  s = s.substr(7, s.size() - 8);
  TensorType t;
  while (!s.empty() && (std::isdigit(static_cast<unsigned char>(s[0])) || s[0] == '?')) {
    int64_t d = kDynamic;
    std::size_t len = 1;
    if (s[0] != '?') {
      auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), d);
      if (ec != std::errc()) return fail();
      len = static_cast<std::size_t>(p - s.data());
    }
    if (len >= s.size() || s[len] != 'x') return fail();
    t.dims.push_back(d);
    s.remove_prefix(len + 1);
  }
  try {
    t.dtype = dtype_from_mlir(s);
  } catch (const Error&) {
    return fail();
  }
  if (t.dtype == DType::token) return fail();
  return t;
}

}  // namespace hhlo
