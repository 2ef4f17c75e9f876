// Execution mode and XLA CPU options chosen by measurement (hhlo/program/tune.h).
#include "hhlo/program/tune.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>

#include "hhlo/core/error.h"
#include "hhlo/core/percentile.h"
#include "hhlo/program/busy_load.h"
#include "hhlo/program/compile.h"
#include "hhlo/program/loop_unroll.h"
#include "hhlo/program/onednn_rewrite.h"
#include "hhlo/program/record_store.h"
#include "hhlo/program/tune_decision.h"

namespace hhlo {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

std::string value_text(const XlaOptionValue& v) {
  if (const bool* b = std::get_if<bool>(&v)) return *b ? "true" : "false";
  if (const int64_t* i = std::get_if<int64_t>(&v)) return std::to_string(*i);
  if (const double* d = std::get_if<double>(&v)) return fmt::format("{}", *d);
  const std::string& text = std::get<std::string>(v);
  return text.empty() ? "\"\"" : text;  // an empty value shown as such, not as a cut-off line
}

nlohmann::json value_json(const XlaOptionValue& v) {
  return std::visit([](const auto& x) { return nlohmann::json(x); }, v);
}

XlaOptionValue value_from(const nlohmann::json& j) {
  if (j.is_boolean()) return j.get<bool>();
  if (j.is_number_integer()) return j.get<int64_t>();
  if (j.is_number_float()) return j.get<double>();
  if (j.is_string()) return j.get<std::string>();
  throw Error(fmt::format("an XLA option value {} that is not a bool, number or string", j.dump()));
}

/// `program` with the rewrites of `c`: its loops unrolled (unroll_loops), then its ops rewritten
/// for oneDNN (c.onednn).
PreparedProgram rewritten(const PreparedProgram& program, const TunedChoice& c) {
  PreparedProgram p;
  static_cast<PreparedFacts&>(p) = program;
  p.hoisted = program.hoisted;  // the trailing parameters the rewrites keep
  const Module* m = &program.module;
  LoopUnroll u;
  if (c.unroll_loops != 0) {
    u = unroll_loops(*m, c.unroll_loops);
    p.loops_unrolled = u.unrolled;
    p.loops_kept = u.kept;
    m = &u.module;
  }
  if (c.onednn.any()) {
    OneDnnRewrite r = rewrite_for_onednn(*m, c.onednn);
    p.onednn_rewritten = r.rewritten;
    p.onednn_kept = r.kept;
    p.module = std::move(r.module);
  } else {
    p.module = std::move(u.module);
  }
  return p;
}

/// Whether the rewrites of `c` change `program` (a loop unrolled; an op of each kind it names
/// rewritten for oneDNN).
bool changes(const PreparedProgram& program, const TunedChoice& c) {
  if (c.unroll_loops != 0 && unroll_loops(program.module, c.unroll_loops).unrolled == 0)
    return false;
  if (c.onednn.convolution &&
      rewrite_for_onednn(program.module, {.convolution = true}).rewritten == 0)
    return false;
  if (c.onednn.dot_general &&
      rewrite_for_onednn(program.module, {.dot_general = true}).rewritten == 0)
    return false;
  return true;
}

/// One candidate compiled on its client, its inputs on the device: ready to run.
struct Ready {
  LoadedExecutable exe;
  std::vector<Buffer> buffers;
  std::vector<const Buffer*> args;  // into buffers
};

/// A usable candidate other than the defaults, as timed, with its executable.
struct Contender {
  TuneTiming timing;
  Ready ready;
};

/// How many of the fastest candidates the confirmation times beside the defaults: two near-equal
/// candidates timed in separate stretches are ordered by the host's noise (docs/benchmarks.md).
constexpr std::size_t kContenders = 2;

/// What one candidate needs while it is measured.
struct Bench {
  const PreparedProgram& program;
  const std::vector<Array>& args;
  const CompileOptions& base;
  const TuneOptions& options;
  /// The clients made so far, by mode (index 1: synchronous).
  std::optional<Client> clients[2];
  const ClientFactory& make_client;
  Clock::time_point start;
  /// The defaults' outputs, the reference every candidate agrees with.
  std::vector<Array> reference;
  /// The program as each candidate's rewrites make it (loops unrolled, ops for oneDNN), by
  /// (unroll factor, oneDNN convolutions, dot_generals, threads), made on first use.
  std::map<std::tuple<int, bool, bool, int>, PreparedProgram> variants;
  /// The executables of the last candidate measured and of the defaults (the latter kept for
  /// the confirmation, which then compiles nothing again).
  std::optional<Ready> last, defaults;
  /// The fastest usable candidates but the defaults, at most kContenders, fastest first, with
  /// their executables: the confirmation's other sides.
  std::vector<Contender> fastest;

