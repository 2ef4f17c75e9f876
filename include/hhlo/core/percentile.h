// Percentiles of timings: the one helper behind `hhlo run --repeat`, `hhlo bench` and `hhlo tune`.
#pragma once

#include <vector>

namespace hhlo {

/// Percentile `p` (0..100) of `sorted` (ascending), linear between the closest ranks (NumPy's
/// default `linear` method: the median of an even count is the mean of the middle two); 0 for an
/// empty vector. `p` outside [0, 100] is clamped.
double percentile(const std::vector<double>& sorted, double p);

}  // namespace hhlo
