#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "hhlo/core/array.h"

namespace hhlo {
namespace {

TEST(DType, MlirNamesRoundTrip) {
  for (DType t : kAllDTypes) EXPECT_EQ(dtype_from_mlir(mlir_name(t)), t);
  EXPECT_EQ(mlir_name(DType::pred), "i1");
  EXPECT_EQ(mlir_name(DType::c64), "complex<f32>");
  EXPECT_EQ(dtype_from_mlir("f8E4M3"), DType::f8E4M3);
  EXPECT_THROW(dtype_from_mlir("f8E4M3X"), Error);
  EXPECT_THROW(dtype_from_mlir("si32"), Error);
}

TEST(DType, HalfConversionsMatchIeee) {
  // Bit patterns from the IEEE 754 binary16 / bfloat16 definitions.
  EXPECT_EQ(f16_t(1.0f).bits, 0x3c00);
  EXPECT_EQ(f16_t(-2.0f).bits, 0xc000);
  EXPECT_EQ(f16_t(65504.0f).bits, 0x7bff);
  EXPECT_EQ(f16_t(1e6f).bits, 0x7c00);            // overflow -> inf
  EXPECT_EQ(f16_t(5.9604645e-8f).bits, 0x0001);   // smallest subnormal
  EXPECT_EQ(f16_t(1.0009765625f).bits, 0x3c01);   // 1 + 2^-10 exact
  EXPECT_EQ(f16_t(1.00048828125f).bits, 0x3c00);  // halfway, ties to even
  EXPECT_TRUE(std::isnan(static_cast<float>(f16_t(std::nanf("")))));
  EXPECT_EQ(static_cast<float>(f16_t{}), 0.0f);
  EXPECT_EQ(static_cast<float>(f16_t(0.333251953125f)), 0.333251953125f);
  EXPECT_EQ(bf16_t(1.0f).bits, 0x3f80);
  EXPECT_EQ(bf16_t(3.140625f).bits, 0x4049);
  EXPECT_EQ(static_cast<float>(bf16_t(-0.5f)), -0.5f);
  EXPECT_TRUE(std::isnan(static_cast<float>(bf16_t(std::nanf("")))));
}

TEST(TensorType, PrintsAndParsesMlir) {
  TensorType t{DType::f32, {2, 3}};
  EXPECT_EQ(t.to_string(), "tensor<2x3xf32>");
  EXPECT_EQ((TensorType{DType::pred, {}}).to_string(), "tensor<i1>");
}

}  // namespace
}  // namespace hhlo

namespace hhlo {
namespace {

TEST(TensorType, ParsesAllForms) {
  EXPECT_EQ(parse_tensor_type("tensor<2x3xf32>"), (TensorType{DType::f32, {2, 3}}));
  EXPECT_EQ(parse_tensor_type("tensor<complex<f64>>"), (TensorType{DType::c128, {}}));
  EXPECT_EQ(parse_tensor_type("tensor<?x4xui8>"), (TensorType{DType::ui8, {kDynamic, 4}}));
  EXPECT_EQ(parse_tensor_type("tensor<?x4xui8>").to_string(), "tensor<?x4xui8>");
  EXPECT_THROW(parse_tensor_type("tensor<2x3>"), Error);
  EXPECT_THROW(parse_tensor_type("memref<2xf32>"), Error);
}

TEST(Array, StorageIsAlignedAndChecked) {
  Array a = Array::from<float>({2, 2}, {1, 2, 3, 4});
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a.data()) % 64, 0u);
  EXPECT_EQ(a.byte_size(), 16u);
  EXPECT_THROW(a.values<int32_t>(), Error);
  EXPECT_THROW(Array::from<float>({3}, {1, 2}), Error);
  EXPECT_THROW(Array(DType::f32, {kDynamic}), Error);
  Array b = a;
  b.values<float>()[0] = 9;
  EXPECT_EQ(a.values<float>()[0], 1);
  EXPECT_EQ(a.reshaped({4}).dims(), Dims{4});
  EXPECT_THROW(a.reshaped({3}), Error);
}

}  // namespace
}  // namespace hhlo
