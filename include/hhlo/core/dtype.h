// Element types of StableHLO tensors (spec section "Types": TensorElementType) and their host
// representation.
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

namespace hhlo {

/// The element types HHLO-C++ supports (spec "Types": TensorElementType). MLIR spellings: i1,
/// i8..i64, ui8..ui64, f16, bf16, f32, f64, complex<f32>, complex<f64>; then the narrow types
/// i2, i4, ui2, ui4, f4E2M1FN, f6E2M3FN, f6E3M2FN, f8E3M4, f8E4M3, f8E4M3FN, f8E4M3FNUZ,
/// f8E4M3B11FNUZ, f8E5M2, f8E5M2FNUZ, f8E8M0FNU (ml_dtypes' int2 ... float8_e8m0fnu), held on the
/// host in one byte per element as ml_dtypes and JAX hold them; and `token` (`!stablehlo.token`),
/// a value type with no elements, which is in no list of element types.
/// The order is part of no format: new types are appended.
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
  i2,
  i4,
  ui2,
  ui4,
  f4E2M1FN,
  f6E2M3FN,
  f6E3M2FN,
  f8E3M4,
  f8E4M3,
  f8E4M3FN,
  f8E4M3FNUZ,
  f8E4M3B11FNUZ,
  f8E5M2,
  f8E5M2FNUZ,
  f8E8M0FNU,
  token,
};

/// The element types of the first release: pred, integers of 8..64 bits, f16, bf16, f32, f64,
/// complex. Code and tests that serve only these iterate this list.
inline constexpr DType kClassicDTypes[] = {DType::pred, DType::i8,  DType::i16,  DType::i32,
                                           DType::i64,  DType::ui8, DType::ui16, DType::ui32,
                                           DType::ui64, DType::f16, DType::bf16, DType::f32,
                                           DType::f64,  DType::c64, DType::c128};

/// The narrow element types (one byte per element on the host; bit_width 2, 4, 6 or 8).
inline constexpr DType kNarrowDTypes[] = {DType::i2,       DType::i4,         DType::ui2,
                                          DType::ui4,      DType::f4E2M1FN,   DType::f6E2M3FN,
                                          DType::f6E3M2FN, DType::f8E3M4,     DType::f8E4M3,
                                          DType::f8E4M3FN, DType::f8E4M3FNUZ, DType::f8E4M3B11FNUZ,
                                          DType::f8E5M2,   DType::f8E5M2FNUZ, DType::f8E8M0FNU};

/// All element types, in enum order (kClassicDTypes, then kNarrowDTypes; not `token`).
inline constexpr DType kAllDTypes[] = {
    DType::pred,       DType::i8,         DType::i16,           DType::i32,
    DType::i64,        DType::ui8,        DType::ui16,          DType::ui32,
    DType::ui64,       DType::f16,        DType::bf16,          DType::f32,
    DType::f64,        DType::c64,        DType::c128,          DType::i2,
    DType::i4,         DType::ui2,        DType::ui4,           DType::f4E2M1FN,
    DType::f6E2M3FN,   DType::f6E3M2FN,   DType::f8E3M4,        DType::f8E4M3,
    DType::f8E4M3FN,   DType::f8E4M3FNUZ, DType::f8E4M3B11FNUZ, DType::f8E5M2,
    DType::f8E5M2FNUZ, DType::f8E8M0FNU};

/// Size of one element in host memory, in bytes (pred and the narrow types: one byte per element,
/// as XLA's literals, ml_dtypes and JAX hold them; token: 0).
std::size_t byte_size(DType t);
/// MLIR element type spelling: "i1", "f32", "complex<f32>", "i4", "f8E4M3FN", ...; token:
/// "!stablehlo.token".
std::string_view mlir_name(DType t);
/// Short name used in messages and file names: "pred", "f32", "c64", "i4", "f8E4M3FN", "token".
std::string_view dtype_name(DType t);
/// Parses an MLIR element type spelling ("i1", "si32" is rejected, "ui8", "bf16", "complex<f64>",
/// "f8E4M3FN"). Throws hhlo::Error naming the spelling when it is not a supported type.
DType dtype_from_mlir(std::string_view mlir);

