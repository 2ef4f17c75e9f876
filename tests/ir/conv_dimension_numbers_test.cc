// conv_dimension_numbers: layout strings to #stablehlo.conv dimension numbers, the values derived
// by hand from JAX's conv_general_permutations (jax/_src/lax/convolution.py).
#include "hhlo/ir/conv_dimension_numbers.h"

#include <gtest/gtest.h>

#include "shape_error_util.h"

namespace hhlo {
namespace {

TEST(ConvDimensionNumbers, NhwcHwio) {
  ConvDimensionNumbers d = conv_dimension_numbers("NHWC", "HWIO", "NHWC");
  EXPECT_EQ(d, (ConvDimensionNumbers{.input_batch_dimension = 0,
                                     .input_feature_dimension = 3,
                                     .input_spatial_dimensions = {1, 2},
                                     .kernel_input_feature_dimension = 2,
                                     .kernel_output_feature_dimension = 3,
                                     .kernel_spatial_dimensions = {0, 1},
                                     .output_batch_dimension = 0,
                                     .output_feature_dimension = 3,
                                     .output_spatial_dimensions = {1, 2}}));
}

TEST(ConvDimensionNumbers, NchwOihw) {
  ConvDimensionNumbers d = conv_dimension_numbers("NCHW", "OIHW", "NCHW");
  EXPECT_EQ(d, (ConvDimensionNumbers{.input_batch_dimension = 0,
                                     .input_feature_dimension = 1,
                                     .input_spatial_dimensions = {2, 3},
                                     .kernel_input_feature_dimension = 1,
                                     .kernel_output_feature_dimension = 0,
                                     .kernel_spatial_dimensions = {2, 3},
                                     .output_batch_dimension = 0,
                                     .output_feature_dimension = 1,
                                     .output_spatial_dimensions = {2, 3}}));
}

// Spatial dimensions of input and output follow the kernel's letter order: W before H in the
// input string still pairs input dimension 2 (H) with kernel dimension 0 (H).
TEST(ConvDimensionNumbers, SpatialLettersMatchTheKernelsOrder) {
  ConvDimensionNumbers d = conv_dimension_numbers("NWHC", "HWIO", "NCHW");
  EXPECT_EQ(d.input_spatial_dimensions, (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(d.kernel_spatial_dimensions, (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(d.output_spatial_dimensions, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(d.output_feature_dimension, 1);
  ConvDimensionNumbers one = conv_dimension_numbers("NCH", "OIH", "NHC");
  EXPECT_EQ(one.input_spatial_dimensions, (std::vector<int64_t>{2}));
  EXPECT_EQ(one.output_spatial_dimensions, (std::vector<int64_t>{1}));
  EXPECT_EQ(one.output_feature_dimension, 2);
}

TEST(ConvDimensionNumbers, MalformedStringsAreShapeErrors) {
  EXPECT_SHAPE_ERROR("convolution", "", conv_dimension_numbers("NCHW", "OIH", "NCHW"));
  EXPECT_SHAPE_ERROR("convolution", "", conv_dimension_numbers("NXHW", "OIHW", "NCHW"));
  EXPECT_SHAPE_ERROR("convolution", "", conv_dimension_numbers("NCHH", "OIHW", "NCHW"));
  EXPECT_SHAPE_ERROR("convolution", "", conv_dimension_numbers("NCHW", "OIHD", "NCHW"));
  EXPECT_SHAPE_ERROR("convolution", "", conv_dimension_numbers("NCHW", "OIHW", "NCHD"));
  EXPECT_SHAPE_ERROR("convolution", "", conv_dimension_numbers("NCHW", "OINC", "NCHW"));
  try {
    conv_dimension_numbers("NCHW", "OIHD", "NCHW");
  } catch (const ShapeError& e) {
    EXPECT_NE(std::string(e.what()).find("spatial dimension 'D' of 'OIHD' is not in 'NCHW'"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace hhlo
