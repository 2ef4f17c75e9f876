// Element types of StableHLO tensors (spec section "Types": TensorElementType) and their host
// representation.
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace hhlo {

/// The element types HHLO-C++ supports. MLIR spellings: i1, i8..i64, ui8..ui64, f16, bf16, f32,
/// f64, complex<f32>, complex<f64>.
enum class DType : uint8_t {
  pred,
  i8,
  i16,
  i32,
  i64,
  ui8,
  ui16,
  ui32,
  ui64,
  f16,
  bf16,
  f32,
  f64,
  c64,
  c128,
};

/// All dtypes, in enum order.
inline constexpr DType kAllDTypes[] = {DType::pred, DType::i8,  DType::i16,  DType::i32,
                                       DType::i64,  DType::ui8, DType::ui16, DType::ui32,
                                       DType::ui64, DType::f16, DType::bf16, DType::f32,
                                       DType::f64,  DType::c64, DType::c128};

/// Size of one element in bytes (pred is stored as one byte, as XLA does).
std::size_t byte_size(DType t);
/// MLIR element type spelling: "i1", "f32", "complex<f32>", ...
std::string_view mlir_name(DType t);
/// Short name used in messages and file names: "pred", "f32", "c64", ...
std::string_view dtype_name(DType t);
/// Parses an MLIR element type spelling ("i1", "si32" is rejected, "ui8", "bf16", "complex<f64>").
/// Throws hhlo::Error naming the spelling when it is not a supported type.
DType dtype_from_mlir(std::string_view mlir);

bool is_pred(DType t);
bool is_signed_int(DType t);
bool is_unsigned_int(DType t);
/// Signed or unsigned integer (not pred).
bool is_integer(DType t);
/// f16, bf16, f32, f64.
bool is_float(DType t);
bool is_complex(DType t);
/// Bit width of the element (pred: 1; complex: both parts).
int bit_width(DType t);
/// The real type of a complex type's parts (c64 -> f32, c128 -> f64); other types unchanged.
DType complex_part(DType t);

/// IEEE half precision, stored as its 16 bits.
struct f16_t {
  uint16_t bits = 0;
  f16_t() = default;
  explicit f16_t(float f);
  explicit operator float() const;
  bool operator==(const f16_t&) const = default;
};

/// bfloat16 (the top 16 bits of an f32), round-to-nearest-even on conversion from float.
struct bf16_t {
  uint16_t bits = 0;
  bf16_t() = default;
  explicit bf16_t(float f);
  explicit operator float() const;
  bool operator==(const bf16_t&) const = default;
};

/// Maps a C++ element type to its DType: dtype_of<float> == DType::f32, dtype_of<bool> == pred.
template <typename T>
struct DTypeOf;
#define HHLO_DTYPE_OF(T, D)                  \
  template <>                                \
  struct DTypeOf<T> {                        \
    static constexpr DType value = DType::D; \
  }
HHLO_DTYPE_OF(bool, pred);
HHLO_DTYPE_OF(int8_t, i8);
HHLO_DTYPE_OF(int16_t, i16);
HHLO_DTYPE_OF(int32_t, i32);
HHLO_DTYPE_OF(int64_t, i64);
HHLO_DTYPE_OF(uint8_t, ui8);
HHLO_DTYPE_OF(uint16_t, ui16);
HHLO_DTYPE_OF(uint32_t, ui32);
HHLO_DTYPE_OF(uint64_t, ui64);
HHLO_DTYPE_OF(f16_t, f16);
HHLO_DTYPE_OF(bf16_t, bf16);
HHLO_DTYPE_OF(float, f32);
HHLO_DTYPE_OF(double, f64);
HHLO_DTYPE_OF(std::complex<float>, c64);
HHLO_DTYPE_OF(std::complex<double>, c128);
#undef HHLO_DTYPE_OF
template <typename T>
inline constexpr DType dtype_of = DTypeOf<T>::value;

/// Calls `f(T{})` with the C++ element type of `t` (bool, int8_t, ..., f16_t, bf16_t, float, ...).
template <typename F>
decltype(auto) visit_dtype(DType t, F&& f) {
  switch (t) {
    case DType::pred:
      return f(bool{});
    case DType::i8:
      return f(int8_t{});
    case DType::i16:
      return f(int16_t{});
    case DType::i32:
      return f(int32_t{});
    case DType::i64:
      return f(int64_t{});
    case DType::ui8:
      return f(uint8_t{});
    case DType::ui16:
      return f(uint16_t{});
    case DType::ui32:
      return f(uint32_t{});
    case DType::ui64:
      return f(uint64_t{});
    case DType::f16:
      return f(f16_t{});
    case DType::bf16:
      return f(bf16_t{});
    case DType::f32:
      return f(float{});
    case DType::f64:
      return f(double{});
    case DType::c64:
      return f(std::complex<float>{});
    case DType::c128:
      break;
  }
  return f(std::complex<double>{});
}

}  // namespace hhlo