bool is_pred(DType t);
bool is_signed_int(DType t);
bool is_unsigned_int(DType t);
/// Signed or unsigned integer (not pred), i2 and i4 included.
bool is_integer(DType t);
/// f16, bf16, f32, f64 and the narrow floats (f4E2M1FN ... f8E8M0FNU).
bool is_float(DType t);
bool is_complex(DType t);
/// One of kNarrowDTypes: held in one byte per element, with fewer significant bits than 8 or a
/// float format of 8 bits or fewer.
bool is_narrow(DType t);
/// The value type `!stablehlo.token` (no elements).
bool is_token(DType t);
/// Bit width of the element as the spec counts it (pred: 1; i4: 4; f8E4M3FN: 8; complex: both
/// parts; token: 0). Host memory holds byte_size(t) bytes per element.
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

/// A float format of 8 bits or fewer (StableHLO's f4E2M1FN, f6*, f8* types), held as its bits in
/// the low bits of one byte, the high bits zero, as ml_dtypes holds it. Conversion from a number
/// rounds to nearest even; overflow, infinities, NaN and negative zero follow each format's rules
/// exactly as ml_dtypes' non-saturating casts do (e.g. f8E4M3FN: no infinity, overflow and inf give
/// NaN; *FNUZ: one NaN (0x80), no -0; f4/f6: no NaN, overflow saturates; f8E8M0FNU: powers of two
/// only, no zero, no sign).
template <DType D>
struct narrow_float {
  uint8_t bits = 0;
  narrow_float() = default;
  /// Rounds `v` to the nearest value of the format (see above).
  template <typename A>
  requires std::is_arithmetic_v<A>
  explicit narrow_float(A v) : bits(encode(static_cast<double>(v))) {}
  explicit operator float() const { return static_cast<float>(decode(bits)); }
  explicit operator double() const { return decode(bits); }
  bool operator==(const narrow_float&) const = default;
  /// The format's bits nearest to `v`; the value of `b`'s low bits (exact).
  static uint8_t encode(double v);
  static double decode(uint8_t b);
  /// The largest finite value, and whether the format has infinities.
  static double max();
  static bool has_inf();
};

/// A two's-complement integer of 2 or 4 bits (StableHLO's i2, i4, ui2, ui4), held in one byte per
/// element as ml_dtypes holds it: the value's low bits, the high bits zero. Construction wraps
/// modulo 2^bits as StableHLO's integer convert does (from a float: truncated toward zero first).
template <DType D>
struct narrow_int {
  static constexpr int kBits = D == DType::i2 || D == DType::ui2 ? 2 : 4;
  static constexpr bool kSigned = D == DType::i2 || D == DType::i4;
  static constexpr int kMin = kSigned ? -(1 << (kBits - 1)) : 0;
  static constexpr int kMax = kSigned ? (1 << (kBits - 1)) - 1 : (1 << kBits) - 1;
  uint8_t bits = 0;
  narrow_int() = default;
  template <typename A>
  requires std::is_arithmetic_v<A>
  explicit narrow_int(A v)
      : bits(static_cast<uint8_t>(static_cast<uint64_t>(static_cast<int64_t>(v)) &
                                  ((1u << kBits) - 1))) {}
  /// The value (sign-extended for i2, i4).
  int value() const {
    int v = bits & ((1 << kBits) - 1);
    return kSigned && v > kMax ? v - (1 << kBits) : v;
  }
  template <typename A>
  requires std::is_arithmetic_v<A>
  explicit operator A() const { return static_cast<A>(value()); }
  bool operator==(const narrow_int& o) const { return value() == o.value(); }
};

