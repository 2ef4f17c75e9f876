// Finite-difference checks of the data-movement rules and of dot_general / reduce.
#include <gtest/gtest.h>

#include "gradcheck_util.h"
#include "hhlo/autodiff/vjp_registry.h"
#include "hhlo/ir/ops.h"

namespace hhlo {
namespace {

using test::check_grad;
using test::rand_f64;
using Vs = std::vector<Value>;

TEST(AutodiffShape, BroadcastInDimWithNewAndSizeOneDims) {
  check_grad({rand_f64({3, 1}, 1)}, [](const Vs& a) {
    return broadcast_in_dim(a[0], {2, 3, 4}, {1, 2});
  });
}

TEST(AutodiffShape, ReshapeAndTranspose) {
  check_grad({rand_f64({2, 3, 4}, 2)}, [](const Vs& a) {
    return reshape(transpose(a[0], {2, 0, 1}), {4, 6});
  });
}

TEST(AutodiffShape, SliceWithStrides) {
  check_grad({rand_f64({5, 7}, 3)}, [](const Vs& a) {
    return slice(a[0], {1, 0}, {5, 7}, {2, 3});
  });
}

TEST(AutodiffShape, Concatenate) {
  check_grad({rand_f64({2, 3}, 4), rand_f64({2, 1}, 5), rand_f64({2, 2}, 6)}, [](const Vs& a) {
    return concatenate({a[0], a[1], a[2]}, 1);
  });
}

TEST(AutodiffDot, Matmul) {
  check_grad({rand_f64({3, 4}, 7), rand_f64({4, 2}, 8)}, [](const Vs& a) {
    return dot_general(a[0], a[1],
                       {.lhs_contracting_dimensions = {1}, .rhs_contracting_dimensions = {0}});
  });
}

TEST(AutodiffDot, BatchedWithUnusualDimensionOrder) {
  // lhs [c=3, b=2, m=4, d=5], rhs [n=2, d=5, b=2, c=3]: batch b, contract (c, d) in swapped order.
  check_grad({rand_f64({3, 2, 4, 5}, 9), rand_f64({2, 5, 2, 3}, 10)}, [](const Vs& a) {
    return dot_general(a[0], a[1],
                       {.lhs_batching_dimensions = {1},
                        .rhs_batching_dimensions = {2},
                        .lhs_contracting_dimensions = {3, 0},
                        .rhs_contracting_dimensions = {1, 3}});
  });
}

TEST(AutodiffDot, OuterProductNoContraction) {
  check_grad({rand_f64({3}, 11), rand_f64({2}, 12)},
             [](const Vs& a) { return dot_general(a[0], a[1], {}); });
}

TEST(AutodiffReduce, SumMaxMinProduct) {
  auto body = [](const char* op) {
    return [op](const Vs& a) {
      Value x = a[0];
      Value init = constant(x.func(),
                            std::string(op) == "multiply"  ? 1.0
                            : std::string(op) == "add"     ? 0.0
                            : std::string(op) == "maximum" ? -1e300
                                                           : 1e300,
                            DType::f64);
      return reduce(x, init, {1}, [op](Value acc, Value e) { return binary(op, acc, e); });
    };
  };
  for (const char* op : {"add", "maximum", "minimum", "multiply"}) {
    SCOPED_TRACE(op);
    check_grad({rand_f64({3, 4, 2}, 13, 0.5, 2.0)}, body(op));
  }
}

TEST(AutodiffReduce, MaxSplitsTheCotangentAmongTies) {
  // Hand-derived: max over [2, 2, 1] with cotangent w gets w/2, w/2, 0.
  Array x = Array::from<double>({1, 3}, {2.0, 2.0, 1.0});
  auto g = check_grad(
      {x},
      [](const Vs& a) {
        return reduce(a[0], constant(a[0].func(), -1e300, DType::f64), {1},
                      [](Value acc, Value e) { return maximum(acc, e); });
      },
      {}, 1e-6, 1e9);
  double w = test::rand_f64({1}, 12345, 0.5, 1.5).to_vector<double>()[0];
  EXPECT_EQ(g[0].to_vector<double>(), (std::vector<double>{w / 2, w / 2, 0.0}));
}

TEST(AutodiffHelpers, UnbroadcastNumpyStyle) {
  check_grad({rand_f64({3, 1}, 14)}, [](const Vs& a) {
    Value b = broadcast_in_dim(a[0], {2, 3, 4}, {1, 2});
    // unbroadcast is the transpose of the broadcast: apply both and differentiate the composite.
    return multiply(ad::unbroadcast(b, {3, 1}), a[0]);
  });
}

}  // namespace
}  // namespace hhlo