  /// The program `c` runs: `program`, or its variant with c's rewrites.
  const PreparedProgram& program_of(const TunedChoice& c) {
    if (c.unroll_loops == 0 && !c.onednn.any()) return program;
    std::tuple<int, bool, bool, int> key{c.unroll_loops, c.onednn.convolution, c.onednn.dot_general,
                                         c.onednn.threads};
    auto it = variants.find(key);
    if (it == variants.end()) it = variants.emplace(key, rewritten(program, c)).first;
    return it->second;
  }

  const Client& client(bool synchronous) {
    std::optional<Client>& c = clients[synchronous ? 1 : 0];
    if (!c) c = make_client(synchronous);
    return *c;
  }
  /// Seconds left for the candidates (the confirmation's share kept back).
  double left_s() const {
    double keep = options.confirm_rounds > 0 ? options.confirm_share : 0;
    return options.budget_s * (1 - keep) - seconds_since(start);
  }
};

/// The outputs of one call of `exe` on `args`, copied to the host.
std::vector<Array> run_once(const LoadedExecutable& exe, const std::vector<const Buffer*>& args) {
  std::vector<Array> out;
  for (const Buffer& b : exe.execute(args, ExecuteOptions::keeping_inputs(args.size())))
    out.push_back(b.to_host());
  return out;
}

/// "" when `out` agrees with `reference`, else where it does not.
std::string disagreement(const std::vector<Array>& out, const std::vector<Array>& reference) {
  if (out.size() != reference.size())
    return fmt::format("{} outputs vs {}", out.size(), reference.size());
  for (std::size_t i = 0; i < out.size(); ++i) {
    std::string where;
    if (!outputs_agree(out[i], reference[i], &where)) return fmt::format("out{}{}", i, where);
  }
  return "";
}

/// Times calls of `exe` on `args` for about `slice_s` seconds (at least `min_calls`, at most
/// max_calls), after the warm-up; fills median_us, min_us and calls of `t`.
void time_calls(const LoadedExecutable& exe, const std::vector<const Buffer*>& args, double slice_s,
                int min_calls, const TuneOptions& o, TuneTiming& t) {
  // Every call runs on the same inputs: a program that donates some (a training step) keeps them.
  const ExecuteOptions keep = ExecuteOptions::keeping_inputs(args.size());
  for (int i = 0; i < o.warmup; ++i) exe.execute(args, keep);
  std::vector<double> us;
  auto t0 = Clock::now();
  while (static_cast<int>(us.size()) < o.max_calls &&
         (static_cast<int>(us.size()) < min_calls || seconds_since(t0) < slice_s)) {
    auto s = Clock::now();
    std::vector<Buffer> out = exe.execute(args, keep);
    us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - s).count());
  }
  t.calls = static_cast<int>(us.size());
  t.min_us = *std::min_element(us.begin(), us.end());
  t.median_us = median(us);
}

/// `candidate` compiled and its inputs copied; throws what compiling or copying throws.
Ready ready_for(Bench& b, const TunedChoice& candidate) {
  const Client& client = b.client(candidate.synchronous);
  Ready r{compile(client, b.program_of(candidate), candidate.apply(b.base)), {}, {}};
  for (const Array& a : b.args) r.buffers.push_back(client.buffer_from_host(a));
  for (const Buffer& buf : r.buffers) r.args.push_back(&buf);
  return r;
}

