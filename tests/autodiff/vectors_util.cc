#include "vectors_util.h"

#include <fstream>
#include <sstream>
#include <vector>

namespace hhlo::test {

std::map<std::string, Array> read_vectors(const std::string& file, const std::string& generator) {
  std::string path = std::string(HHLO_SOURCE_DIR) + "/tests/autodiff/data/" + file;
  std::ifstream in(path);
  if (!in) throw IoError(path + ": cannot open (run tests/autodiff/" + generator + ")");
  std::map<std::string, Array> out;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    std::istringstream ls(line);
    std::string name, dtype, dims_s, vals_s;
    std::getline(ls, name, '|');
    std::getline(ls, dtype, '|');
    std::getline(ls, dims_s, '|');
    std::getline(ls, vals_s);
    Dims dims;
    std::istringstream ds(dims_s);
    for (std::string d; std::getline(ds, d, ',');) dims.push_back(std::stoll(d));
    std::vector<double> vals;
    std::istringstream vs(vals_s);
    for (double x; vs >> x;) vals.push_back(x);
    DType t = dtype_from_mlir(dtype == "c64"    ? "complex<f32>"
                              : dtype == "c128" ? "complex<f64>"
                                                : dtype);
    Array a(t, dims);
    bool single = t == DType::f32 || t == DType::c64;
    for (size_t i = 0; i < vals.size(); ++i) {
      if (single)
        static_cast<float*>(a.data())[i] = static_cast<float>(vals[i]);
      else
        static_cast<double*>(a.data())[i] = vals[i];
    }
    out.emplace(name, std::move(a));
  }
  return out;
}

}  // namespace hhlo::test
