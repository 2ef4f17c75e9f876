// Gradients at non-smooth points against JAX 0.10.2: one test per row of the table in
// docs/autodiff.md ("Gradients at non-smooth points"). Each case is written in JAX in
// tests/autodiff/gen_nonsmooth_vectors.py (run by the test build, HHLO_GENERATED_DIR/
// nonsmooth_vectors.txt) and here in hhlo ops; the forward value, the VJP (a given cotangent,
// every input) and the JVP (given tangents) must equal JAX's, NaN for NaN and inf for inf.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>

#include "hhlo/autodiff/autodiff.h"
#include "hhlo/autodiff/vjp_registry.h"
#include "hhlo/autodiff/vmap.h"
#include "hhlo/ir/ops.h"
#include "hhlo/nn/layers.h"
#include "hhlo/ops/tensor.h"
#include "hhlo/session.h"
#include "vectors_util.h"

namespace hhlo {
namespace {

using Vs = std::vector<Value>;
using Fn = std::function<Value(const Vs&)>;
using D = ComparisonDirection;

const std::map<std::string, Array>& vectors() {
  static const std::map<std::string, Array> v =
      test::read_generated_vectors("nonsmooth_vectors.txt", "gen_nonsmooth_vectors.py");
  return v;
}
const Array& vec(const std::string& name) {
  auto it = vectors().find(name);
  if (it == vectors().end()) throw Error("no JAX vector " + name);
  return it->second;
}

Value c(Value like, double v) { return ad::full_like(like, v); }
Value gt0(Value x) { return compare(x, c(x, 0.0), D::GT); }
Value reduce_all(Value x, const char* op, double init) {
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < x.rank(); ++d) dims.push_back(d);
  return reduce(x, constant(x.func(), init, x.dtype()), dims,
                [op](Value a, Value b) { return binary(op, a, b); });
}

// Equal as JAX's special values are: NaN for NaN, the same infinity, else within 1e-12
// relative (0.0 and -0.0 compare equal).
void expect_same(const Array& got, const Array& want, const std::string& what) {
  ASSERT_EQ(got.dims(), want.dims()) << what;
  auto g = got.to_vector<double>(), w = want.to_vector<double>();
  for (size_t i = 0; i < g.size(); ++i) {
    if (std::isnan(w[i])) {
      EXPECT_TRUE(std::isnan(g[i])) << what << "[" << i << "]: " << g[i] << ", JAX nan";
    } else if (std::isinf(w[i])) {
      EXPECT_EQ(g[i], w[i]) << what << "[" << i << "]";
    } else {
      EXPECT_NEAR(g[i], w[i], 1e-12 * (1 + std::abs(w[i]))) << what << "[" << i << "]";
    }
  }
}

// Builds fn over the case's inputs with its VJP (JAX's cotangent, w.r.t. every input) and JVP
// (JAX's tangents), runs it, and compares out, vjp/<i> and jvp with JAX's.
void check_case(const std::string& name, const Fn& fn) {
  std::vector<Array> in, ts;
  for (size_t i = 0; vectors().count(name + "/in/" + std::to_string(i)); ++i) {
    in.push_back(vec(name + "/in/" + std::to_string(i)));
    ts.push_back(vec(name + "/t/" + std::to_string(i)));
  }
  ASSERT_FALSE(in.empty()) << "no inputs for case " << name;
  const Array& ct = vec(name + "/ct");
  size_t n = in.size();
  std::vector<TensorType> types;
  for (const Array& a : in) types.push_back(a.type());
  types.push_back(ct.type());
  for (const Array& a : ts) types.push_back(a.type());
  Module m;
  Func& f = m.add_func("main", types);
  Vs x(f.args().begin(), f.args().begin() + static_cast<long>(n));
  Value out = fn(x);
  Vs rets = {out};
  for (Value g : ad::vjp({out}, x, {ad::Cotangent{f.arg(n)}})) rets.push_back(g);
  std::vector<ad::Tangent> tangents;
  for (size_t i = 0; i < n; ++i) tangents.push_back(f.arg(n + 1 + i));
  rets.push_back(ad::jvp({out}, x, tangents)[0]);
  f.ret(rets);
  std::vector<Array> args = in;
  args.push_back(ct);
  args.insert(args.end(), ts.begin(), ts.end());
  std::vector<Array> r = run(m, args);
  expect_same(r[0], vec(name + "/out"), name + " out");
  for (size_t i = 0; i < n; ++i)
    expect_same(r[1 + i], vec(name + "/vjp/" + std::to_string(i)),
                name + " vjp/" + std::to_string(i));
  expect_same(r[n + 1], vec(name + "/jvp"), name + " jvp");
}

TEST(NonSmooth, AbsAtSignedZero) {  // select(x >= 0, g, -g): 1 at 0.0 and -0.0, -1 for NaN
  check_case("abs", [](const Vs& x) { return abs(x[0]); });
}

TEST(NonSmooth, ReluAtZero) {  // jax.nn.relu's custom_jvp: select(x > 0, g, 0)
  check_case("relu", [](const Vs& x) { return Value(nn::relu(x[0])); });
  check_case("relu", [](const Vs& x) { return Value(np::relu(x[0])); });
}

TEST(NonSmooth, ReluSecondOrderAndVmap) {
  // relu's derivative is piecewise constant: hvp 0, also at 0; and vmap of its gradient is the
  // per-row gradient (1 where x > 0, 0 at 0 and below).
  Module m;
  Func& f = m.add_func("main", {TensorType{DType::f64, {2, 3}}, TensorType{DType::f64, {2, 3}}});
  auto loss = [](const Vs& a) { return ad::reduce_sum(Value(nn::relu(a[0])), {0, 1}); };
  Vs hv = ad::hvp(loss, {f.arg(0)}, {f.arg(1)});
  Vs g = ad::vmap(
      [](const Vs& a) { return ad::grad(ad::reduce_sum(Value(nn::relu(a[0])), {0}), {a[0]}); },
      {f.arg(0)}, {0}, {0});
  f.ret({hv[0], g[0]});
  Array x = Array::from<double>({2, 3}, {0.0, -0.0, 1.5, -2.0, 0.0, 3.0});
  Array v = Array::from<double>({2, 3}, {1, 2, 3, 4, 5, 6});
  std::vector<Array> r = run(m, {x, v});
  EXPECT_EQ(r[0].to_vector<double>(), std::vector<double>(6, 0.0));
  EXPECT_EQ(r[1].to_vector<double>(), (std::vector<double>{0, 0, 1, 0, 0, 1}));
}

TEST(NonSmooth, MaximumTiesSplitEvenly) {  // lax.max: 0.5 to each side of a tie
  check_case("maximum_ties", [](const Vs& x) { return maximum(x[0], x[1]); });
}

TEST(NonSmooth, MinimumTiesSplitEvenly) {
  check_case("minimum_ties", [](const Vs& x) { return minimum(x[0], x[1]); });
}

TEST(NonSmooth, MaximumOfAValueWithItself) {  // both halves reach x: 1
  check_case("maximum_same_operand", [](const Vs& x) { return maximum(x[0], x[0]); });
}

TEST(NonSmooth, ReduceMaxTiesAveraged) {  // jnp.max: the cotangent shared among the maxima
  check_case("reduce_max_ties", [](const Vs& x) {
    return reduce_all(x[0], "maximum", -std::numeric_limits<double>::infinity());
  });
}

TEST(NonSmooth, ReduceMinTiesAveraged) {
  check_case("reduce_min_ties", [](const Vs& x) {
    return reduce_all(x[0], "minimum", std::numeric_limits<double>::infinity());
  });
}

TEST(NonSmooth, MaxPoolTiesGoToTheFirstMaximum) {  // reduce_window max: one winner per window
  check_case("max_pool_ties", [](const Vs& x) {
    return reduce_window(
        {x[0]}, {constant(x[0].func(), -std::numeric_limits<double>::infinity(), DType::f64)},
        {2, 2}, {.window_strides = {2, 2}}, [](const Vs& a) { return Vs{maximum(a[0], a[1])}; })[0];
  });
}

TEST(NonSmooth, SortTiesFollowTheStablePermutation) {
  check_case("sort_ties", [](const Vs& x) {
    return sort(
        {x[0]}, 0, [](const Vs& a) { return Vs{compare(a[0], a[1], D::LT)}; }, true)[0];
  });
}

TEST(NonSmooth, ClampAtItsBoundsPassesNothing) {  // lax.clamp: 0 to every operand on a tie
  check_case("clamp_at_bounds", [](const Vs& x) { return clamp(x[0], x[1], x[2]); });
}

TEST(NonSmooth, SqrtAtZero) {  // 0.5 / sqrt(x): inf at 0.0, -inf at -0.0; 0 * inf = nan
  check_case("sqrt_at_zero", [](const Vs& x) { return sqrt(x[0]); });
}

TEST(NonSmooth, CbrtAtZero) {  // (1/3) cbrt(x)^-2: inf at 0.0 and -0.0
  check_case("cbrt_at_zero", [](const Vs& x) { return cbrt(x[0]); });
}

TEST(NonSmooth, PowerAtZeroBase) {  // lax.pow: y x^(y-1) and log(x -> 1 at 0) x^y
  check_case("pow_at_zero", [](const Vs& x) { return power(x[0], x[1]); });
}

TEST(NonSmooth, Atan2AtTheOrigin) {  // y / (x^2 + y^2): 0/0
  check_case("atan2_at_origin", [](const Vs& x) { return atan2(x[0], x[1]); });
}

TEST(NonSmooth, WhereWithLogInTheUnselectedBranch) {  // 0 / 0 reaches x: nan, as in JAX
  check_case("where_log_unselected",
             [](const Vs& x) { return select(gt0(x[0]), log(x[0]), c(x[0], 0.0)); });
}

TEST(NonSmooth, WhereWithNanInTheUnselectedBranch) {  // sqrt(-1) unselected: nan, as in JAX
  check_case("where_sqrt_unselected",
             [](const Vs& x) { return select(gt0(x[0]), sqrt(x[0]), c(x[0], 0.0)); });
}

TEST(NonSmooth, DoubleWhereKeepsTheGradientFinite) {  // JAX's documented work-around
  check_case("where_double_where", [](const Vs& x) {
    Value safe = select(gt0(x[0]), x[0], c(x[0], 1.0));
    return select(gt0(x[0]), sqrt(safe), c(x[0], 0.0));
  });
}

TEST(NonSmooth, SignFloorRoundAreFlat) {  // zero derivative, also at their jumps
  check_case("sign_floor_round", [](const Vs& x) {
    return add(add(sign(x[0]), floor(x[0])), round_nearest_even(x[0]));
  });
}

}  // namespace
}  // namespace hhlo
