// Percentiles of timings (hhlo/core/percentile.h).
#include "hhlo/core/percentile.h"

#include <algorithm>
#include <cmath>

namespace hhlo {

double percentile(const std::vector<double>& v, double p) {
  if (v.empty()) return 0;
  double rank = std::clamp(p, 0.0, 100.0) / 100.0 * static_cast<double>(v.size() - 1);
  std::size_t lo = static_cast<std::size_t>(std::floor(rank));
  std::size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (rank - static_cast<double>(lo));
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return percentile(values, 50);
}

}  // namespace hhlo
