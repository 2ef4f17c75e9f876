// Percentiles of timings: the one helper behind `hhlo run --repeat`, `hhlo bench`, `hhlo tune`
// and `hhlo demo`'s step time.
#pragma once

#include <vector>

namespace hhlo {

/// Percentile `p` (0..100) of `sorted` (ascending), linear between the closest ranks (NumPy's
/// default `linear` method: the median of an even count is the mean of the middle two); 0 for an
/// empty vector. `p` outside [0, 100] is clamped.
double percentile(const std::vector<double>& sorted, double p);

/// The median of `values` (any order): percentile 50 of them sorted (the mean of the middle two
/// for an even count, as NumPy's median); 0 for an empty vector.
double median(std::vector<double> values);

}  // namespace hhlo
