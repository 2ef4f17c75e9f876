// Finite-difference checks of the batch-norm op rules.
#include <gtest/gtest.h>

#include "gradcheck_util.h"
#include "hhlo/ir/ops.h"

namespace hhlo {
namespace {

using test::check_grad;
using test::rand_f64;
using Vs = std::vector<Value>;

TEST(AutodiffBatchNorm, InferenceAllFiveOperands) {
  check_grad(
      {rand_f64({2, 3, 4}, 1), rand_f64({3}, 2, 0.5, 1.5), rand_f64({3}, 3), rand_f64({3}, 4),
       rand_f64({3}, 5, 0.5, 1.5)},
      [](const Vs& a) { return batch_norm_inference(a[0], a[1], a[2], a[3], a[4], 1e-3f, 1); });
}

TEST(AutodiffBatchNorm, TrainingThroughBatchNormGrad) {
  check_grad(
      {rand_f64({4, 3, 2}, 6), rand_f64({2}, 7, 0.5, 1.5), rand_f64({2}, 8)},
      [](const Vs& a) { return batch_norm_training(a[0], a[1], a[2], 1e-3f, 2)[0]; }, {}, 1e-6,
      1e-5);
}

}  // namespace
}  // namespace hhlo
