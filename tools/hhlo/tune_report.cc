// What `hhlo tune` prints of a TuneResult (tune_report.h).
#include "tune_report.h"

#include <fmt/format.h>

#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

namespace hhlo::cli {
namespace {

/// The confirmation's sides, the defaults first: each idle timing with its loaded one (if any).
std::vector<std::pair<const TuneTiming*, const TuneTiming*>> sides(const TuneResult& r) {
  std::vector<std::pair<const TuneTiming*, const TuneTiming*>> out;
  auto add = [&](const std::optional<TuneTiming>& idle, const std::optional<TuneTiming>& loaded) {
    if (idle) out.emplace_back(&*idle, loaded ? &*loaded : nullptr);
  };
  add(r.confirmed_defaults, r.confirmed_defaults_loaded);
  add(r.confirmed_candidate, r.confirmed_candidate_loaded);
  add(r.confirmed_runner_up, r.confirmed_runner_up_loaded);
  return out;
}

/// "1234.5 us", or "-" when `t` is absent or not usable.
std::string median_text(const TuneTiming* t) {
  return t && t->usable ? fmt::format("{:.1f} us", t->median_us) : "-";
}

/// The median of `t` when timed, else null.
nlohmann::json median_or_null(const TuneTiming* t) {
  return t && t->usable ? nlohmann::json(t->median_us) : nlohmann::json(nullptr);
}

nlohmann::json timing_json(const TuneTiming& t) {
  return {{"candidate", t.candidate.describe()},
          {"usable", t.usable},
          {"median_us", t.usable ? nlohmann::json(t.median_us) : nlohmann::json(nullptr)},
          {"min_us", t.usable ? nlohmann::json(t.min_us) : nlohmann::json(nullptr)},
          {"calls", t.calls},
          {"note", t.note}};
}

/// The confirmation as a table: one row per side, idle and loaded medians.
void print_confirmation(const TuneResult& r) {
  auto rows = sides(r);
  if (rows.empty()) return;
  std::string loaded = r.loaded_workers > 0
                           ? fmt::format("loaded: {} busy process{}", r.loaded_workers,
                                         r.loaded_workers == 1 ? "" : "es")
                           : "no loaded rotation";
  fmt::print("confirmation in rotation (idle; {}):\n", loaded);
  fmt::print("  {:>14}  {:>14}  candidate\n", "idle median", "loaded median");
  for (const auto& [idle, load] : rows) {
    fmt::print("  {:>14}  {:>14}  {}\n", median_text(idle), median_text(load),
               idle->candidate.describe());
    for (const TuneTiming* t : {idle, load})
      if (t && !t->usable && !t->note.empty()) fmt::print("  {:>30}  ({})\n", "", t->note);
  }
}

/// The line of the candidate refused because it was slower under load, when there is one.
void print_refused(const TuneResult& r) {
  if (!r.refused_under_load) return;
  for (const auto& [idle, load] : sides(r))
    if (idle->candidate == *r.refused_under_load && idle->usable && load && load->usable) {
      const TuneTiming& d = *r.confirmed_defaults;
      const TuneTiming& dl = *r.confirmed_defaults_loaded;
      fmt::print(
          "not kept: {}: {:.2f}x the defaults' speed idle, but {:.2f}x with {} busy process{} "
          "(slower under load)\n",
          idle->candidate.describe(), d.median_us / idle->median_us, dl.median_us / load->median_us,
          r.loaded_workers, r.loaded_workers == 1 ? "" : "es");
    }
}

/// "; 1.49x with 2 busy processes" for a chosen candidate the loaded rotation timed, else "".
std::string loaded_speedup(const TuneResult& r) {
  const TuneTiming* defaults = nullptr;
  for (const auto& [idle, load] : sides(r))
    if (load && load->usable) {
      if (!defaults) defaults = load;  // the first side: the defaults
      if (load != defaults && idle->candidate == r.choice && load->median_us > 0)
        return fmt::format("; {:.2f}x with {} busy process{}",
                           defaults->median_us / load->median_us, r.loaded_workers,
                           r.loaded_workers == 1 ? "" : "es");
    }
  return "";
}

}  // namespace

void print_progress(const TuneTiming& t) {
  if (t.usable)
    fmt::print("  median {:10.1f} us  (min {:.1f}, {} calls)  {}{}\n", t.median_us, t.min_us,
               t.calls, t.candidate.describe(), t.note.empty() ? "" : "; " + t.note);
  else
    fmt::print("  {:>38}  {}: {}\n", "not usable", t.candidate.describe(), t.note);
  std::fflush(stdout);
}

void print_choice(const TuneResult& r, bool remembered) {
  print_confirmation(r);
  print_refused(r);
  double speedup = r.choice_median_us > 0 ? r.default_median_us / r.choice_median_us : 1;
  fmt::print("chosen: {} (median {:.1f} us, {:.2f}x the defaults' speed{})\n", r.choice.describe(),
             r.choice_median_us, speedup, loaded_speedup(r));
  if (remembered)
    fmt::print("remembered in the compile cache: `hhlo run`, `hhlo bench` and Session use it\n");
  else
    fmt::print(
        "not remembered: the compile cache is off, not writable, or its size bound keeps "
        "nothing (HHLO_COMPILE_CACHE, HHLO_COMPILE_CACHE_MAX_MB)\n");
}

void print_json(const std::string& program, double budget_s, int rounds, const TuneResult& r,
                bool remembered) {
  nlohmann::json timings = nlohmann::json::array();
  for (const TuneTiming& t : r.timings) timings.push_back(timing_json(t));
  nlohmann::json confirmation = nullptr;
  if (auto rows = sides(r); !rows.empty()) {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& [idle, load] : rows)
      list.push_back({{"candidate", idle->candidate.describe()},
                      {"idle", timing_json(*idle)},
                      {"loaded", load ? timing_json(*load) : nlohmann::json(nullptr)},
                      {"idle_median_us", median_or_null(idle)},
                      {"loaded_median_us", median_or_null(load)}});
    confirmation = {{"rounds", rounds}, {"loaded_workers", r.loaded_workers}, {"sides", list}};
  }
  double speedup = r.choice_median_us > 0 ? r.default_median_us / r.choice_median_us : 1;
  nlohmann::json j = {
      {"program", program},
      {"budget_s", budget_s},
      {"timings", timings},
      {"confirmation", confirmation},
      {"chosen", r.choice.describe()},
      {"choice_median_us", r.choice_median_us},
      {"default_median_us", r.default_median_us},
      {"speedup", speedup},
      {"refused_under_load", r.refused_under_load ? nlohmann::json(r.refused_under_load->describe())
                                                  : nlohmann::json(nullptr)},
      {"remembered", remembered}};
  fmt::print("{}\n", j.dump(2));
}

}  // namespace hhlo::cli
