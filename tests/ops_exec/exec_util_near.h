// EXPECT helper for float comparisons in execution tests.
#pragma once

#include <gtest/gtest.h>

#include <vector>

namespace hhlo::test {

inline void expect_near(const std::vector<double>& got, const std::vector<double>& want,
                        double tol = 1e-4) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "at " << i;
}

}  // namespace hhlo::test