using i2_t = narrow_int<DType::i2>;
using i4_t = narrow_int<DType::i4>;
using ui2_t = narrow_int<DType::ui2>;
using ui4_t = narrow_int<DType::ui4>;
using f4e2m1fn_t = narrow_float<DType::f4E2M1FN>;
using f6e2m3fn_t = narrow_float<DType::f6E2M3FN>;
using f6e3m2fn_t = narrow_float<DType::f6E3M2FN>;
using f8e3m4_t = narrow_float<DType::f8E3M4>;
using f8e4m3_t = narrow_float<DType::f8E4M3>;
using f8e4m3fn_t = narrow_float<DType::f8E4M3FN>;
using f8e4m3fnuz_t = narrow_float<DType::f8E4M3FNUZ>;
using f8e4m3b11fnuz_t = narrow_float<DType::f8E4M3B11FNUZ>;
using f8e5m2_t = narrow_float<DType::f8E5M2>;
using f8e5m2fnuz_t = narrow_float<DType::f8E5M2FNUZ>;
using f8e8m0fnu_t = narrow_float<DType::f8E8M0FNU>;

/// True for the host structs of float types narrower than f32 (f16_t, bf16_t, narrow_float<D>):
/// convert them through float (static_cast<float>(v), T(f)).
template <typename T>
inline constexpr bool kIsFloatStruct = false;
template <>
inline constexpr bool kIsFloatStruct<f16_t> = true;
template <>
inline constexpr bool kIsFloatStruct<bf16_t> = true;
template <DType D>
inline constexpr bool kIsFloatStruct<narrow_float<D>> = true;
/// True for narrow_int<D> (i2_t, i4_t, ui2_t, ui4_t): convert them through int (v.value(), T(i)).
template <typename T>
inline constexpr bool kIsNarrowInt = false;
template <DType D>
inline constexpr bool kIsNarrowInt<narrow_int<D>> = true;

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
template <DType D>
struct DTypeOf<narrow_float<D>> {
  static constexpr DType value = D;
};
template <DType D>
struct DTypeOf<narrow_int<D>> {
  static constexpr DType value = D;
};
template <typename T>
inline constexpr DType dtype_of = DTypeOf<T>::value;

/// Throws hhlo::Error: `token` has no elements (what visit_dtype does for it).
[[noreturn]] void throw_no_elements(DType t);

/// Calls `f(T{})` with the C++ element type of `t` (bool, int8_t, ..., f16_t, bf16_t, float, ...,
/// i4_t, f8e4m3fn_t, ...). Throws hhlo::Error for `token`, which has no elements.
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
      return f(std::complex<double>{});
    case DType::i2:
      return f(i2_t{});
    case DType::i4:
      return f(i4_t{});
    case DType::ui2:
      return f(ui2_t{});
    case DType::ui4:
      return f(ui4_t{});
    case DType::f4E2M1FN:
      return f(f4e2m1fn_t{});
    case DType::f6E2M3FN:
      return f(f6e2m3fn_t{});
    case DType::f6E3M2FN:
      return f(f6e3m2fn_t{});
    case DType::f8E3M4:
      return f(f8e3m4_t{});
    case DType::f8E4M3:
      return f(f8e4m3_t{});
    case DType::f8E4M3FN:
      return f(f8e4m3fn_t{});
    case DType::f8E4M3FNUZ:
      return f(f8e4m3fnuz_t{});
    case DType::f8E4M3B11FNUZ:
      return f(f8e4m3b11fnuz_t{});
    case DType::f8E5M2:
      return f(f8e5m2_t{});
    case DType::f8E5M2FNUZ:
      return f(f8e5m2fnuz_t{});
    case DType::f8E8M0FNU:
      return f(f8e8m0fnu_t{});
    case DType::token:
      break;
  }
  throw_no_elements(t);
}

}  // namespace hhlo
