// vmap composed with the autodiff transforms: vmap(grad(f)) (per-example gradients) and
// vmap(jvp(f)) against stacking; grad, jvp and hvp of vmapped functions against central finite
// differences (gradcheck_util: every op the batching rules emit needs VJP and JVP rules).
#include <gtest/gtest.h>

#include "gradcheck_util.h"
#include "hhlo/autodiff/vjp_registry.h"
#include "hhlo/autodiff/vmap.h"
#include "hhlo/ir/conv_dimension_numbers.h"
#include "hhlo/ir/ops.h"
#include "vmap_util.h"

namespace hhlo {
namespace {

using Vs = std::vector<Value>;
using test::check_grad;
using test::check_vmap;
using test::rand_f64;
constexpr ad::Axis none = std::nullopt;

// A small MLP loss of one example: x [3], w1 [3, 4], w2 [4].
Value mlp_loss(Value x, Value w1, Value w2) {
  Value h = tanh(dot_general(x, w1, {{}, {}, {0}, {0}}));
  Value y = dot_general(h, w2, {{}, {}, {0}, {0}});
  return multiply(y, y);
}

TEST(VmapCompose, PerExampleGradients) {
  auto g = [](const Vs& a) { return ad::grad(mlp_loss(a[0], a[1], a[2]), {a[1], a[2]}); };
  check_vmap(g, {rand_f64({5, 3}, 1), rand_f64({3, 4}, 2), rand_f64({4}, 3)}, {0, none, none}, {},
             1e-12);
}

TEST(VmapCompose, VmapOfJvp) {
  auto f = [](const Vs& a) {
    return ad::jvp([](const Vs& v) { return Vs{mlp_loss(v[0], v[1], v[2])}; }, {a[0], a[1], a[2]},
                   {a[3], ad::full_like(a[1], 0.5), ad::full_like(a[2], -1.0)})
        .second;
  };
  check_vmap(f, {rand_f64({5, 3}, 1), rand_f64({3, 4}, 2), rand_f64({4}, 3), rand_f64({5, 3}, 4)},
             {0, none, none, 0});
}

TEST(VmapCompose, GradJvpHvpOfVmappedMlp) {
  check_grad({rand_f64({5, 3}, 1), rand_f64({3, 4}, 2), rand_f64({4}, 3)}, [](const Vs& a) {
    return ad::vmap([](const Vs& v) { return Vs{mlp_loss(v[0], v[1], v[2])}; }, a,
                    {0, none, none})[0];
  });
}

TEST(VmapCompose, GradOfVmappedGatherAndDynamicSlice) {
  // Batched indices: gather with batching dims, dynamic_slice through gather.
  Array idx = Array::from<int32_t>({4, 2, 1}, {0, 3, 1, 1, 2, 0, 3, 2});
  Array start = Array::from<int32_t>({4}, {0, 2, 1, 5});
  check_grad({rand_f64({4, 4, 3}, 1), idx, start}, [](const Vs& a) {
    return ad::vmap(
        [](const Vs& v) {
          Value rows = gather(v[0], v[1],
                              {.offset_dims = {1},
                               .collapsed_slice_dims = {0},
                               .start_index_map = {0},
                               .index_vector_dim = 1},
                              {1, 3});
          Value win = dynamic_slice(v[0], {v[2], constant(v[0].func(), 0, DType::i32)}, {2, 3});
          return Vs{add(sine(rows), multiply(win, win))};
        },
        a)[0];
  });
}

TEST(VmapCompose, GradOfVmappedConvolution) {
  ConvDimensionNumbers d = conv_dimension_numbers("NCHW", "OIHW", "NCHW");
  check_grad({rand_f64({3, 1, 2, 4, 4}, 1), rand_f64({2, 2, 2, 2}, 2)}, [&](const Vs& a) {
    return ad::vmap([&](const Vs& v) { return Vs{tanh(convolution(v[0], v[1], d))}; }, a,
                    {0, none})[0];
  });
}

TEST(VmapCompose, GradOfVmappedWhileAndSelect) {
  check_grad({rand_f64({4, 3}, 1), rand_f64({3}, 2)}, [](const Vs& a) {
    return ad::vmap(
        [](const Vs& v) {
          Func& f = v[0].func();
          Vs r = while_loop(
              {constant(f, 0, DType::i32), v[0]},
              [](const Vs& s) {
                return Vs{
                    compare(s[0], constant(s[0].func(), 3, DType::i32), ComparisonDirection::LT)};
              },
              [&](const Vs& s) {
                return Vs{add(s[0], constant(s[0].func(), 1, DType::i32)),
                          add(multiply(s[1], v[1]), sine(s[1]))};
              });
          Value p = compare(r[1], ad::full_like(r[1], 0.0), ComparisonDirection::GT);
          return Vs{select(p, r[1], multiply(r[1], r[1]))};
        },
        a, {0, none})[0];
  });
}

}  // namespace
}  // namespace hhlo
