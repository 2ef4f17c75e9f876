// One JAX case checked end to end (jax_case_util.h).
#include "jax_case_util.h"

#include <gtest/gtest.h>

#include <cmath>
#include <complex>

#include "hhlo/autodiff/autodiff.h"
#include "hhlo/session.h"
#include "vectors_util.h"

namespace hhlo::test {

void expect_same(const Array& got, const Array& want, const std::string& what, double tol) {
  ASSERT_EQ(got.dims(), want.dims()) << what;
  ASSERT_EQ(got.dtype(), want.dtype()) << what;
  if (is_complex(want.dtype())) {
    auto g = got.to_vector<std::complex<double>>(), w = want.to_vector<std::complex<double>>();
    for (size_t i = 0; i < g.size(); ++i)
      EXPECT_LE(std::abs(g[i] - w[i]), tol * (1 + std::abs(w[i])))
          << what << "[" << i << "]: " << g[i] << ", JAX " << w[i];
    return;
  }
  auto g = got.to_vector<double>(), w = want.to_vector<double>();
  for (size_t i = 0; i < g.size(); ++i) {
    if (std::isnan(w[i]))
      EXPECT_TRUE(std::isnan(g[i])) << what << "[" << i << "]: " << g[i] << ", JAX nan";
    else if (std::isinf(w[i]))
      EXPECT_EQ(g[i], w[i]) << what << "[" << i << "]";
    else
      EXPECT_NEAR(g[i], w[i], tol * (1 + std::abs(w[i]))) << what << "[" << i << "]";
  }
}

void check_vjp_jvp_case(const std::map<std::string, Array>& vectors, const std::string& name,
                        const std::function<Value(const std::vector<Value>&)>& fn, double tol) {
  SCOPED_TRACE(name);
  auto vec = [&](const std::string& key) -> const Array& { return vector_named(vectors, key); };
  std::vector<Array> in, ts;
  for (size_t i = 0; vectors.count(name + "/in/" + std::to_string(i)); ++i) {
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
  std::vector<Value> x(f.args().begin(), f.args().begin() + static_cast<long>(n));
  Value out = fn(x);
  std::vector<Value> rets = {out};
  for (Value g : ad::vjp({out}, ad::Wrt{x}, ad::Cotangents{f.arg(n)})) rets.push_back(g);
  std::vector<ad::Tangent> tangents;
  for (size_t i = 0; i < n; ++i) tangents.push_back(f.arg(n + 1 + i));
  rets.push_back(ad::jvp({out}, ad::Wrt{x}, ad::Tangents{tangents})[0]);
  f.ret(rets);
  std::vector<Array> args = in;
  args.push_back(ct);
  args.insert(args.end(), ts.begin(), ts.end());
  std::vector<Array> r = run(m, args);
  expect_same(r[0], vec(name + "/out"), name + " out", tol);
  for (size_t i = 0; i < n; ++i)
    expect_same(r[1 + i], vec(name + "/vjp/" + std::to_string(i)),
                name + " vjp/" + std::to_string(i), tol);
  expect_same(r[n + 1], vec(name + "/jvp"), name + " jvp", tol);
}

}  // namespace hhlo::test
