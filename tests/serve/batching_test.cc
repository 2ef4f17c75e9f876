// Dynamic batching's data movement (hhlo/serve/batching.h): buckets, stacking with padding by a
// copy of the last real row, and splitting back. Expected values written by hand.
#include "hhlo/serve/batching.h"

#include <gtest/gtest.h>

namespace hhlo::serve {
namespace {

TEST(Batching, BucketsArePowersOfTwoOrThePreferredSizesEndingAtTheMaximum) {
  EXPECT_EQ(batch_buckets(16, {}), (std::vector<int64_t>{1, 2, 4, 8, 16}));
  EXPECT_EQ(batch_buckets(12, {}), (std::vector<int64_t>{1, 2, 4, 8, 12}));
  EXPECT_EQ(batch_buckets(1, {}), (std::vector<int64_t>{1}));
  EXPECT_EQ(batch_buckets(0, {}), (std::vector<int64_t>{}));
  EXPECT_EQ(batch_buckets(32, {8, 4, 8, 64, 0}), (std::vector<int64_t>{4, 8, 32}));
  std::vector<int64_t> b = {1, 2, 4, 8, 12};
  EXPECT_EQ(bucket_for(1, b), 1);
  EXPECT_EQ(bucket_for(3, b), 4);
  EXPECT_EQ(bucket_for(9, b), 12);
  EXPECT_EQ(bucket_for(13, b), 0);
}

TEST(Batching, OnlyInputsAlikeBeyondTheirFirstDimensionStack) {
  std::vector<Array> a = {Array(DType::f32, {2, 3}), Array(DType::i32, {2})};
  std::vector<Array> b = {Array(DType::f32, {5, 3}), Array(DType::i32, {5})};
  EXPECT_TRUE(batchable_together(a, b));
  std::vector<Array> other_width = {Array(DType::f32, {5, 4}), Array(DType::i32, {5})};
  EXPECT_FALSE(batchable_together(a, other_width));
  std::vector<Array> other_type = {Array(DType::f64, {5, 3}), Array(DType::i32, {5})};
  EXPECT_FALSE(batchable_together(a, other_type));
  std::vector<Array> scalar = {Array(DType::f32, Dims{}), Array(DType::i32, {5})};
  EXPECT_FALSE(batchable_together(scalar, scalar));
  EXPECT_FALSE(batchable_together(a, {a[0]}));
}

TEST(Batching, StackedRowsArePaddedWithTheLastRealRowAndSplitBack) {
  std::vector<Array> r1 = {Array::from<float>({1, 2}, {1, 2}), Array::from<int32_t>({1}, {7})};
  std::vector<Array> r2 = {Array::from<float>({2, 2}, {3, 4, 5, 6}),
                           Array::from<int32_t>({2}, {8, 9})};
  std::vector<Array> stacked = stack_rows({&r1, &r2}, 4);
  EXPECT_EQ(stacked[0].dims(), (Dims{4, 2}));
  EXPECT_EQ(stacked[0].to_vector<float>(), (std::vector<float>{1, 2, 3, 4, 5, 6, 5, 6}));
  EXPECT_EQ(stacked[1].to_vector<int32_t>(), (std::vector<int32_t>{7, 8, 9, 9}));
  std::vector<std::vector<Array>> split = split_rows(stacked, {1, 2});
  ASSERT_EQ(split.size(), 2u);
  EXPECT_EQ(split[0][0].to_vector<float>(), (std::vector<float>{1, 2}));
  EXPECT_EQ(split[1][0].dims(), (Dims{2, 2}));
  EXPECT_EQ(split[1][0].to_vector<float>(), (std::vector<float>{3, 4, 5, 6}));
  EXPECT_EQ(split[1][1].to_vector<int32_t>(), (std::vector<int32_t>{8, 9}));
  EXPECT_THROW(stack_rows({&r1, &r2}, 2), Error);
  EXPECT_THROW(split_rows(stacked, {4, 1}), Error);
  EXPECT_THROW(stack_rows({}, 1), Error);
}

}  // namespace
}  // namespace hhlo::serve
