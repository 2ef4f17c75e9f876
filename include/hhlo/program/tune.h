// Execution mode and XLA CPU options chosen by measurement (`hhlo tune`, issue 26): a prepared
// program is timed on its inputs under the CPU client's execution modes and a short documented
// list of XLA option sets; the fastest candidate whose outputs agree with the defaults' (within
// the dtype's tolerance) and not slower than the defaults with busy processes on the cores is
// kept (hhlo/program/tune_decision.h), and remembered in the compile cache beside the program's
// source record (hhlo/program/program_cache.h) under a key derived from its source key, so that
// `hhlo run`, `hhlo bench` and Session use it. See docs/benchmarks.md "Tuning".
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "hhlo/core/array.h"
#include "hhlo/program/program.h"
#include "hhlo/runtime/client.h"
#include "hhlo/runtime/compile_cache.h"
#include "hhlo/runtime/compile_options.h"

namespace hhlo {

/// A way to run a program: the client's execution mode and XLA options over the caller's.
struct TunedChoice {
  /// True: the CPU client created with `asynchronous = false` (each execution runs on the calling
  /// thread); false: the plugin's default, XLA's thread pool.
  bool synchronous = false;
  /// XLA options (DebugOptions fields) set over the caller's CompileOptions::xla_options.
  std::map<std::string, XlaOptionValue> xla_options;
  /// The program's f32 convolutions and/or dot_generals run as oneDNN's kernels, on
  /// onednn.threads OpenMP threads (PrepareOptions::onednn, hhlo/program/onednn_rewrite.h); the
  /// client must have them registered (register_onednn_kernels, hhlo/onednn/kernels.h). `hhlo
  /// run` and `hhlo bench` follow it; Session applies only the other fields (its programs follow
  /// its own OneDnnOps, hhlo/session.h).
  OneDnnOps onednn;
  /// When 2 or more: `@main`'s counted loops unrolled by up to this many iterations per body
  /// (PrepareOptions::unroll_loops, hhlo/program/loop_unroll.h); 0: not.
  int unroll_loops = 0;

