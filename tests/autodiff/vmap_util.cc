#include "vmap_util.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "hhlo/ir/ops.h"
#include "hhlo/ir/verifier.h"
#include "hhlo/session.h"

namespace hhlo::test {
namespace {

size_t elem_size(const Array& a) {
  return a.num_elements() == 0 ? 0 : a.byte_size() / static_cast<size_t>(a.num_elements());
}

std::vector<double> as_f64(const Array& a) {
  std::vector<double> out;
  switch (a.dtype()) {
    case DType::f32:
      for (float v : a.values<float>()) out.push_back(v);
      break;
    case DType::f64:
      for (double v : a.values<double>()) out.push_back(v);
      break;
    default:
      break;
  }
  return out;
}

}  // namespace

Array take(const Array& a, int64_t axis, int64_t i) {
  Dims d = a.dims();
  int64_t outer = 1, inner = 1;
  for (int64_t k = 0; k < axis; ++k) outer *= d[k];
  for (int64_t k = axis + 1; k < a.rank(); ++k) inner *= d[k];
  int64_t n = d[axis];
  d.erase(d.begin() + axis);
  Array out(a.dtype(), d);
  size_t es = elem_size(a), chunk = static_cast<size_t>(inner) * es;
  const auto* src = static_cast<const char*>(a.data());
  auto* dst = static_cast<char*>(out.data());
  for (int64_t o = 0; o < outer; ++o)
    if (chunk) std::memcpy(dst + o * chunk, src + (o * n + i) * chunk, chunk);
  return out;
}

Array stack(const std::vector<Array>& xs, int64_t axis) {
  Dims d = xs.at(0).dims();
  int64_t outer = 1, inner = 1;
  for (int64_t k = 0; k < axis; ++k) outer *= d[k];
  for (int64_t k = axis; k < static_cast<int64_t>(d.size()); ++k) inner *= d[k];
  int64_t n = static_cast<int64_t>(xs.size());
  d.insert(d.begin() + axis, n);
  Array out(xs[0].dtype(), d);
  size_t es = elem_size(xs[0]), chunk = static_cast<size_t>(inner) * es;
  auto* dst = static_cast<char*>(out.data());
  for (int64_t i = 0; i < n; ++i) {
    const auto* src = static_cast<const char*>(xs[i].data());
    for (int64_t o = 0; o < outer; ++o)
      if (chunk) std::memcpy(dst + (o * n + i) * chunk, src + o * chunk, chunk);
  }
  return out;
}

void expect_close(const Array& got, const Array& want, double tol, const std::string& what) {
  ASSERT_EQ(got.type(), want.type()) << what;
  if (got.dtype() == DType::f32 || got.dtype() == DType::f64) {
    std::vector<double> g = as_f64(got), w = as_f64(want);
    for (size_t i = 0; i < g.size(); ++i) {
      if (std::isnan(g[i]) && std::isnan(w[i])) continue;
      EXPECT_NEAR(g[i], w[i], tol * std::max(1.0, std::abs(w[i])))
          << what << " at flat index " << i;
    }
  } else {
    EXPECT_EQ(std::memcmp(got.data(), want.data(), got.byte_size()), 0) << what;
  }
}

std::vector<Array> check_vmap(const ad::TraceFn& fn, const std::vector<Array>& inputs,
                              const std::vector<ad::Axis>& in_axes_,
                              const std::vector<ad::Axis>& out_axes_, double tol) {
  std::vector<ad::Axis> in_axes =
      in_axes_.empty() ? std::vector<ad::Axis>(inputs.size(), 0) : in_axes_;
  std::vector<TensorType> batched, per;
  int64_t n = -1;
  for (size_t i = 0; i < inputs.size(); ++i) {
    batched.push_back(inputs[i].type());
    TensorType t = inputs[i].type();
    if (in_axes[i]) {
      n = t.dims[*in_axes[i]];
      t.dims.erase(t.dims.begin() + *in_axes[i]);
    }
    per.push_back(t);
  }
  Module m;
  ad::vmap_func(m, "main", batched, fn, in_axes, out_axes_);
  verify(m);
  std::vector<Array> got = run(m, inputs);

  Module p;
  Func& f = p.add_func("main", per);
  f.ret(fn(f.args()));
  std::vector<std::vector<Array>> per_out(got.size());
  for (int64_t b = 0; b < n; ++b) {
    std::vector<Array> args;
    for (size_t i = 0; i < inputs.size(); ++i)
      args.push_back(in_axes[i] ? take(inputs[i], *in_axes[i], b) : inputs[i]);
    std::vector<Array> r = run(p, args);
    for (size_t j = 0; j < r.size(); ++j) per_out[j].push_back(std::move(r[j]));
  }
  for (size_t j = 0; j < got.size(); ++j) {
    ad::Axis ax = out_axes_.empty() ? ad::Axis{0} : out_axes_[j];
    Array want = ax ? stack(per_out[j], *ax) : per_out[j][0];
    expect_close(got[j], want, tol, "result " + std::to_string(j));
  }
  return got;
}

}  // namespace hhlo::test
