#include "hhlo/core/dtype.h"

#include <fmt/format.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include "hhlo/core/error.h"

namespace hhlo {
namespace {

struct Info {
  std::string_view mlir, name;
  std::size_t bytes;
  int bits;
};

const Info& info(DType t) {
  static constexpr Info kInfo[] = {
      {"i1", "pred", 1, 1},
      {"i8", "i8", 1, 8},
      {"i16", "i16", 2, 16},
      {"i32", "i32", 4, 32},
      {"i64", "i64", 8, 64},
      {"ui8", "ui8", 1, 8},
      {"ui16", "ui16", 2, 16},
      {"ui32", "ui32", 4, 32},
      {"ui64", "ui64", 8, 64},
      {"f16", "f16", 2, 16},
      {"bf16", "bf16", 2, 16},
      {"f32", "f32", 4, 32},
      {"f64", "f64", 8, 64},
      {"complex<f32>", "c64", 8, 64},
      {"complex<f64>", "c128", 16, 128},
      {"i2", "i2", 1, 2},
      {"i4", "i4", 1, 4},
      {"ui2", "ui2", 1, 2},
      {"ui4", "ui4", 1, 4},
      {"f4E2M1FN", "f4E2M1FN", 1, 4},
      {"f6E2M3FN", "f6E2M3FN", 1, 6},
      {"f6E3M2FN", "f6E3M2FN", 1, 6},
      {"f8E3M4", "f8E3M4", 1, 8},
      {"f8E4M3", "f8E4M3", 1, 8},
      {"f8E4M3FN", "f8E4M3FN", 1, 8},
      {"f8E4M3FNUZ", "f8E4M3FNUZ", 1, 8},
      {"f8E4M3B11FNUZ", "f8E4M3B11FNUZ", 1, 8},
      {"f8E5M2", "f8E5M2", 1, 8},
      {"f8E5M2FNUZ", "f8E5M2FNUZ", 1, 8},
      {"f8E8M0FNU", "f8E8M0FNU", 1, 8},
      {"!stablehlo.token", "token", 0, 0},
  };
  static_assert(std::size(kInfo) == static_cast<std::size_t>(DType::token) + 1);
  return kInfo[static_cast<int>(t)];
}

}  // namespace

std::size_t byte_size(DType t) { return info(t).bytes; }
std::string_view mlir_name(DType t) { return info(t).mlir; }
std::string_view dtype_name(DType t) { return info(t).name; }
int bit_width(DType t) { return info(t).bits; }

DType dtype_from_mlir(std::string_view s) {
  for (DType t : kAllDTypes)
    if (mlir_name(t) == s) return t;
  throw Error("unsupported element type '" + std::string(s) +
              "' (expected one of i1, i2, i4, i8..i64, ui2, ui4, ui8..ui64, f4E2M1FN, f6E2M3FN, "
              "f6E3M2FN, f8E3M4, f8E4M3, f8E4M3FN, f8E4M3FNUZ, f8E4M3B11FNUZ, f8E5M2, f8E5M2FNUZ, "
              "f8E8M0FNU, f16, bf16, f32, f64, complex<f32>, complex<f64>)");
}

void throw_no_elements(DType t) {
  throw Error(fmt::format("{} has no elements (it is no element type)", mlir_name(t)));
}

bool is_pred(DType t) { return t == DType::pred; }
bool is_signed_int(DType t) {
  return (t >= DType::i8 && t <= DType::i64) || t == DType::i2 || t == DType::i4;
}
bool is_unsigned_int(DType t) {
  return (t >= DType::ui8 && t <= DType::ui64) || t == DType::ui2 || t == DType::ui4;
}
bool is_integer(DType t) { return is_signed_int(t) || is_unsigned_int(t); }
bool is_float(DType t) {
  return (t >= DType::f16 && t <= DType::f64) || (t >= DType::f4E2M1FN && t <= DType::f8E8M0FNU);
}
bool is_complex(DType t) { return t == DType::c64 || t == DType::c128; }
bool is_narrow(DType t) { return t >= DType::i2 && t <= DType::f8E8M0FNU; }
bool is_token(DType t) { return t == DType::token; }
DType complex_part(DType t) {
  return t == DType::c64 ? DType::f32 : t == DType::c128 ? DType::f64 : t;
}

// IEEE binary16 <-> binary32, round to nearest even; NaN stays NaN, overflow goes to Inf.
f16_t::f16_t(float f) {
  uint32_t x = std::bit_cast<uint32_t>(f);
  uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t absx = x & 0x7fffffffu;
  if (absx > 0x7f800000u) {  // NaN: keep it quiet
    bits = static_cast<uint16_t>(sign | 0x7e00u | ((absx >> 13) & 0x3ffu));
    return;
  }
  if (absx >= 0x477ff000u) {  // rounds to >= 65520: Inf
    bits = static_cast<uint16_t>(sign | 0x7c00u);
    return;
  }
  if (absx < 0x38800000u) {  // subnormal half (or zero): scale by 2^24 and round
    float a = std::bit_cast<float>(absx) * 16777216.0f;
    bits = static_cast<uint16_t>(sign | static_cast<uint32_t>(std::nearbyint(a)));
    return;
  }
  uint32_t mant_odd = (absx >> 13) & 1u;
  absx += 0xfffu + mant_odd;  // round to nearest even at bit 13
  bits = static_cast<uint16_t>(sign | ((absx - 0x38000000u) >> 13));
}

f16_t::operator float() const {
  uint32_t sign = static_cast<uint32_t>(bits & 0x8000u) << 16;
  uint32_t exp = (bits >> 10) & 0x1fu, mant = bits & 0x3ffu;
  if (exp == 0) {  // zero or subnormal
    float v = static_cast<float>(mant) / 16777216.0f;
    return sign ? -v : v;
  }
  if (exp == 31) return std::bit_cast<float>(sign | 0x7f800000u | (mant << 13));
  return std::bit_cast<float>(sign | ((exp + 112u) << 23) | (mant << 13));
}

bf16_t::bf16_t(float f) {
  uint32_t x = std::bit_cast<uint32_t>(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) {  // NaN: keep quiet, keep sign
    bits = static_cast<uint16_t>((x >> 16) | 0x40u);
    return;
  }
  x += 0x7fffu + ((x >> 16) & 1u);
  bits = static_cast<uint16_t>(x >> 16);
}

bf16_t::operator float() const { return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16); }

