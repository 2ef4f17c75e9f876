#include "hhlo/core/dtype.h"

#include <bit>
#include <cmath>
#include <cstring>

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
  };
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
              "' (expected one of i1, i8..i64, ui8..ui64, f16, bf16, f32, f64, complex<f32>, "
              "complex<f64>)");
}

bool is_pred(DType t) { return t == DType::pred; }
bool is_signed_int(DType t) { return t >= DType::i8 && t <= DType::i64; }
bool is_unsigned_int(DType t) { return t >= DType::ui8 && t <= DType::ui64; }
bool is_integer(DType t) { return is_signed_int(t) || is_unsigned_int(t); }
bool is_float(DType t) { return t >= DType::f16 && t <= DType::f64; }
bool is_complex(DType t) { return t == DType::c64 || t == DType::c128; }
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

}  // namespace hhlo