/// Compiles, checks and times `candidate` with `slice_s` seconds for its calls. The defaults
/// (`reference` still empty) throw what compiling or running throws; other candidates are
/// reported unusable instead.
TuneTiming measure(Bench& b, const TunedChoice& candidate, double slice_s) {
  TuneTiming t{.candidate = candidate};
  bool defaults = b.reference.empty();
  b.last.reset();
  try {
    Ready r = ready_for(b, candidate);
    std::vector<Array> out = run_once(r.exe, r.args);
    if (defaults) b.reference = std::move(out);
    t.note = defaults ? "" : disagreement(out, b.reference);
    if (!t.note.empty()) {
      t.note = "outputs differ from the defaults': " + t.note;
      return t;
    }
    time_calls(r.exe, r.args, slice_s, 3, b.options, t);
    t.usable = true;
    b.last = std::move(r);
  } catch (const Error& e) {
    if (defaults) throw;
    t.note = fmt::format("refused: {}", e.what());
  }
  return t;
}

/// measure of `candidate` with an equal share of the time left among `remaining` candidates
/// (itself included), or skipped when no time is left.
TuneTiming measure_in_budget(Bench& b, const TunedChoice& candidate, std::size_t remaining,
                             TuneResult& result) {
  double left = b.left_s();
  TuneTiming t{.candidate = candidate};
  if (!b.reference.empty() && left <= 0)
    t.note = "skipped: budget spent";
  else
    t = measure(b, candidate, std::max(0.0, left) / static_cast<double>(remaining));
  if (b.options.progress) b.options.progress(t);
  result.timings.push_back(t);
  return t;
}

/// How much faster (relative median) a candidate must be to replace the current choice: less is
/// within the noise of the machine, and the simpler choice stays.
constexpr double kNoise = kTuneNoise;

/// `t` (the last candidate `b` measured) kept as the choice of `result` when usable and faster
/// than the choice so far by more than kNoise (the next rewrites build on it), and among the
/// fastest candidates of `b`, with its executable, when it is one of them.
void keep_faster(Bench& b, const TuneTiming& t, TuneResult& result) {
  if (!t.usable || !b.last) return;
  if (t.median_us < result.choice_median_us * (1 - kNoise)) {
    result.choice = t.candidate;
    result.choice_median_us = t.median_us;
  }
  std::vector<Contender>& f = b.fastest;
  auto at = std::find_if(f.begin(), f.end(),
                         [&](const Contender& c) { return t.median_us < c.timing.median_us; });
  if (static_cast<std::size_t>(at - f.begin()) >= kContenders) return;
  f.insert(at, Contender{t, std::move(*b.last)});
  b.last.reset();
  if (f.size() > kContenders) f.pop_back();
}

/// Times `ready` (one executable per side) in rotation for `rounds` rounds of `slice` seconds
/// each, the order turned every round; each side gets the median of its round medians, its
/// minimum and its calls summed, and is marked usable with `note`. Throws what running throws.
void rotate(const std::vector<Ready*>& ready, double slice, int rounds, const TuneOptions& o,
            const std::string& note, std::vector<TuneTiming>& sides) {
  const int n = static_cast<int>(sides.size());
  std::vector<std::vector<double>> medians(n);
  for (int r = 0; r < rounds; ++r)
    for (int k = 0; k < n; ++k) {
      int i = (r + k) % n;
      TuneTiming t;
      time_calls(ready[i]->exe, ready[i]->args, slice, 3, o, t);
      sides[i].min_us = medians[i].empty() ? t.min_us : std::min(sides[i].min_us, t.min_us);
      medians[i].push_back(t.median_us);
      sides[i].calls += t.calls;
    }
  for (int i = 0; i < n; ++i) {
    sides[i].median_us = median(medians[i]);
    sides[i].usable = true;
    sides[i].note = note;
  }
}

/// The confirmation's sides, the defaults first, with nothing timed.
std::vector<TuneTiming> fresh_sides(const std::vector<TuneTiming>& like) {
  std::vector<TuneTiming> sides;
  for (const TuneTiming& t : like) sides.push_back({.candidate = t.candidate});
  return sides;
}