namespace {

/// How a narrow float format spends its top codes (ml_dtypes' float8_*, float6_*, float4_*).
enum class Special : uint8_t {
  ieee,    // exponent all ones: infinity (mantissa 0) or NaN; -0 exists (f8E3M4, f8E4M3, f8E5M2)
  fn,      // no infinity; NaN is S.1...1.1...1 (f8E4M3FN)
  fnuz,    // no infinity, no -0; the one NaN is 0x80 (f8E4M3FNUZ, f8E4M3B11FNUZ, f8E5M2FNUZ)
  finite,  // every code is a finite number; overflow saturates (f4E2M1FN, f6E2M3FN, f6E3M2FN)
  e8m0,    // unsigned powers of two 2^(e-127), 0xFF NaN, no zero (f8E8M0FNU)
};

struct Format {
  int bits, exp_bits, mant_bits, bias;
  Special special;
};

constexpr Format format_of(DType t) {
  switch (t) {
    case DType::f4E2M1FN:
      return {4, 2, 1, 1, Special::finite};
    case DType::f6E2M3FN:
      return {6, 2, 3, 1, Special::finite};
    case DType::f6E3M2FN:
      return {6, 3, 2, 3, Special::finite};
    case DType::f8E3M4:
      return {8, 3, 4, 3, Special::ieee};
    case DType::f8E4M3:
      return {8, 4, 3, 7, Special::ieee};
    case DType::f8E4M3FN:
      return {8, 4, 3, 7, Special::fn};
    case DType::f8E4M3FNUZ:
      return {8, 4, 3, 8, Special::fnuz};
    case DType::f8E4M3B11FNUZ:
      return {8, 4, 3, 11, Special::fnuz};
    case DType::f8E5M2:
      return {8, 5, 2, 15, Special::ieee};
    case DType::f8E5M2FNUZ:
      return {8, 5, 2, 16, Special::fnuz};
    default:
      return {8, 8, 0, 127, Special::e8m0};
  }
}

double quiet_nan(bool negative) {
  double n = std::numeric_limits<double>::quiet_NaN();
  return negative ? -n : n;
}

/// The value of the low `f.bits` bits of `b`.
double decode_bits(const Format& f, uint8_t b) {
  b = static_cast<uint8_t>(b & ((1u << f.bits) - 1));
  if (f.special == Special::e8m0) return b == 0xFF ? quiet_nan(false) : std::ldexp(1.0, b - 127);
  if (f.special == Special::fnuz && b == 0x80) return quiet_nan(true);  // as ml_dtypes: -NaN
  const bool neg = (b >> (f.bits - 1)) & 1u;
  const int e_all = (1 << f.exp_bits) - 1, m_all = (1 << f.mant_bits) - 1;
  const int e = (b >> f.mant_bits) & e_all, m = b & m_all;
  if (f.special == Special::ieee && e == e_all)
    return m ? quiet_nan(neg) : neg ? -HUGE_VAL : HUGE_VAL;
  if (f.special == Special::fn && e == e_all && m == m_all) return quiet_nan(neg);
  double v = e == 0 ? std::ldexp(m, 1 - f.bias - f.mant_bits)
                    : std::ldexp(m + (1 << f.mant_bits), e - f.bias - f.mant_bits);
  return neg ? -v : v;
}

/// The largest finite value of the format.
double max_finite(const Format& f) {
  if (f.special == Special::e8m0) return std::ldexp(1.0, 127);
  const int e_all = (1 << f.exp_bits) - 1, m_all = (1 << f.mant_bits) - 1;
  int e = e_all, m = m_all;
  if (f.special == Special::ieee) m = m_all, e = e_all - 1;
  if (f.special == Special::fn) m = m_all - 1;
  return decode_bits(f, static_cast<uint8_t>((e << f.mant_bits) | m));
}

/// f8E8M0FNU from `v`: the nearest power of two 2^-127..2^127, ties (1.5 * 2^k) upward; as
/// ml_dtypes, a value between 2^-127 and 2^-126 gives 2^-126 and a smaller positive one 2^-127;
/// zero, negatives, NaN, infinity and overflow give NaN (0xFF).
uint8_t encode_e8m0(double v) {
  if (!(v > 0) || std::isinf(v)) return 0xFF;
  if (v > std::ldexp(1.0, -127) && v < std::ldexp(1.0, -126)) return 0x01;
  int k = 0;
  double frac = std::frexp(v, &k);  // v = frac * 2^k, frac in [0.5, 1)
  int e = k - 1 + (frac >= 0.75 ? 1 : 0);
  if (e > 127) return 0xFF;
  return static_cast<uint8_t>(std::max(e, -127) + 127);
}

/// The code nearest to `v`: round to nearest even on the format's grid, then the format's rules
/// for what does not fit (see narrow_float in dtype.h).
uint8_t encode_bits(const Format& f, double v) {
  if (f.special == Special::e8m0) return encode_e8m0(v);
  const uint8_t sign = static_cast<uint8_t>(1u << (f.bits - 1));
  const bool neg = std::signbit(v);
  const int e_all = (1 << f.exp_bits) - 1, m_all = (1 << f.mant_bits) - 1;
  const uint8_t ieee_inf = static_cast<uint8_t>(e_all << f.mant_bits);
  auto nan = [&]() -> uint8_t {
    switch (f.special) {
      case Special::ieee:
        return static_cast<uint8_t>((neg ? sign : 0) | ieee_inf | (1 << (f.mant_bits - 1)));
      case Special::fn:
        return static_cast<uint8_t>((neg ? sign : 0) | (e_all << f.mant_bits) | m_all);
      case Special::finite:  // no NaN: ml_dtypes gives a zero of the opposite sign
        return neg ? 0 : sign;
      default:
        return 0x80;
    }
  };
  const double max = max_finite(f);
  auto overflow = [&]() -> uint8_t {
    if (f.special == Special::ieee) return static_cast<uint8_t>((neg ? sign : 0) | ieee_inf);
    if (f.special == Special::finite) return encode_bits(f, neg ? -max : max);
    return nan();
  };
  if (std::isnan(v)) return nan();
  if (std::isinf(v)) return overflow();
  double a = std::fabs(v);
  const int emin = 1 - f.bias;
  int k = 0;
  std::frexp(a, &k);
  int e = std::max(k - 1, emin);  // a = n * 2^(e - mant_bits), n < 2^(mant_bits + 1)
  double n = std::nearbyint(std::ldexp(a, f.mant_bits - e));
  if (std::ldexp(n, e - f.mant_bits) > max) return overflow();
  if (n == 0) return neg && f.special != Special::fnuz ? sign : 0;
  if (n >= std::ldexp(1.0, f.mant_bits + 1)) n /= 2, ++e;  // rounded up into the next binade
  int biased = n < std::ldexp(1.0, f.mant_bits) ? 0 : e + f.bias;  // subnormal: exponent field 0
  int m = static_cast<int>(n) & m_all;
  return static_cast<uint8_t>((neg ? sign : 0) | (biased << f.mant_bits) | m);
}

}  // namespace

template <DType D>
uint8_t narrow_float<D>::encode(double v) {
  return encode_bits(format_of(D), v);
}
template <DType D>
double narrow_float<D>::decode(uint8_t b) {
  return decode_bits(format_of(D), b);
}
template <DType D>
double narrow_float<D>::max() {
  return max_finite(format_of(D));
}
template <DType D>
bool narrow_float<D>::has_inf() {
  return format_of(D).special == Special::ieee;
}

template struct narrow_float<DType::f4E2M1FN>;
template struct narrow_float<DType::f6E2M3FN>;
template struct narrow_float<DType::f6E3M2FN>;
template struct narrow_float<DType::f8E3M4>;
template struct narrow_float<DType::f8E4M3>;
template struct narrow_float<DType::f8E4M3FN>;
template struct narrow_float<DType::f8E4M3FNUZ>;
template struct narrow_float<DType::f8E4M3B11FNUZ>;
template struct narrow_float<DType::f8E5M2>;
template struct narrow_float<DType::f8E5M2FNUZ>;
template struct narrow_float<DType::f8E8M0FNU>;

}  // namespace hhlo
