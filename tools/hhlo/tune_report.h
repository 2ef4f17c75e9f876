// What `hhlo tune` prints of a TuneResult (hhlo/program/tune.h): its progress lines, the
// confirmation's idle and loaded medians side by side, the choice; or all of it as one JSON
// object (--json).
#pragma once

#include <string>

#include "hhlo/program/tune.h"

namespace hhlo::cli {

/// One progress line: the figures first (aligned whatever the candidate's length), then the
/// candidate; or the candidate and why it is not usable.
void print_progress(const TuneTiming& t);

/// The last lines: the confirmation (when made) as a table of idle and loaded medians, the
/// choice and its speed-up over the defaults, the candidate refused because it was slower under
/// load (when one was), and where the choice is remembered.
void print_choice(const TuneResult& r, bool remembered);

/// The whole result as one JSON object: "program", "budget_s", "timings" (one object per
/// candidate: "candidate", "usable", "median_us", "min_us", "calls", "note"), "confirmation"
/// (null, or "rounds", "loaded_workers" and "sides": per side "candidate", "idle" and "loaded",
/// each a timing object or null), "chosen", "choice_median_us", "default_median_us", "speedup",
/// "refused_under_load" (the candidate, or null) and "remembered".
void print_json(const std::string& program, double budget_s, int rounds, const TuneResult& r,
                bool remembered);

}  // namespace hhlo::cli
