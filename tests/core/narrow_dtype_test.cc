// The narrow element types (i2, i4, ui2, ui4, f4E2M1FN, f6*, f8*): names, sizes, classes, and the
// host conversions of dtype.h against ml_dtypes' values (tests/core/gen_narrow_dtypes.py).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <string>

#include "hhlo/core/array.h"

namespace hhlo {
namespace {

std::string generated(const std::string& name) {
  return std::string(HHLO_GENERATED_DIR) + "/narrow/" + name;
}

TEST(NarrowDtypes, NamesSizesAndClasses) {
  for (DType t : kNarrowDTypes) {
    SCOPED_TRACE(std::string(mlir_name(t)));
    EXPECT_EQ(byte_size(t), 1u);
    EXPECT_EQ(dtype_from_mlir(mlir_name(t)), t);
    EXPECT_TRUE(is_narrow(t));
    EXPECT_NE(is_float(t), is_integer(t));
  }
  EXPECT_EQ(mlir_name(DType::f8E4M3FN), "f8E4M3FN");
  EXPECT_EQ(mlir_name(DType::f8E4M3B11FNUZ), "f8E4M3B11FNUZ");
  EXPECT_EQ(mlir_name(DType::f4E2M1FN), "f4E2M1FN");
  EXPECT_EQ(mlir_name(DType::ui4), "ui4");
  EXPECT_EQ(bit_width(DType::i2), 2);
  EXPECT_EQ(bit_width(DType::ui4), 4);
  EXPECT_EQ(bit_width(DType::f4E2M1FN), 4);
  EXPECT_EQ(bit_width(DType::f6E3M2FN), 6);
  EXPECT_EQ(bit_width(DType::f8E8M0FNU), 8);
  EXPECT_TRUE(is_signed_int(DType::i4));
  EXPECT_TRUE(is_unsigned_int(DType::ui2));
  EXPECT_TRUE(is_float(DType::f8E5M2));
  EXPECT_FALSE(is_narrow(DType::i8));
  EXPECT_EQ(std::size(kAllDTypes), std::size(kClassicDTypes) + std::size(kNarrowDTypes));
}

TEST(NarrowDtypes, TokenIsAValueTypeWithoutElements) {
  EXPECT_EQ(mlir_name(DType::token), "!stablehlo.token");
  EXPECT_EQ(byte_size(DType::token), 0u);
  EXPECT_EQ((TensorType{DType::token, {}}.to_string()), "!stablehlo.token");
  EXPECT_EQ(parse_tensor_type("!stablehlo.token"), (TensorType{DType::token, {}}));
  EXPECT_THROW(parse_tensor_type("tensor<2x!stablehlo.token>"), Error);
  EXPECT_THROW(visit_dtype(DType::token, [](auto) {}), Error);
  for (DType t : kAllDTypes) EXPECT_NE(t, DType::token);
}

TEST(NarrowDtypes, IntegersWrapAndSignExtendAsMlDtypes) {
  Array in = read_npy(generated("int_inputs.npy"));
  for (DType t : {DType::i2, DType::i4, DType::ui2, DType::ui4}) {
    SCOPED_TRACE(std::string(mlir_name(t)));
    Array want = read_npy(generated(std::string(mlir_name(t)) + "_wrap.npy"));
    visit_dtype(t, [&](auto zero) {
      using T = decltype(zero);
      if constexpr (kIsNarrowInt<T>) {
        for (int64_t i = 0; i < in.num_elements(); ++i) {
          T v(in.values<int32_t>()[static_cast<size_t>(i)]);
          EXPECT_EQ(v.value(), want.values<int32_t>()[static_cast<size_t>(i)]);
          EXPECT_EQ(v.bits >> T::kBits, 0) << "high bits of the byte are zero, as ml_dtypes";
        }
      }
    });
  }
  EXPECT_EQ(i4_t::kMin, -8);
  EXPECT_EQ(i4_t::kMax, 7);
  EXPECT_EQ(ui2_t::kMax, 3);
  i4_t garbage;
  garbage.bits = 0xF1;  // high bits set: only the low 4 count
  EXPECT_EQ(garbage.value(), 1);
}

/// f32 bit patterns equal, or both NaN with the same sign.
bool same_f32(uint32_t a, uint32_t b) {
  float x = std::bit_cast<float>(a), y = std::bit_cast<float>(b);
  if (std::isnan(x) || std::isnan(y))
    return std::isnan(x) && std::isnan(y) && std::signbit(x) == std::signbit(y);
  return a == b;
}

TEST(NarrowDtypes, FloatsDecodeEveryCodeAsMlDtypes) {
  for (DType t : kNarrowDTypes) {
    if (!is_float(t)) continue;
    SCOPED_TRACE(std::string(mlir_name(t)));
    Array want = read_npy(generated(std::string(mlir_name(t)) + "_decode.npy"));
    ASSERT_EQ(want.num_elements(), int64_t{1} << bit_width(t));
    visit_dtype(t, [&](auto zero) {
      using T = decltype(zero);
      if constexpr (kIsFloatStruct<T> && sizeof(T) == 1) {
        for (int64_t c = 0; c < want.num_elements(); ++c) {
          T v;
          v.bits = static_cast<uint8_t>(c);
          uint32_t got = std::bit_cast<uint32_t>(static_cast<float>(v));
          uint32_t w = want.values<uint32_t>()[static_cast<size_t>(c)];
          EXPECT_TRUE(same_f32(got, w))
              << "code " << c << ": got " << std::hex << got << ", ml_dtypes " << w;
        }
      }
    });
  }
}

TEST(NarrowDtypes, FloatsRoundAsMlDtypes) {
  Array in = read_npy(generated("inputs.npy"));
  for (DType t : kNarrowDTypes) {
    if (!is_float(t)) continue;
    SCOPED_TRACE(std::string(mlir_name(t)));
    Array want = read_npy(generated(std::string(mlir_name(t)) + "_encode.npy"));
    ASSERT_EQ(want.num_elements(), in.num_elements());
    int bad = 0;
    visit_dtype(t, [&](auto zero) {
      using T = decltype(zero);
      if constexpr (kIsFloatStruct<T> && sizeof(T) == 1) {
        for (int64_t i = 0; i < in.num_elements() && bad < 5; ++i) {
          float x = in.values<float>()[static_cast<size_t>(i)];
          unsigned got = T(x).bits, w = want.values<uint8_t>()[static_cast<size_t>(i)];
          if (got != w)
            ADD_FAILURE() << ++bad << ": " << x << " (0x" << std::hex << std::bit_cast<uint32_t>(x)
                          << ") gives 0x" << got << ", ml_dtypes 0x" << w;
        }
      }
    });
  }
}

TEST(NarrowDtypes, LimitsOfEachFormat) {
  EXPECT_EQ(f8e4m3fn_t::max(), 448.0);
  EXPECT_FALSE(f8e4m3fn_t::has_inf());
  EXPECT_EQ(f8e5m2_t::max(), 57344.0);
  EXPECT_TRUE(f8e5m2_t::has_inf());
  EXPECT_EQ(f4e2m1fn_t::max(), 6.0);
  EXPECT_EQ(f8e4m3b11fnuz_t::max(), 30.0);
  EXPECT_EQ(f8e8m0fnu_t::max(), std::ldexp(1.0, 127));
  EXPECT_EQ(static_cast<double>(f8e4m3fn_t(464.0)), 448.0);  // the tie rounds to even
  EXPECT_TRUE(std::isnan(static_cast<double>(f8e4m3fn_t(480.0))));
}

TEST(NarrowDtypes, ElementAsDoubleReadsNarrowArrays) {
  Array a = Array::from<i4_t>({3}, {i4_t(-8), i4_t(7), i4_t(-1)});
  EXPECT_EQ(a.element_as_double(0), -8);
  EXPECT_EQ(a.element_as_double(2), -1);
  EXPECT_EQ(static_cast<const uint8_t*>(a.data())[2], 0x0F);
  Array f = Array::from<f8e4m3fn_t>({2}, {f8e4m3fn_t(1.5), f8e4m3fn_t(-0.1015625)});
  EXPECT_EQ(f.element_as_double(0), 1.5);
  EXPECT_EQ(f.element_as_double(1), -0.1015625);
}

TEST(NarrowDtypes, NpyWritesV1AsNpSaveOfMlDtypesAndReadsItAsBytes) {
  Array a = Array::from<f8e5m2_t>({2}, {f8e5m2_t(1.0), f8e5m2_t(-2.0)});
  std::string s = serialize_npy(a);
  EXPECT_NE(s.find("{'descr': '<V1', 'fortran_order': False, 'shape': (2,), }"), std::string::npos);
  Array back = parse_npy(std::as_bytes(std::span(s.data(), s.size())), "mem");
  EXPECT_EQ(back.dtype(), DType::ui8);
  EXPECT_EQ(back.to_vector<uint8_t>(), (std::vector<uint8_t>{0x3C, 0xC0}));
}

}  // namespace
}  // namespace hhlo
