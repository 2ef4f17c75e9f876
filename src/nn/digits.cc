#include "hhlo/nn/digits.h"

#include <zlib.h>

#include <cstring>
#include <random>
#include <sstream>

namespace hhlo::nn {

std::vector<int64_t> permutation(int64_t n, uint64_t rng_seed) {
  std::vector<int64_t> p(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) p[static_cast<size_t>(i)] = i;
  std::mt19937_64 rng(rng_seed);
  for (int64_t i = n - 1; i > 0; --i) {
    auto j = static_cast<int64_t>(rng() % static_cast<uint64_t>(i + 1));
    std::swap(p[static_cast<size_t>(i)], p[static_cast<size_t>(j)]);
  }
  return p;
}

Digits load_digits(const std::string& path, int64_t test_size, uint64_t seed) {
  gzFile gz = gzopen(path.c_str(), "rb");
  if (!gz)
    throw IoError("load_digits: cannot open '" + path +
                  "' (run scripts/setup.sh to fetch the data)");
  std::string text;
  char buf[1 << 16];
  int n;
  while ((n = gzread(gz, buf, sizeof buf)) > 0) text.append(buf, static_cast<size_t>(n));
  gzclose(gz);
  std::vector<float> pixels;
  std::vector<int32_t> labels;
  std::istringstream in(text);
  std::string line;
  int64_t row = 0;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    ++row;
    std::istringstream ls(line);
    std::string cell;
    std::vector<double> v;
    while (std::getline(ls, cell, ',')) v.push_back(std::stod(cell));
    if (v.size() != 65)
      throw IoError("load_digits: '" + path + "' row " + std::to_string(row) + " has " +
                    std::to_string(v.size()) + " columns, expected 65");
    for (int i = 0; i < 64; ++i)
      pixels.push_back(static_cast<float>(v[static_cast<size_t>(i)] / 16.0));
    labels.push_back(static_cast<int32_t>(v[64]));
  }
  auto total = static_cast<int64_t>(labels.size());
  if (total <= test_size)
    throw IoError("load_digits: '" + path + "' has only " + std::to_string(total) + " rows");
  std::vector<int64_t> p = permutation(total, seed);
  Digits d{Array(DType::f32, {total - test_size, 64}), Array(DType::i32, {total - test_size}),
           Array(DType::f32, {test_size, 64}), Array(DType::i32, {test_size})};
  for (int64_t k = 0; k < total; ++k) {
    bool test = k < test_size;
    int64_t dst = test ? k : k - test_size;
    auto src = static_cast<size_t>(p[static_cast<size_t>(k)]);
    float* x = static_cast<float*>((test ? d.x_test : d.x_train).data()) + dst * 64;
    std::memcpy(x, pixels.data() + src * 64, 64 * sizeof(float));
    static_cast<int32_t*>((test ? d.y_test : d.y_train).data())[dst] = labels[src];
  }
  return d;
}

}  // namespace hhlo::nn
