// Asserts that a call throws hhlo::ShapeError with the given op and spec constraint.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "hhlo/core/error.h"

namespace hhlo::test {

inline void expect_shape_error(const std::string& op, const std::string& constraint,
                               const std::function<void()>& fn, int line) {
  try {
    fn();
    ADD_FAILURE_AT(__FILE__, line)
        << "no ShapeError; expected op '" << op << "' (" << constraint << ")";
  } catch (const ShapeError& e) {
    EXPECT_EQ(e.op(), op) << "case at line " << line << ": " << e.what();
    EXPECT_EQ(e.constraint(), constraint) << "case at line " << line << ": " << e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE_AT(__FILE__, line) << "expected ShapeError, got: " << e.what();
  }
}

}  // namespace hhlo::test

/// EXPECT_SHAPE_ERROR("dot_general", "C10", expr);
#define EXPECT_SHAPE_ERROR(op, c, ...) \
  ::hhlo::test::expect_shape_error(    \
      op, c, [&] { (void)(__VA_ARGS__); }, __LINE__)
