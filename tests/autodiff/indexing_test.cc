// Finite-difference checks of pad, reverse, dynamic_slice, dynamic_update_slice, gather, scatter
// and sort.
#include <gtest/gtest.h>

#include "gradcheck_util.h"
#include "hhlo/ir/ops.h"

namespace hhlo {
namespace {

using test::check_grad;
using test::rand_f64;
using Vs = std::vector<Value>;

TEST(AutodiffIndexing, PadWithNegativeEdgesAndInterior) {
  check_grad({rand_f64({3, 4}, 1), Array::from<double>({}, {0.5})}, [](const Vs& a) {
    return pad(a[0], a[1], {1, -1}, {2, 0}, {1, 2});
  });
}

TEST(AutodiffIndexing, Reverse) {
  check_grad({rand_f64({3, 4}, 2)}, [](const Vs& a) { return reverse(a[0], {0, 1}); });
}

TEST(AutodiffIndexing, DynamicSliceAndUpdateSliceIncludingClampedStarts) {
  for (int32_t start : {1, 5}) {  // 5 is clamped to 2
    SCOPED_TRACE(start);
    check_grad({rand_f64({4, 5}, 3), rand_f64({2, 3}, 4)}, [start](const Vs& a) {
      Func& f = a[0].func();
      std::vector<Value> idx = {constant(f, start, DType::i32), constant(f, 1, DType::i32)};
      Value s = dynamic_slice(a[0], idx, {2, 3});
      Value u = dynamic_update_slice(a[0], multiply(a[1], s), idx);
      return u;
    });
  }
}

TEST(AutodiffIndexing, GatherRowsWithRepeatsAndClamping) {
  // Rows 2, 0, 2 and an out-of-range 7 (clamped to 3) of a [4, 3] table.
  check_grad({rand_f64({4, 3}, 5), Array::from<int32_t>({4, 1}, {2, 0, 2, 7})}, [](const Vs& a) {
    GatherDimensionNumbers dn{.offset_dims = {1},
                              .collapsed_slice_dims = {0},
                              .start_index_map = {0},
                              .index_vector_dim = 1};
    return gather(a[0], a[1], dn, {1, 3});
  });
}

TEST(AutodiffIndexing, ScatterAddAndReplace) {
  ScatterDimensionNumbers dn{.update_window_dims = {1},
                             .inserted_window_dims = {0},
                             .scatter_dims_to_operand_dims = {0},
                             .index_vector_dim = 1};
  Array idx = Array::from<int32_t>({2, 1}, {3, 1});
  check_grad({rand_f64({4, 2}, 6), idx, rand_f64({2, 2}, 7)}, [&](const Vs& a) {
    return scatter({a[0]}, a[1], {a[2]}, dn, [](const Vs& s) { return Vs{add(s[0], s[1])}; })[0];
  });
  check_grad({rand_f64({4, 2}, 8), idx, rand_f64({2, 2}, 9)}, [&](const Vs& a) {
    return scatter({a[0]}, a[1], {a[2]}, dn, [](const Vs& s) { return Vs{s[1]}; })[0];
  });
}

TEST(AutodiffIndexing, SortThroughThePermutation) {
  // Two operands sorted by the first (descending); gradients flow to both through the permutation.
  check_grad({rand_f64({2, 5}, 10), rand_f64({2, 5}, 11)}, [](const Vs& a) {
    auto r = sort({a[0], a[1]}, 1,
                  [](const Vs& c) { return Vs{compare(c[0], c[1], ComparisonDirection::GT)}; });
    return add(r[0], multiply(r[1], r[1]));
  });
}

}  // namespace
}  // namespace hhlo