/// The loaded rotation: `sides` timed again in rotation with what is left of the budget while
/// `workers` busy processes run (BusyLoad: each killed and reaped when it ends, however it
/// ends). Not usable, with the reason in every side's note, when it fails.
std::vector<TuneTiming> confirm_loaded(Bench& b, const std::vector<Ready*>& ready,
                                       const std::vector<TuneTiming>& idle, int workers) {
  std::vector<TuneTiming> sides = fresh_sides(idle);
  const int n = static_cast<int>(sides.size()), rounds = b.options.confirm_rounds;
  try {
    BusyLoad load(workers);
    double slice = std::max(0.0, b.options.budget_s - seconds_since(b.start)) / (n * rounds);
    rotate(ready, slice, rounds, b.options,
           fmt::format("confirmation, in alternation, with {} busy process{}", workers,
                       workers == 1 ? "" : "es"),
           sides);
  } catch (const Error& e) {
    for (TuneTiming& t : sides)
      t.note = fmt::format("confirmation under load failed: {}", e.what());
  }
  return sides;
}

/// The confirmation's medians of side `i` for decide_tuned (loaded only when `loaded` is usable).
ConfirmedMedians medians_of(const std::vector<TuneTiming>& idle,
                            const std::vector<TuneTiming>& loaded, std::size_t i) {
  ConfirmedMedians m{.idle_us = idle[i].median_us};
  if (!loaded.empty() && loaded[i].usable) m.loaded_us = loaded[i].median_us;
  return m;
}

/// The choice of `result` from the confirmation's sides (decide_tuned): the defaults when the
/// idle rotation failed, or the loaded one was made and failed (nothing confirmed).
void choose(const std::vector<TuneTiming>& idle, const std::vector<TuneTiming>& loaded,
            TuneResult& result) {
  result.choice = TunedChoice{};
  result.choice_median_us = result.default_median_us;
  if (!idle[0].usable || (!loaded.empty() && !loaded[0].usable)) return;
  std::vector<ConfirmedMedians> candidates;
  for (std::size_t i = 1; i < idle.size(); ++i) candidates.push_back(medians_of(idle, loaded, i));
  TuneDecision d = decide_tuned(medians_of(idle, loaded, 0), candidates);
  const TuneTiming* refused = nullptr;  // the fastest idle of those slower under load
  for (std::size_t i = 0; i < d.verdicts.size(); ++i)
    if (d.verdicts[i] == TuneVerdict::slower_under_load &&
        (!refused || idle[i + 1].median_us < refused->median_us))
      refused = &idle[i + 1];
  if (refused) result.refused_under_load = refused->candidate;
  if (d.chosen) {
    result.choice = idle[*d.chosen + 1].candidate;
    result.choice_median_us = idle[*d.chosen + 1].median_us;
  }
}

/// The confirmation (TuneOptions::confirm_rounds, loaded_workers): the defaults and the fastest
/// candidates of `b` (their executables from the timings) timed in rotation with what is left of
/// the budget, the order turned every round: half of it with the cores idle, then the rest with
/// loaded_workers busy processes on them (none when 0: the idle rotation has it all). The choice
/// is then decide_tuned's. A confirmation that fails confirms nothing: the defaults are chosen,
/// with the figure their timing gave.
void confirm(Bench& b, TuneResult& result) {
  const int rounds = b.options.confirm_rounds, workers = b.options.loaded_workers;
  std::vector<TuneTiming> idle = {{.candidate = TunedChoice{}}};
  std::vector<Ready*> ready = {nullptr};
  for (Contender& c : b.fastest) {
    idle.push_back({.candidate = c.timing.candidate});
    ready.push_back(&c.ready);
  }
  const int n = static_cast<int>(idle.size());
  try {
    if (!b.defaults) b.defaults = ready_for(b, idle[0].candidate);
    ready[0] = &*b.defaults;
    double left = std::max(0.0, b.options.budget_s - seconds_since(b.start));
    double share = workers > 0 ? left / 2 : left;
    rotate(ready, share / (n * rounds), rounds, b.options, "confirmation, in alternation", idle);
  } catch (const Error& e) {
    for (int i = 1; i < n; ++i) idle[i].note = fmt::format("confirmation refused: {}", e.what());
  }
  std::vector<TuneTiming> loaded;
  if (workers > 0 && idle[0].usable) loaded = confirm_loaded(b, ready, idle, workers);
  for (const std::vector<TuneTiming>* sides : {&idle, &loaded})
    for (const TuneTiming& t : *sides)
      if (b.options.progress) b.options.progress(t);
  result.confirmed_defaults = idle[0];
  result.confirmed_candidate = idle[1];
  if (n == 3) result.confirmed_runner_up = idle[2];
  if (!loaded.empty()) {
    result.loaded_workers = workers;
    result.confirmed_defaults_loaded = loaded[0];
    result.confirmed_candidate_loaded = loaded[1];
    if (n == 3) result.confirmed_runner_up_loaded = loaded[2];
  }
  if (idle[0].usable) result.default_median_us = idle[0].median_us;
  choose(idle, loaded, result);
}

}  // namespace

