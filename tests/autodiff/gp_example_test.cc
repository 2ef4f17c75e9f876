// The Gaussian-process example (examples/gp/gp.h) against JAX (tests/autodiff/gen_gp_vectors.py,
// run at build time, committed f64 vectors): log marginal likelihood and its gradient w.r.t. the
// log length scale through cholesky, triangular_solve and their VJP rules. Tolerance 1e-9 relative
// (f64; the two sides factorise in different orders).
#include <gtest/gtest.h>

#include <filesystem>

#include "gp.h"
#include "hhlo/autodiff/autodiff.h"
#include "hhlo/session.h"

namespace hhlo {
namespace {

Array data(const std::string& name) {
  return read_npy((std::filesystem::path(HHLO_GENERATED_DIR) / ("gp_" + name + ".npy")).string());
}

TEST(GaussianProcessExample, LogMarginalLikelihoodAndGradientMatchJax) {
  Array x = data("x"), y = data("y"), log_l = data("log_l");
  Module m;
  Func& f = m.add_func("main", {log_l.type(), x.type(), y.type()});
  Value lml = examples::gp_log_marginal_likelihood(f.arg(0), f.arg(1), f.arg(2), 1.3, 0.05);
  f.ret({lml, ad::grad(lml, {f.arg(0)})[0]});
  Session s(Client::create("cpu"));
  auto out = s.run(m, {log_l, x, y});
  double want = data("lml").to_vector<double>()[0];
  double want_g = data("dlml_dlog_l").to_vector<double>()[0];
  EXPECT_NEAR(out[0].to_vector<double>()[0], want, 1e-9 * std::abs(want));
  EXPECT_NEAR(out[1].to_vector<double>()[0], want_g, 1e-9 * std::abs(want_g));
}

}  // namespace
}  // namespace hhlo
