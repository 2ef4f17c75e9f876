#include "vectors_util.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

namespace hhlo::test {

const Vectors& jax_vectors(const std::string& file) {
  static std::map<std::string, Vectors> cache;
  auto it = cache.find(file);
  if (it != cache.end()) return it->second;
  std::string path = std::string(HHLO_SOURCE_DIR) + "/tests/nn/data/" + file;
  std::ifstream f(path);
  if (!f) throw IoError("cannot open " + path);
  Vectors out;
  std::string line;
  while (std::getline(f, line)) {
    std::istringstream ls(line);
    std::string name, dims_s, vals_s;
    std::getline(ls, name, '|');
    std::getline(ls, dims_s, '|');
    std::getline(ls, vals_s);
    Dims dims;
    std::istringstream ds(dims_s);
    for (std::string d; std::getline(ds, d, ',');) dims.push_back(std::stoll(d));
    std::istringstream vs(vals_s);
    std::vector<double> vals;
    for (std::string t; vs >> t;) vals.push_back(std::stod(t));
    bool is_int = name.find("/y") != std::string::npos || name.find("/ids") != std::string::npos;
    Array a(is_int ? DType::i32 : DType::f32, dims);
    for (size_t i = 0; i < vals.size(); ++i) {
      if (is_int)
        static_cast<int32_t*>(a.data())[i] = static_cast<int32_t>(vals[i]);
      else
        static_cast<float*>(a.data())[i] = static_cast<float>(vals[i]);
    }
    out.emplace(name, std::move(a));
  }
  return cache.emplace(file, std::move(out)).first->second;
}

void expect_close(const Array& got, const Array& want, double tol, const std::string& what) {
  auto x = got.to_vector<float>(), y = want.to_vector<float>();
  ASSERT_EQ(x.size(), y.size()) << what;
  double scale = 0;
  for (float v : y) scale = std::max(scale, static_cast<double>(std::abs(v)));
  for (size_t k = 0; k < x.size(); ++k)
    EXPECT_NEAR(x[k], y[k], tol * (1 + scale)) << what << "[" << k << "]";
}

}  // namespace hhlo::test
