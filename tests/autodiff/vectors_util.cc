#include "vectors_util.h"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <vector>

namespace hhlo::test {

namespace {

std::map<std::string, Array> parse_vectors(const std::string& path, const std::string& hint) {
  std::ifstream in(path);
  if (!in) throw IoError(path + ": cannot open (" + hint + ")");
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
    std::vector<double> vals;  // strtod, unlike operator>>, reads nan and inf
    std::istringstream vs(vals_s);
    for (std::string tok; vs >> tok;) vals.push_back(std::strtod(tok.c_str(), nullptr));
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

}  // namespace

std::map<std::string, Array> read_vectors(const std::string& file, const std::string& generator) {
  return parse_vectors(std::string(HHLO_SOURCE_DIR) + "/tests/autodiff/data/" + file,
                       "run tests/autodiff/" + generator);
}

std::map<std::string, Array> read_generated_vectors(const std::string& file,
                                                    const std::string& generator) {
  return parse_vectors(std::string(HHLO_GENERATED_DIR) + "/" + file,
                       "written by tests/autodiff/" + generator + " when the tests are built");
}

const Array& vector_named(const std::map<std::string, Array>& vectors, const std::string& name) {
  auto it = vectors.find(name);
  if (it == vectors.end()) throw Error("no JAX vector " + name);
  return it->second;
}

}  // namespace hhlo::test
