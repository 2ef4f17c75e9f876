// VJP rules of the collectives (src/autodiff/rules/collectives.cc) checked by central finite
// differences on the CPU plugin's 4 devices (4 replicas). SPMD semantics, as JAX's: device d
// holds x_d and computes y_d = op(x)_d; the loss is L = sum_d <c_d, y_d> for fixed per-device
// cotangents c_d, so dL/dx_d is what the VJP program returns on device d.
#include <gtest/gtest.h>

#include <functional>

#include "hhlo/autodiff/autodiff.h"
#include "hhlo/ir/ops.h"
#include "hhlo/ir/verifier.h"
#include "hhlo/runtime/client.h"
#include "hhlo/session.h"

namespace hhlo {
namespace {

const DType F = DType::f32;
const CompileOptions kReplicas{.num_replicas = 4};
const ReplicaGroups kAll4{{{0, 1, 2, 3}}};
const ReplicaGroups kPairs{{{0, 1}, {2, 3}}};
using Op1 = std::function<Value(Value)>;

std::vector<std::vector<Array>> run4(const LoadedExecutable& exe,
                                     const std::vector<std::vector<Array>>& args) {
  const Client& c = default_session().client();
  auto devs = exe.devices();
  std::vector<std::vector<Buffer>> bufs(4);
  std::vector<std::vector<const Buffer*>> ptrs(4);
  for (size_t d = 0; d < 4; ++d) {
    for (const Array& a : args[d]) bufs[d].push_back(c.buffer_from_host(a, devs[d]));
    for (const Buffer& b : bufs[d]) ptrs[d].push_back(&b);
  }
  std::vector<std::vector<Array>> out;
  for (auto& r : exe.execute_replicated(ptrs)) {
    out.emplace_back();
    for (const Buffer& b : r) out.back().push_back(b.to_host());
  }
  return out;
}

double dot(const Array& a, const Array& b) {
  double s = 0;
  auto x = a.to_vector<float>(), y = b.to_vector<float>();
  for (size_t i = 0; i < x.size(); ++i) s += static_cast<double>(x[i]) * y[i];
  return s;
}

/// Checks the VJP of `op` (per-device operand f32[`in`]) against finite differences.
void check(const std::string& name, const Dims& in, const Op1& op) {
  SCOPED_TRACE(name);
  Module fwd;
  Func& f = fwd.add_func("main", {{F, in}});
  Value y = op(f.arg(0));
  f.ret({y});
  verify(fwd);
  Dims out = y.dims();
  Module bwd;
  Func& g = bwd.add_func("main", {{F, in}, {F, out}});
  Value yb = op(g.arg(0));
  g.ret(ad::vjp({yb}, {g.arg(1)}, {g.arg(0)}));
  verify(bwd);
  const Client& c = default_session().client();
  LoadedExecutable fe = c.compile(fwd, kReplicas), be = c.compile(bwd, kReplicas);
  int64_t n_in = 1, n_out = 1;
  for (int64_t d : in) n_in *= d;
  for (int64_t d : out) n_out *= d;
  std::vector<std::vector<float>> x(4), ct(4);
  for (int d = 0; d < 4; ++d) {
    for (int64_t k = 0; k < n_in; ++k) x[d].push_back(0.3f * d - 0.7f * k + 0.1f * k * k);
    for (int64_t k = 0; k < n_out; ++k) ct[d].push_back(1.0f + 0.5f * d + 0.25f * k);
  }
  auto arrays = [&](const std::vector<std::vector<float>>& xs, bool with_ct) {
    std::vector<std::vector<Array>> a(4);
    for (int d = 0; d < 4; ++d) {
      a[d].push_back(Array::from<float>(in, xs[d]));
      if (with_ct) a[d].push_back(Array::from<float>(out, ct[d]));
    }
    return a;
  };
  auto loss = [&](const std::vector<std::vector<float>>& xs) {
    auto y = run4(fe, arrays(xs, false));
    double s = 0;
    for (int d = 0; d < 4; ++d) s += dot(y[d][0], Array::from<float>(out, ct[d]));
    return s;
  };
  auto grads = run4(be, arrays(x, true));
  const float eps = 1e-2f;
  for (int d = 0; d < 4; ++d)
    for (int64_t k = 0; k < n_in; ++k) {
      auto hi = x, lo = x;
      hi[d][k] += eps;
      lo[d][k] -= eps;
      double fd = (loss(hi) - loss(lo)) / (2 * eps);
      EXPECT_NEAR(grads[d][0].to_vector<float>()[k], fd, 2e-2 * (1 + std::abs(fd)))
          << "device " << d << " element " << k;
    }
}

Value sum(Value a, Value b) { return add(a, b); }

TEST(CollectivesVjp, AllReduceSumIsPsumOfTheCotangent) {
  check("all_reduce", {3}, [](Value x) { return all_reduce(multiply(x, x), kAll4, sum); });
  check("all_reduce pairs", {2}, [](Value x) { return all_reduce(sine(x), kPairs, sum); });
}

TEST(CollectivesVjp, AllGatherAndReduceScatterTransposeIntoEachOther) {
  check("all_gather", {2, 2}, [](Value x) { return all_gather(multiply(x, x), 1, kAll4); });
  check("all_gather pairs", {3}, [](Value x) { return all_gather(x, 0, kPairs); });
  check("reduce_scatter", {8},
        [](Value x) { return reduce_scatter(multiply(x, x), 0, kAll4, sum); });
}

TEST(CollectivesVjp, AllToAllAndCollectivePermuteInvert) {
  check("all_to_all", {4, 2}, [](Value x) { return all_to_all(multiply(x, x), 0, 1, 4, kAll4); });
  check("collective_permute", {3}, [](Value x) {
    return collective_permute(multiply(x, x), {{0, 1}, {1, 2}, {2, 0}});  // device 3: zeros
  });
}

TEST(CollectivesVjp, NonSumReductionsAreRefused) {
  Module m;
  Func& f = m.add_func("main", {{F, {2}}});
  Value y = all_reduce(f.arg(0), kAll4, [](Value a, Value b) { return maximum(a, b); });
  try {
    ad::vjp({y}, {y}, {f.arg(0)});
    FAIL() << "a max all_reduce was differentiated";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("sum"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace hhlo
