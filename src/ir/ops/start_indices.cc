// Unsigned start indices made signed (see start_indices.h for why).
#include "start_indices.h"

#include <algorithm>
#include <limits>

#include "hhlo/core/array.h"

namespace hhlo::detail {
namespace {

uint64_t max_unsigned(DType t) {
  int bits = bit_width(t);
  return bits >= 64 ? std::numeric_limits<uint64_t>::max() : (uint64_t{1} << bits) - 1;
}

}  // namespace

DType signed_index_type(DType t) {
  switch (t) {
    case DType::ui2:
    case DType::ui4:
      return DType::i8;
    case DType::ui8:
      return DType::i16;
    case DType::ui16:
      return DType::i32;
    case DType::ui32:
    case DType::ui64:
      return DType::i64;
    default:
      return t;
  }
}

Value signed_start_index(Value index, int64_t bound, Loc loc) {
  return signed_start_indices(index, index.type().rank(), {bound}, loc);
}

Value signed_start_indices(Value indices, int64_t index_vector_dim,
                           const std::vector<int64_t>& bounds, Loc loc) {
  DType u = indices.dtype();
  if (!is_unsigned_int(u) || bounds.empty()) return indices;
  Func& f = indices.func();
  const TensorType& type = indices.type();
  // Every bound is >= 0 (the op's shape rule checked size <= dim); cap them at the type's range.
  std::vector<uint64_t> caps;
  for (int64_t b : bounds)
    caps.push_back(
        std::min<uint64_t>(static_cast<uint64_t>(std::max<int64_t>(b, 0)), max_unsigned(u)));
  bool needed =
      std::any_of(caps.begin(), caps.end(), [&](uint64_t c) { return c < max_unsigned(u); });
  Value v = indices;
  if (needed) {
    bool equal = std::all_of(caps.begin(), caps.end(), [&](uint64_t c) { return c == caps[0]; });
    bool component_dim = index_vector_dim < type.rank();
    if (equal || !component_dim || !type.is_static()) {
      uint64_t cap = *std::max_element(caps.begin(), caps.end());
      v = clamp(constant(f, uint64_t{0}, u, {}, loc), v, constant(f, cap, u, {}, loc), loc);
    } else {
      Array per_component(u, {static_cast<int64_t>(caps.size())});
      visit_dtype(u, [&](auto zero) {
        using T = decltype(zero);
        if constexpr (std::is_unsigned_v<T> || kIsNarrowInt<T>) {
          auto p = static_cast<T*>(per_component.data());
          for (size_t k = 0; k < caps.size(); ++k) p[k] = static_cast<T>(caps[k]);
        }
      });
      Value c =
          broadcast_in_dim(constant(f, per_component, loc), type.dims, {index_vector_dim}, loc);
      v = minimum(v, c, loc);
    }
  }
  return convert(v, signed_index_type(u), loc);
}

}  // namespace hhlo::detail
