// vmap against JAX 0.10.2: jax.vmap of 14 per-example functions (vectors from
// tests/autodiff/gen_vmap_vectors.py -> data/vmap_vectors.txt; each function is written out there
// in JAX and here in hhlo ops) equals hhlo::ad::vmap of the same function run on the CPU plugin.
#include <gtest/gtest.h>

#include <limits>
#include <map>

#include "hhlo/autodiff/autodiff.h"
#include "hhlo/autodiff/vjp_registry.h"
#include "hhlo/autodiff/vmap.h"
#include "hhlo/ir/conv_dimension_numbers.h"
#include "hhlo/ir/ops.h"
#include "hhlo/ir/verifier.h"
#include "hhlo/session.h"
#include "vectors_util.h"
#include "vmap_util.h"

namespace hhlo {
namespace {

using Vs = std::vector<Value>;
constexpr ad::Axis none = std::nullopt;
const double kInf = std::numeric_limits<double>::infinity();

const Array& vec(const std::string& name) {
  static const std::map<std::string, Array> v =
      test::read_vectors("vmap_vectors.txt", "gen_vmap_vectors.py");
  return test::vector_named(v, name);
}

Value c(Value like, double v) { return ad::full_like(like, v); }
Value red(Value x, const char* op, double init, std::vector<int64_t> dims) {
  return reduce(x, constant(x.func(), init, x.dtype()), std::move(dims),
                [op](Value a, Value b) { return binary(op, a, b); });
}
// jnp.argmax(x, axis) (first index of the maximum), i32 here (JAX's is i64 under x64; only used
// as an index).
Value argmax(Value x, int64_t axis) {
  Func& f = x.func();
  Value idx = iota(f, TensorType(DType::i32, x.dims()), axis);
  return reduce({x, idx}, {constant(f, -kInf, x.dtype()), constant(f, 0, DType::i32)}, {axis},
                [](const Vs& v) {
                  Value gt = compare(v[2], v[0], ComparisonDirection::GT);
                  Value eq = and_(compare(v[2], v[0], ComparisonDirection::EQ),
                                  compare(v[3], v[1], ComparisonDirection::LT));
                  Value take = or_(gt, eq);
                  return Vs{select(take, v[2], v[0]), select(take, v[3], v[1])};
                })[1];
}

struct Case {
  std::function<Vs(const Vs&)> f;
  std::vector<ad::Axis> in_axes;
};

const std::map<std::string, Case>& cases() {
  static const std::map<std::string, Case> m = {
      {"elementwise",
       {[](const Vs& a) {
          Value x = a[0], y = a[1];
          return Vs{add(multiply(tanh(x), y), exponential(negate(multiply(x, x))))};
        },
        {0, none}}},
      {"matvec",
       {[](const Vs& a) {
          return Vs{dot_general(a[0], a[1], {{}, {}, {1}, {0}})};
        },
        {none, 0}}},
      {"matmul_both",
       {[](const Vs& a) {
          return Vs{dot_general(a[0], a[1], {{}, {}, {1}, {0}})};
        },
        {0, 1}}},
      {"softmax_rows",
       {[](const Vs& a) {
          Value z = multiply(a[0], a[1]);
          Value m = broadcast_in_dim(red(z, "maximum", -kInf, {1}), z.dims(), {0});
          Value e = exponential(subtract(z, m));
          return Vs{divide(e, broadcast_in_dim(red(e, "add", 0, {1}), z.dims(), {0}))};
        },
        {0, 0}}},
      {"conv",
       {[](const Vs& a) {
          Value x = reshape(a[0], {1, 2, 5, 5});
          ConvDimensionNumbers d = conv_dimension_numbers("NCHW", "OIHW", "NCHW");
          Value o = convolution(x, a[1], d, {.padding = {{1, 1}, {1, 1}}});
          return Vs{reshape(o, {3, 5, 5})};
        },
        {0, 0}}},
      {"gather_rows",
       {[](const Vs& a) {
          Value idx = reshape(argmax(a[1], 0), {2, 1});
          return Vs{gather(a[0], idx,
                           {.offset_dims = {1},
                            .collapsed_slice_dims = {0},
                            .start_index_map = {0},
                            .index_vector_dim = 1},
                           {1, 3})};
        },
        {0, 0}}},
      {"dynamic_slice",
       {[](const Vs& a) { return Vs{dynamic_slice(a[0], {argmax(a[1], 0)}, {3})}; }, {0, 0}}},
      {"scatter_add",
       {[](const Vs& a) {
          Func& f = a[0].func();
          Vs s = sort(
              {a[1], iota(f, TensorType(DType::i32, {5}), 0)}, 0,
              [](const Vs& v) { return Vs{compare(v[0], v[1], ComparisonDirection::LT)}; }, true);
          Value idx = reshape(slice(s[1], {0}, {2}), {2, 1});
          Value upd = slice(a[1], {0}, {2});
          return scatter({a[0]}, idx, {upd},
                         {.inserted_window_dims = {0},
                          .scatter_dims_to_operand_dims = {0},
                          .index_vector_dim = 1},
                         [](const Vs& v) { return Vs{add(v[0], v[1])}; });
        },
        {0, 0}}},
      {"cumsum_while",
       {[](const Vs& a) {
          Func& f = a[0].func();
          Vs r = while_loop(
              {constant(f, 0, DType::i32), c(a[0], 0.0)},
              [](const Vs& v) {
                return Vs{
                    compare(v[0], constant(v[0].func(), 3, DType::i32), ComparisonDirection::LT)};
              },
              [&](const Vs& v) {
                return Vs{add(v[0], constant(v[0].func(), 1, DType::i32)),
                          add(multiply(v[1], a[0]), a[1])};
              });
          return Vs{r[1]};
        },
        {0, none}}},
      {"while_batched_pred",
       {[](const Vs& a) {
          Vs r = while_loop(
              {a[0]},
              [&](const Vs& v) {
                return Vs{compare(red(v[0], "add", 0, {0}), a[1], ComparisonDirection::GT)};
              },
              [](const Vs& v) { return Vs{multiply(v[0], c(v[0], 0.5))}; });
          return r;
        },
        {0, 0}}},
      {"cond",
       {[](const Vs& a) {
          Value p = compare(a[1], c(a[1], 0.0), ComparisonDirection::GT);
          return if_(
              p, [&] { return Vs{sine(a[0])}; }, [&] { return Vs{cosine(a[0])}; });
        },
        {0, 0}}},
      {"sort",
       {[](const Vs& a) {
          return sort({multiply(a[0], a[1])}, 0,
                      [](const Vs& v) { return Vs{compare(v[0], v[1], ComparisonDirection::LT)}; });
        },
        {0, 0}}},
      {"maxpool",
       {[](const Vs& a) {
          Value x = add(a[0], a[1]);
          return reduce_window({x}, {constant(x.func(), -kInf, x.dtype())}, {2, 2}, {},
                               [](const Vs& v) { return Vs{maximum(v[0], v[1])}; });
        },
        {0, none}}},
      {"per_example_grad",
       {[](const Vs& a) {
          Value w = a[0], x = a[1];
          Value h = tanh(dot_general(x, w, {{}, {}, {0}, {0}}));
          return ad::grad(red(multiply(h, h), "add", 0, {0}), {w});
        },
        {none, 0}}},
  };
  return m;
}

class VmapJax : public ::testing::TestWithParam<std::string> {};

TEST_P(VmapJax, MatchesJaxVmap) {
  const std::string& name = GetParam();
  const Case& k = cases().at(name);
  const Array& x = vec(name + "/input/x");
  const Array& y = vec(name + "/input/y");
  Module m;
  ad::vmap_func(m, "main", {x.type(), y.type()}, k.f, k.in_axes);
  verify(m);
  Array out = run(m, {x, y})[0];
  test::expect_close(out, vec(name + "/out"), 1e-12, name);
}

std::vector<std::string> names() {
  std::vector<std::string> n;
  for (const auto& kv : cases()) n.push_back(kv.first);
  return n;
}

INSTANTIATE_TEST_SUITE_P(Cases, VmapJax, ::testing::ValuesIn(names()),
                         [](const auto& info) { return info.param; });

TEST(VmapJax, EveryCaseHasVectors) {
  for (const std::string& n : names()) EXPECT_NO_THROW(vec(n + "/out")) << n;
  EXPECT_EQ(names().size(), 14u);
}

}  // namespace
}  // namespace hhlo
