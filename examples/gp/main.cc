// `hhlo_example_gp`: fits nothing, evaluates: the log marginal likelihood of a small GP and its
// gradient w.r.t. the log length scale on a few length scales, through the CPU plugin.
#include <fmt/format.h>

#include <cmath>
#include <vector>

#include "gp.h"
#include "hhlo/autodiff/autodiff.h"
#include "hhlo/session.h"

int main() {
  using namespace hhlo;
  const int64_t n = 8;
  std::vector<double> xs, ys;
  for (int64_t i = 0; i < n; ++i) {
    double t = -2.0 + 4.0 * double(i) / double(n - 1);
    xs.push_back(t);
    ys.push_back(std::sin(2 * t));
  }
  Module m;
  Func& f = m.add_func("main", {TensorType{DType::f64, {}}, TensorType{DType::f64, {n, 1}},
                                TensorType{DType::f64, {n}}});
  Value lml = examples::gp_log_marginal_likelihood(f.arg(0), f.arg(1), f.arg(2), 1.0, 0.01);
  f.ret({lml, ad::grad(lml, {f.arg(0)})[0]});
  Session s(Client::create("cpu"));
  for (double l : {0.25, 0.5, 1.0, 2.0}) {
    auto out = s.run(m, {Array::scalar<double>(std::log(l)), Array::from<double>({n, 1}, xs),
                         Array::from<double>({n}, ys)});
    fmt::print("length scale {:5.2f}: log marginal likelihood {:10.4f}, d/d log l {:9.4f}\n", l,
               out[0].to_vector<double>()[0], out[1].to_vector<double>()[0]);
  }
}