int default_loaded_workers() {
  return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

std::string TunedChoice::describe() const {
  std::string s = synchronous ? "execution sync" : "execution async";
  if (xla_options.empty() && !onednn.any() && unroll_loops == 0) return s + " (defaults)";
  for (const auto& [name, value] : xla_options)
    s += fmt::format(", {}={}", name, value_text(value));
  if (unroll_loops != 0) s += fmt::format(", loops unrolled by up to {}", unroll_loops);
  return onednn.any() ? s + ", oneDNN " + onednn.describe() : s;
}

CompileOptions TunedChoice::apply(CompileOptions base) const {
  for (const auto& [name, value] : xla_options) base.xla_options[name] = value;
  return base;
}

PrepareOptions TunedChoice::with_rewrites(PrepareOptions base) const {
  if (unroll_loops != 0) base.unroll_loops = unroll_loops;
  if (onednn.any()) base.onednn = onednn;
  return base;
}

std::vector<std::map<std::string, XlaOptionValue>> tune_option_sets() {
  return {{{"xla_cpu_use_xnnpack", false}},
          {{"xla_cpu_experimental_ynn_fusion_type", std::string()}},
          {{"xla_cpu_experimental_onednn_fusion_type", std::string()}},
          {{"xla_cpu_multi_thread_eigen", false}}};
}

TuneResult tune(const PreparedProgram& program, const std::vector<Array>& args,
                const CompileOptions& base, const ClientFactory& make_client,
                const TuneOptions& options) {
  if (!(options.budget_s > 0))
    throw Error(fmt::format("tune: the budget is {} s; give a positive number of seconds",
                            options.budget_s));
  if (program.num_partitions > 1)
    throw Error(
        fmt::format("tune: the program is partitioned over {} devices; only one-device "
                    "programs are timed",
                    program.num_partitions));
  if (options.max_calls < 3)
    throw Error(
        fmt::format("tune: max_calls is {}; at least 3 calls are timed", options.max_calls));
  if (options.confirm_rounds < 0 || !(options.confirm_share >= 0 && options.confirm_share <= 0.9))
    throw Error(fmt::format(
        "tune: confirm_rounds {} and confirm_share {}: give rounds >= 0 and a share in [0, 0.9]",
        options.confirm_rounds, options.confirm_share));
  if (options.loaded_workers < 0 || options.loaded_workers > 256)
    throw Error(fmt::format(
        "tune: loaded_workers is {}; give 0 (no loaded confirmation) to 256 busy processes",
        options.loaded_workers));
  Bench b{program, args, base, options, {}, make_client, Clock::now(), {}};
  // The rewrites that change this program: each a candidate over the choice so far.
  std::vector<int> factors;
  for (int f : options.unroll_factors)
    if (changes(program, TunedChoice{.unroll_loops = f})) factors.push_back(f);
  std::vector<OneDnnOps> onednn;
  if (options.try_onednn)
    for (int t : options.onednn_threads)
      for (OneDnnOps ops : {OneDnnOps{.convolution = true, .threads = t},
                            OneDnnOps{.dot_general = true, .threads = t},
                            OneDnnOps{.convolution = true, .dot_general = true, .threads = t}})
        if (changes(program, TunedChoice{.onednn = ops})) onednn.push_back(ops);
  TuneResult result;
  // The rewrites under each mode: what they change is not what the mode changes (oneDNN's
  // threads contend with the asynchronous client's pool: a batch-64 MLP took 209 us async and 66
  // us sync with oneDNN's dots on OpenMP, the modes within 3% without), so the mode chosen
  // without them is no guide.
  std::size_t modes = options.try_sync ? 2 : 1;
  std::size_t left = 1 + (options.try_sync ? 1 : 0) + options.option_sets.size() +
                     modes * (factors.size() + onednn.size());
  TuneTiming defaults = measure_in_budget(b, TunedChoice{}, left--, result);
  b.defaults = std::move(b.last);
  result.default_median_us = result.choice_median_us = defaults.median_us;
  if (options.try_sync)
    keep_faster(b, measure_in_budget(b, TunedChoice{.synchronous = true}, left--, result), result);
  bool synchronous = result.choice.synchronous;
  for (const auto& set : options.option_sets)
    keep_faster(
        b, measure_in_budget(b, {.synchronous = synchronous, .xla_options = set}, left--, result),
        result);
  // `c` under the mode chosen so far, then under the other one.
  auto in_each_mode = [&](TunedChoice c) {
    for (std::size_t m = 0; m < modes; ++m, c.synchronous = !c.synchronous)
      keep_faster(b, measure_in_budget(b, c, left--, result), result);
  };
  // Each unrolling, then each oneDNN rewrite, over the choice before them (not over one another:
  // one of each kind is kept).
  TunedChoice chosen = result.choice;
  for (int f : factors) {
    TunedChoice c = chosen;
    c.unroll_loops = f;
    in_each_mode(c);
  }
  chosen = result.choice;
  for (const OneDnnOps& ops : onednn) {
    TunedChoice c = chosen;
    c.onednn = ops;
    in_each_mode(c);
  }
  // Any candidate the timings put below the defaults is confirmed, not only one past the noise
  // margin: timed in a stretch of its own, a faster candidate can look as fast as the defaults
  // (transformer_b1 in the peers' run 5, docs/benchmarks.md), and the rotation is the fairer
  // comparison.
  if (options.confirm_rounds > 0 && !b.fastest.empty() &&
      b.fastest.front().timing.median_us < result.default_median_us)
    confirm(b, result);
  return result;
}

double agreement_tolerance(DType dtype) {
  switch (dtype) {
    case DType::f64:
    case DType::c128:
      return 1e-9;
    case DType::f32:
    case DType::c64:
      return 1e-4;
    case DType::f16:
      return 1e-2;
    case DType::bf16:
      return 5e-2;
    default:
      return 0;
  }
}

namespace {

/// True when real numbers `x` and `y` agree within `tol` (NaN matches NaN; infinities exactly).
bool close(double x, double y, double tol) {
  if (std::isnan(x) || std::isnan(y)) return std::isnan(x) && std::isnan(y);
  if (std::isinf(x) || std::isinf(y)) return x == y;
  return std::abs(x - y) <= tol * (1 + std::abs(y));
}

/// Element `i` of complex array `a` (c64 or c128).
std::complex<double> complex_at(const Array& a, int64_t i) {
  if (a.dtype() == DType::c64) return a.values<std::complex<float>>()[i];
  return a.values<std::complex<double>>()[i];
}

}  // namespace

bool outputs_agree(const Array& a, const Array& b, std::string* where) {
  auto say = [&](std::string what) {
    if (where) *where = std::move(what);
    return false;
  };
  if (a.type() != b.type())
    return say(fmt::format(" type {} vs {}", a.type().to_string(), b.type().to_string()));
  double tol = agreement_tolerance(a.dtype());
  if (tol == 0) return a == b ? true : say(" differs (exact dtype)");
  for (int64_t i = 0; i < a.num_elements(); ++i) {
    if (is_complex(a.dtype())) {
      std::complex<double> x = complex_at(a, i), y = complex_at(b, i);
      if (!close(x.real(), y.real(), tol) || !close(x.imag(), y.imag(), tol))
        return say(
            fmt::format("[{}] ({}, {}) vs ({}, {})", i, x.real(), x.imag(), y.real(), y.imag()));
    } else if (!close(a.element_as_double(i), b.element_as_double(i), tol)) {
      return say(fmt::format("[{}] {} vs {}", i, a.element_as_double(i), b.element_as_double(i)));
    }
  }
  return true;
}

std::string tuned_key(const std::string& load_key) {
  return sha256_hex("hhlo-tuned 2\n" + load_key);
}

namespace {

RememberedChoice remembered_from(const nlohmann::json& j) {
  if (j.at("format").get<std::string>() != "hhlo-tuned-2")
    throw Error("a record of another format");
  RememberedChoice r;
  std::string mode = j.at("execution").get<std::string>();
  if (mode != "sync" && mode != "async") throw Error(fmt::format("execution '{}'", mode));
  r.choice.synchronous = mode == "sync";
  for (const auto& [name, value] : j.at("xla_options").items()) {
    if (name.empty()) throw Error("an XLA option without a name");
    r.choice.xla_options[name] = value_from(value);
  }
  r.choice.onednn.convolution = j.value("onednn_convolution", false);  // absent in older records
  r.choice.onednn.dot_general = j.value("onednn_dot_general", false);
  r.choice.onednn.threads = j.value("onednn_threads", 0);
  r.choice.unroll_loops = j.value("unroll_loops", 0);
  if (r.choice.unroll_loops < 0 || r.choice.unroll_loops == 1)
    throw Error(fmt::format("unroll_loops {}", r.choice.unroll_loops));
  if (r.choice.onednn.threads < 0)
    throw Error(fmt::format("onednn_threads {}", r.choice.onednn.threads));
  r.plugin = j.at("plugin").get<std::string>();
  r.median_us = j.at("median_us").get<double>();
  r.default_median_us = j.at("default_median_us").get<double>();
  return r;
}

}  // namespace

std::optional<RememberedChoice> find_tuned(CompileCache& cache, const std::string& key,
                                           std::string* damaged) {
  bool bad = false;
  std::optional<std::string> text = RecordStore(cache).read(key, &bad);
  if (bad && damaged) *damaged = "its cache entry is corrupted";
  if (!text) return std::nullopt;
  try {
    return remembered_from(nlohmann::json::parse(*text));
  } catch (const std::exception& e) {
    if (damaged) *damaged = fmt::format("not a tuned choice: {}", e.what());
    try {
      forget_tuned(cache, key);
    } catch (const IoError&) {  // left in place: found damaged again next time
    }
    return std::nullopt;
  }
}

bool forget_tuned(CompileCache& cache, const std::string& key) {
  return RecordStore(cache).remove(key);
}

bool remember_tuned(CompileCache& cache, const std::string& key, const std::string& plugin,
                    const TuneResult& result) {
  nlohmann::json options = nlohmann::json::object();
  for (const auto& [name, value] : result.choice.xla_options) options[name] = value_json(value);
  nlohmann::json j = {{"format", "hhlo-tuned-2"},
                      {"execution", result.choice.synchronous ? "sync" : "async"},
                      {"xla_options", options},
                      {"onednn_convolution", result.choice.onednn.convolution},
                      {"onednn_dot_general", result.choice.onednn.dot_general},
                      {"onednn_threads", result.choice.onednn.threads},
                      {"unroll_loops", result.choice.unroll_loops},
                      {"plugin", plugin},
                      {"median_us", result.choice_median_us},
                      {"default_median_us", result.default_median_us}};
  // Written, and still there after the cache kept to its size bound (a bound of 0 keeps nothing).
  RecordStore records(cache);
  return records.write(key, j.dump()) && records.read(key).has_value();
}

std::string damaged_choice_warning(const std::string& program, const std::string& why) {
  return fmt::format(
      "hhlo: warning: the tuned choice remembered for {} is damaged ({}); running with the "
      "defaults",
      program, why);
}

}  // namespace hhlo