  /// "execution sync, xla_cpu_use_xnnpack=false"; "execution async, oneDNN convolutions and
  /// dot_generals (1 thread)"; "execution async (defaults)" when nothing is changed.
  std::string describe() const;
  /// `base` with xla_options set over base.xla_options.
  CompileOptions apply(CompileOptions base) const;
  /// `base` with the choice's program rewrites set: unroll_loops when not 0, the oneDNN ops (and
  /// their threads) when chosen; the others of `base` kept.
  PrepareOptions with_rewrites(PrepareOptions base) const;
  bool operator==(const TunedChoice&) const = default;
};

/// The XLA option sets tune tries after the execution mode, each alone over the defaults and
/// each accepted by the pinned CPU plugin (PJRT 0.115). None changes the numerics by design
/// (fast-math options are never candidates); every candidate's outputs are still checked:
///   xla_cpu_use_xnnpack=false                     XNNPACK kernels off (Eigen dots)
///   xla_cpu_experimental_ynn_fusion_type=""       no YNNPACK fusions
///   xla_cpu_experimental_onednn_fusion_type=""    no oneDNN fusions
///   xla_cpu_multi_thread_eigen=false              Eigen on one thread
std::vector<std::map<std::string, XlaOptionValue>> tune_option_sets();

/// What tune measured of one candidate.
struct TuneTiming {
  TunedChoice candidate;
  /// Median and minimum of the timed calls (execute + await, inputs on the device), microseconds;
  /// 0 when not timed.
  double median_us = 0, min_us = 0;
  /// Timed calls.
  int calls = 0;
  /// True when the candidate compiled, ran, and its outputs agree with the defaults'.
  bool usable = false;
  /// Why it is not usable: "refused by the plugin: ...", "outputs differ: out0[3] 1.5 vs 1.25",
  /// "skipped: budget spent"; "" when usable.
  std::string note;
};

/// The default of TuneOptions::loaded_workers: the online cores (std::thread::
/// hardware_concurrency), at least 1.
int default_loaded_workers();

/// How tune spends its time.
struct TuneOptions {
  /// Seconds for the whole tuning (compiles, checks and timed calls); must be > 0. The defaults
  /// (async, no option changed) are always measured, with at least 3 calls, to give the reference
  /// outputs; a candidate is started only while time is left, and each gets an equal share of
  /// what is left (at most max_calls calls).
  double budget_s = 30;
  /// Bound on the timed calls of one candidate.
  int max_calls = 500;
  /// Untimed calls of each candidate before its timed ones.
  int warmup = 2;
  /// Try the synchronous client (CPU only).
  bool try_sync = true;
  /// Last, try the chosen candidate with the program's convolutions, its dot_generals, and both,
  /// rewritten for oneDNN (each where the program has an op the rewrite serves), once per count
  /// of onednn_threads, each under the chosen execution mode and (try_sync) the other one:
  /// oneDNN's OpenMP threads contend with the asynchronous client's pool, so the mode chosen
  /// without oneDNN is no guide. make_client's clients must then have the kernels registered.
  bool try_onednn = false;
  /// The OpenMP thread counts of oneDNN to try (OneDnnOps::threads), in order: the
  /// calling thread alone (1), which measured fastest inside a training step, where oneDNN's
  /// threads contend with XLA's, and never stalls when another process holds a core; then its
  /// default (0, every core), kept only when more than the noise margin faster (docs/facts.md:
  /// on a shared machine 2 OpenMP threads had rounds of 24 ms for a 77 us call).
  std::vector<int> onednn_threads = {1, 0};
  /// The loop unrolling factors to try (TunedChoice::unroll_loops), each over the choice of the
  /// mode and option sets and under both modes (try_sync), when the program has a loop unroll_loops
  /// unrolls: 4 measured 15% faster on a 64-step LSTM at batch 1 (docs/benchmarks.md "Tuning");
  /// empty: none.
  std::vector<int> unroll_factors = {4};
  /// The option sets to try after the mode (default tune_option_sets()).
  std::vector<std::map<std::string, XlaOptionValue>> option_sets = tune_option_sets();
  /// Rounds of the confirmation (0: none). When a candidate other than the defaults was timed
  /// faster than the defaults (by any margin), the two fastest such candidates and the defaults
  /// are timed again in rotation, one slice each per round, with what is left of the budget
  /// (confirm_share of it kept for this); the faster candidate of the rotation is chosen only
  /// when the median of its round medians is more than 3% below the defaults' (and, with
  /// loaded_workers, it is not slower under load: decide_tuned). Each candidate is
  /// timed alone, in its own stretch of time: on a shared machine a quiet stretch can make a
  /// candidate win that is not faster, or one that is look no faster (docs/benchmarks.md,
  /// "Tuning").
  int confirm_rounds = 3;
  /// The share of budget_s kept for the confirmation, in [0, 0.9].
  double confirm_share = 0.2;
  /// Busy workers of the loaded confirmation (issue 43): after the rotation above, the same sides
  /// are timed again in rotation (as many rounds) while this many child processes, each spinning
  /// one core (hhlo/program/busy_load.h), compete for the cores, as a neighbour on a server
  /// does; a candidate is chosen only when it is also not more than the noise margin slower than
  /// the defaults there (decide_tuned, hhlo/program/tune_decision.h). What is left of the budget
  /// at the confirmation is split in halves, the first for the idle rotation, the rest for the
  /// loaded one. Default: the online cores (default_loaded_workers); 0: no loaded rotation (the
  /// idle one alone decides). Must be in [0, 256].
  int loaded_workers = default_loaded_workers();
  /// Called once per candidate after it is measured or skipped (e.g. to print a progress line),
  /// and once for each side of the confirmation, idle then loaded.
  std::function<void(const TuneTiming&)> progress;
};

/// What tune found.
struct TuneResult {
  /// The fastest usable candidate (the defaults when none is faster).
  TunedChoice choice;
  /// Median of the chosen candidate and of the defaults, microseconds.
  double choice_median_us = 0, default_median_us = 0;
  /// Every candidate, in the order tried: the defaults, the synchronous client, then each option
  /// set under the faster mode, then the choice so far with its loops unrolled (once per factor
  /// and mode),
  /// then (try_onednn) the choice so far with oneDNN's convolutions, dot_generals, and both,
  /// once per thread count, each under both modes.
  std::vector<TuneTiming> timings;
  /// The confirmation (TuneOptions::confirm_rounds), made when a usable candidate other than
  /// the defaults was timed faster than the defaults: the defaults, the fastest such candidate
  /// (confirmed_candidate) and the next fastest (confirmed_runner_up, when there is one) timed
  /// in rotation (median of the round medians; calls summed). The faster of the two is then the
  /// choice when more than the noise margin (3%) faster than the defaults and (the loaded sides
  /// below) not more than it slower under load, else the defaults; so
  /// is it when the confirmation failed (its note says why; default_median_us then stays the
  /// timings'). choice_median_us and default_median_us are the confirmation's medians (idle).
  std::optional<TuneTiming> confirmed_defaults, confirmed_candidate, confirmed_runner_up;
  /// The same sides timed again in rotation with loaded_workers busy processes on the cores
  /// (TuneOptions::loaded_workers), when there was a confirmation and loaded_workers > 0 (not
  /// usable, with the note saying why, when that rotation failed: the defaults are then chosen).
  /// A candidate more than the noise margin faster than the defaults idle is chosen only when its
  /// loaded median is at most the noise margin above the defaults' (decide_tuned).
  std::optional<TuneTiming> confirmed_defaults_loaded, confirmed_candidate_loaded,
      confirmed_runner_up_loaded;
  /// The busy processes of the loaded rotation; 0 when there was none.
  int loaded_workers = 0;
  /// The fastest candidate of the idle rotation that was faster than the defaults beyond the
  /// noise margin but refused because it was slower than them under load; nullopt when none was.
  std::optional<TunedChoice> refused_under_load;
};

/// Makes the client a candidate runs on: `synchronous` as in TunedChoice. Called at most once per
/// mode.
using ClientFactory = std::function<Client(bool synchronous)>;

/// Times `program` on `args` (those its `@main` takes, in order) compiled with `base` and each
/// candidate (TunedChoice::apply), on clients from `make_client`, and keeps the fastest whose
/// outputs agree with the defaults' (outputs_agree); a candidate replaces the current choice only
/// when its median is more than 3% lower (within the noise, the simpler choice stays), and the
/// fastest candidates are confirmed against the defaults in alternation
/// (TuneOptions::confirm_rounds), idle and with busy processes on the cores
/// (TuneOptions::loaded_workers), which then decides (decide_tuned).
/// Candidates the plugin refuses, that fail or disagree are reported in the timings, never
/// chosen. Times are measured, never assumed. Throws hhlo::Error when options.budget_s <= 0,
/// max_calls < 3, confirm_rounds < 0, confirm_share outside [0, 0.9], loaded_workers outside
/// [0, 256] or the program is
/// partitioned (num_partitions > 1), and what compiling or running the defaults throws (an
/// option of `base` the plugin refuses: hhlo::PjrtError).
TuneResult tune(const PreparedProgram& program, const std::vector<Array>& args,
                const CompileOptions& base, const ClientFactory& make_client,
                const TuneOptions& options = {});

/// Relative and absolute tolerance of comparing outputs of `dtype`: f64 1e-9, f32 and c64 1e-4,
/// f16 1e-2, bf16 5e-2 (c128 as f64); 0 (exact) for integers and pred.
double agreement_tolerance(DType dtype);

/// True when `a` and `b` have equal types and every element agrees: |x - y| <= tol * (1 + |y|)
/// with tol = agreement_tolerance (complex: each part), NaN matching NaN. `where`, if not null,
/// receives the first disagreement ("[3] 1.5 vs 1.25", "type f32 vs f64").
bool outputs_agree(const Array& a, const Array& b, std::string* where = nullptr);

/// The 64-hex-digit key of the tuned choice of the load whose key (load_key in
/// hhlo/program/load.h) is `load_key`.
std::string tuned_key(const std::string& load_key);

/// A choice read back from the compile cache.
struct RememberedChoice {
  TunedChoice choice;
  /// CompileCache::plugin_identity of the plugin it was tuned on: a choice is meant for that
  /// plugin and host only (hhlo::load compares before it makes the client).
  std::string plugin;
  /// Medians tune measured for it and for the defaults, microseconds.
  double median_us = 0, default_median_us = 0;
};

/// The choice remembered under `key`, or nullopt when there is none or it is damaged. A damaged
/// record (a corrupted entry, or not the JSON remember_tuned writes) is removed and described in
/// `damaged` (if not null; left unchanged otherwise). Never throws.
std::optional<RememberedChoice> find_tuned(CompileCache& cache, const std::string& key,
                                           std::string* damaged = nullptr);

/// Removes the choice remembered under `key` (`hhlo tune --forget`); true when there was one.
/// Throws hhlo::IoError when its entry cannot be removed (CompileCache::remove).
bool forget_tuned(CompileCache& cache, const std::string& key);

/// Remembers `result`'s choice under `key`, tuned on the plugin of identity `plugin`
/// (CompileCache::plugin_identity). False when the cache is off, not writable, or its size bound
/// (HHLO_COMPILE_CACHE_MAX_MB) does not keep the record. Never throws.
bool remember_tuned(CompileCache& cache, const std::string& key, const std::string& plugin,
                    const TuneResult& result);

/// The one warning line for a damaged remembered choice: "hhlo: warning: the tuned choice
/// remembered for PROGRAM is damaged (WHY); running with the defaults".
std::string damaged_choice_warning(const std::string& program, const std::string& why);

}  // namespace hhlo
