// The tuner's decision over its confirmation (hhlo/program/tune.h, issue 43): a candidate is
// chosen only when it is faster than the defaults with the cores idle and not slower with busy
// processes on them. A pure function of the medians, so that each case is tested by hand.
#pragma once

#include <optional>
#include <vector>

namespace hhlo {

/// The noise margin of the tuner: a candidate must be more than this share faster than the
/// defaults to be chosen, and may be at most this share slower under load.
inline constexpr double kTuneNoise = 0.03;

/// What the confirmation measured of one side, microseconds: the median of its round medians
/// with the cores idle and, when the loaded rotation was made, with busy processes on them.
struct ConfirmedMedians {
  double idle_us = 0;
  std::optional<double> loaded_us;
};

/// Why a candidate is or is not eligible.
enum class TuneVerdict {
  /// Idle more than the margin below the defaults, and under load not more than the margin
  /// above them (or no loaded rotation was made).
  faster,
  /// Idle not more than the margin below the defaults.
  idle_not_faster,
  /// Faster idle, but under load more than the margin above the defaults.
  slower_under_load,
  /// Faster idle, but the defaults were timed under load and it was not.
  not_timed_under_load,
};

/// The decision: the eligible candidate with the lowest idle median (the first of equal ones),
/// and each candidate's verdict, in the order given.
struct TuneDecision {
  /// Index into the candidates; nullopt: the defaults.
  std::optional<std::size_t> chosen;
  std::vector<TuneVerdict> verdicts;
};

/// Candidate i is eligible when candidates[i].idle_us < defaults.idle_us * (1 - noise) and, when
/// defaults.loaded_us is set, candidates[i].loaded_us is set and at most
/// *defaults.loaded_us * (1 + noise) (a tie at either bound: not faster idle, not slower loaded).
/// Without defaults.loaded_us (no loaded rotation) the idle medians alone decide. Never throws.
TuneDecision decide_tuned(const ConfirmedMedians& defaults,
                          const std::vector<ConfirmedMedians>& candidates,
                          double noise = kTuneNoise);

}  // namespace hhlo
