// The tuner's loaded confirmation (issue 43, hhlo/program/tune.h): decide_tuned on hand-made
// medians (chosen, refused because slower under load, refused because not faster idle, ties at
// the margins); BusyLoad's children run while it lives and are gone (killed and reaped) after;
// a tuning with loaded_workers = 1 times every confirmed side again under load and leaves no
// child; 0 makes no loaded rotation; a bad count is an hhlo::Error naming it. Timings are never
// ordered here: the machine running the tests may be busy.
#include <dirent.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "hhlo/core/error.h"
#include "hhlo/program/busy_load.h"
#include "hhlo/program/program.h"
#include "hhlo/program/tune.h"
#include "hhlo/program/tune_decision.h"

namespace hhlo {
namespace {

using V = TuneVerdict;

// --- decide_tuned: the margin is 3% (kTuneNoise) ---

TEST(TuneDecision, AFasterCandidateThatHoldsUnderLoadIsChosen) {
  TuneDecision d = decide_tuned({100, 200}, {{90, 190}});
  EXPECT_EQ(d.chosen, 0u);
  EXPECT_EQ(d.verdicts, std::vector<V>{V::faster});
  // Slower under load, but within the margin (200 * 1.03 = 206): still chosen.
  d = decide_tuned({100, 200}, {{90, 205}});
  EXPECT_EQ(d.chosen, 0u);
}

TEST(TuneDecision, ACandidateSlowerUnderLoadIsRefused) {
  // The issue's case: the synchronous client 1.3x faster idle, 1.3x slower with the cores busy.
  TuneDecision d = decide_tuned({1000, 2000}, {{770, 2600}});
  EXPECT_FALSE(d.chosen);
  EXPECT_EQ(d.verdicts, std::vector<V>{V::slower_under_load});
}

TEST(TuneDecision, ACandidateNotFasterIdleIsRefused) {
  // Faster under load only: not chosen (idle not more than 3% faster).
  TuneDecision d = decide_tuned({100, 200}, {{98, 100}});
  EXPECT_FALSE(d.chosen);
  EXPECT_EQ(d.verdicts, std::vector<V>{V::idle_not_faster});
  d = decide_tuned({100, 200}, {{120, 100}});
  EXPECT_EQ(d.verdicts, std::vector<V>{V::idle_not_faster});
}

TEST(TuneDecision, TiesAtTheMarginsGoToTheDefaultsIdleAndToTheCandidateLoaded) {
  // Idle exactly 3% below (computed as the bound is): not more than the margin, refused; just
  // below it: chosen.
  double bound = 100 * (1 - kTuneNoise);
  EXPECT_EQ(decide_tuned({100, 200}, {{bound, 150}}).verdicts, std::vector<V>{V::idle_not_faster});
  EXPECT_EQ(decide_tuned({100, 200}, {{bound - 0.01, 150}}).chosen, 0u);
  // Equal idle medians: refused.
  EXPECT_EQ(decide_tuned({100, 200}, {{100, 150}}).verdicts, std::vector<V>{V::idle_not_faster});
  // Loaded exactly 3% above (computed as the bound is): not more than the margin, chosen; just
  // above it: refused.
  double loaded_bound = 200 * (1 + kTuneNoise);
  EXPECT_EQ(decide_tuned({100, 200}, {{90, loaded_bound}}).chosen, 0u);
  EXPECT_EQ(decide_tuned({100, 200}, {{90, loaded_bound + 0.01}}).verdicts,
            std::vector<V>{V::slower_under_load});
  // Equal loaded medians: chosen.
  EXPECT_EQ(decide_tuned({100, 200}, {{90, 200}}).chosen, 0u);
}

TEST(TuneDecision, TheFastestIdleOfTheEligibleIsChosen) {
  // 0: fastest idle but slower loaded; 1: eligible; 2: eligible and faster idle than 1.
  TuneDecision d = decide_tuned({100, 200}, {{50, 300}, {90, 150}, {80, 199}});
  EXPECT_EQ(d.chosen, 2u);
  EXPECT_EQ(d.verdicts, (std::vector<V>{V::slower_under_load, V::faster, V::faster}));
  // Equal idle medians: the first.
  EXPECT_EQ(decide_tuned({100, 200}, {{80, 200}, {80, 100}}).chosen, 0u);
}

TEST(TuneDecision, WithoutALoadedRotationTheIdleMediansDecide) {
  TuneDecision d = decide_tuned({100, std::nullopt}, {{90, std::nullopt}, {99, std::nullopt}});
  EXPECT_EQ(d.chosen, 0u);
  EXPECT_EQ(d.verdicts, (std::vector<V>{V::faster, V::idle_not_faster}));
  // The defaults timed under load and the candidate not: refused.
  d = decide_tuned({100, 200}, {{90, std::nullopt}});
  EXPECT_FALSE(d.chosen);
  EXPECT_EQ(d.verdicts, std::vector<V>{V::not_timed_under_load});
  // No candidate: the defaults.
  EXPECT_FALSE(decide_tuned({100, 200}, {}).chosen);
}

TEST(TuneDecision, ANaNMedianIsNeverChosen) {
  EXPECT_FALSE(decide_tuned({100, 200}, {{NAN, 100}}).chosen);
  EXPECT_EQ(decide_tuned({100, 200}, {{90, NAN}}).verdicts, std::vector<V>{V::slower_under_load});
}

// --- the busy processes ---

/// The process ids whose parent is this process (zombies included), from /proc.
std::set<pid_t> children() {
  std::set<pid_t> out;
  DIR* proc = opendir("/proc");
  if (!proc) return out;
  const pid_t self = getpid();
  while (dirent* e = readdir(proc)) {
    char* end = nullptr;
    long pid = std::strtol(e->d_name, &end, 10);
    if (*end != '\0' || pid <= 0) continue;
    std::ifstream stat("/proc/" + std::string(e->d_name) + "/stat");
    std::string line;
    if (!std::getline(stat, line)) continue;
    // pid (comm) state ppid ...: comm may hold spaces, so read after the last ')'.
    std::istringstream rest(line.substr(line.rfind(')') + 1));
    char state = 0;
    long ppid = 0;
    if (rest >> state >> ppid && ppid == self) out.insert(static_cast<pid_t>(pid));
  }
  closedir(proc);
  return out;
}

/// True when `pid` names no process (killed and reaped; a zombie still names one).
bool gone(pid_t pid) { return kill(pid, 0) != 0 && errno == ESRCH; }

TEST(BusyLoad, ItsChildrenRunWhileItLivesAndAreReapedAfter) {
  std::set<pid_t> before = children();
  std::vector<pid_t> pids;
  {
    BusyLoad load(2);
    pids = load.pids();
    ASSERT_EQ(pids.size(), 2u);
    std::set<pid_t> during = children();
    for (pid_t p : pids) {
      EXPECT_TRUE(during.count(p)) << p;
      EXPECT_FALSE(gone(p)) << p;
    }
  }
  for (pid_t p : pids) EXPECT_TRUE(gone(p)) << p;  // killed and reaped, not a zombie
  EXPECT_EQ(children(), before);
  // stop() ends them early; the destructor then has nothing left to do.
  BusyLoad load(1);
  pid_t p = load.pids().at(0);
  load.stop();
  EXPECT_TRUE(load.pids().empty());
  EXPECT_TRUE(gone(p));
  EXPECT_TRUE(BusyLoad(0).pids().empty());
}

TEST(BusyLoad, ChildrenAreReapedWhenAnExceptionUnwinds) {
  std::set<pid_t> before = children();
  std::vector<pid_t> pids;
  try {
    BusyLoad load(1);
    pids = load.pids();
    throw Error("unwinding");
  } catch (const Error&) {
  }
  ASSERT_EQ(pids.size(), 1u);
  EXPECT_TRUE(gone(pids[0]));
  EXPECT_EQ(children(), before);
}

/// The state letter of process `pid` in /proc ('R', 'S', 'Z', ...), or 0 when there is none.
char state_of(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return 0;
  std::istringstream rest(line.substr(line.rfind(')') + 1));
  char state = 0;
  rest >> state;
  return state;
}

// A tuner ended without its destructors (SIGKILL, or std::_Exit as hhlo tune's deadline does)
// leaves no busy child spinning: the children are killed with the thread that made them.
TEST(BusyLoad, ChildrenEndWithTheProcessThatMadeThem) {
#ifndef __linux__
  GTEST_SKIP() << "PR_SET_PDEATHSIG is Linux's";
#endif
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  pid_t maker = fork();
  ASSERT_GE(maker, 0);
  if (maker == 0) {
    BusyLoad load(1);
    pid_t busy = load.pids().at(0);
    ssize_t written = write(fds[1], &busy, sizeof busy);
    _exit(written == sizeof busy ? 0 : 1);  // no destructor runs
  }
  close(fds[1]);
  pid_t busy = 0;
  ssize_t got = read(fds[0], &busy, sizeof busy);
  close(fds[0]);
  int status = 0;
  waitpid(maker, &status, 0);
  ASSERT_EQ(got, static_cast<ssize_t>(sizeof busy));
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  // Ended: gone, or a zombie its new parent has not reaped yet (a container's init may never).
  bool ended = false;
  for (int i = 0; i < 500 && !ended; ++i) {
    ended = gone(busy) || state_of(busy) == 'Z' || state_of(busy) == 0;
    if (!ended) usleep(10000);
  }
  EXPECT_TRUE(ended) << "busy process " << busy << " still " << state_of(busy);
  if (!ended) kill(busy, SIGKILL);
}

// --- tune with and without the loaded rotation ---

// y = tanh(x . x) over 16x16 f32: the synchronous client is timed several times faster than the
// asynchronous one on idle cores (docs/benchmarks.md, "Execution mode"), so it is confirmed.
constexpr const char* kProgram = R"(
func.func public @main(%x: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %0 = stablehlo.dot_general %x, %x, contracting_dims = [1] x [0] : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  %1 = stablehlo.tanh %0 : tensor<16x16xf32>
  return %1 : tensor<16x16xf32>
}
)";

Array input() {
  std::vector<float> v(256);
  for (int i = 0; i < 256; ++i) v[i] = std::sin(0.37f * static_cast<float>(i)) * 0.3f;
  return Array::from<float>({16, 16}, v);
}

ClientFactory cpu_clients() {
  return [](bool sync) { return Client::create("cpu", execution_client_options(sync)); };
}

/// Tunes kProgram (the modes and one option set) with `workers` busy processes, until a
/// candidate is timed below the defaults (the confirmation made) or 5 tries.
TuneResult tune_until_confirmed(int workers, int* progress) {
  PreparedProgram p = prepare_program(read_program(kProgram), {.platform = "cpu"});
  TuneOptions o{.budget_s = 2,
                .option_sets = {{{"xla_cpu_use_xnnpack", false}}},
                .loaded_workers = workers,
                .progress = [progress](const TuneTiming&) { ++*progress; }};
  TuneResult r;
  for (int attempt = 0; attempt < 5; ++attempt) {
    *progress = 0;
    r = tune(p, {input()}, {}, cpu_clients(), o);
    if (r.confirmed_defaults) break;
  }
  return r;
}

TEST(TuneLoaded, EveryConfirmedSideIsTimedAgainUnderLoadAndNoChildIsLeft) {
  std::set<pid_t> before = children();
  int progress = 0;
  TuneResult r = tune_until_confirmed(1, &progress);
  EXPECT_EQ(children(), before);
  if (!r.confirmed_defaults) GTEST_SKIP() << "no candidate timed below the defaults in 5 tries";
  EXPECT_EQ(r.loaded_workers, 1);
  std::vector<std::pair<const std::optional<TuneTiming>*, const std::optional<TuneTiming>*>> sides =
      {{&r.confirmed_defaults, &r.confirmed_defaults_loaded},
       {&r.confirmed_candidate, &r.confirmed_candidate_loaded},
       {&r.confirmed_runner_up, &r.confirmed_runner_up_loaded}};
  int confirmed = 0;
  for (auto [idle, loaded] : sides) {
    ASSERT_EQ(idle->has_value(), loaded->has_value());
    if (!*idle) continue;
    ++confirmed;
    const TuneTiming &i = **idle, &l = **loaded;
    SCOPED_TRACE(i.candidate.describe());
    EXPECT_EQ(l.candidate, i.candidate);
    ASSERT_TRUE(i.usable && l.usable) << i.note << " / " << l.note;
    EXPECT_GE(l.calls, 3 * TuneOptions{}.confirm_rounds);
    EXPECT_GT(l.median_us, 0);
    EXPECT_LE(l.min_us, l.median_us);
    EXPECT_EQ(l.note, "confirmation, in alternation, with 1 busy process");
  }
  EXPECT_EQ(progress, static_cast<int>(r.timings.size()) + 2 * confirmed);
  // The choice is decide_tuned's over the medians reported.
  std::vector<ConfirmedMedians> candidates;
  std::vector<TunedChoice> choices;
  for (std::size_t k = 1; k < sides.size(); ++k)
    if (*sides[k].first) {
      candidates.push_back({(*sides[k].first)->median_us, (*sides[k].second)->median_us});
      choices.push_back((*sides[k].first)->candidate);
    }
  TuneDecision d = decide_tuned(
      {r.confirmed_defaults->median_us, r.confirmed_defaults_loaded->median_us}, candidates);
  EXPECT_EQ(r.choice, d.chosen ? choices[*d.chosen] : TunedChoice{}) << r.choice.describe();
  bool refused = false;
  for (V v : d.verdicts) refused = refused || v == V::slower_under_load;
  EXPECT_EQ(r.refused_under_load.has_value(), refused);
}

TEST(TuneLoaded, ZeroWorkersMakeNoLoadedRotation) {
  int progress = 0;
  TuneResult r = tune_until_confirmed(0, &progress);
  if (!r.confirmed_defaults) GTEST_SKIP() << "no candidate timed below the defaults in 5 tries";
  EXPECT_EQ(r.loaded_workers, 0);
  EXPECT_FALSE(r.confirmed_defaults_loaded || r.confirmed_candidate_loaded ||
               r.confirmed_runner_up_loaded);
  EXPECT_FALSE(r.refused_under_load);
  int confirmed = 1 + (r.confirmed_candidate ? 1 : 0) + (r.confirmed_runner_up ? 1 : 0);
  EXPECT_EQ(progress, static_cast<int>(r.timings.size()) + confirmed);
}

TEST(TuneLoaded, ABadWorkerCountIsAnErrorNamingIt) {
  PreparedProgram p = prepare_program(read_program(kProgram), {.platform = "cpu"});
  for (int workers : {-1, 257}) {
    try {
      tune(p, {input()}, {}, cpu_clients(), {.budget_s = 1, .loaded_workers = workers});
      ADD_FAILURE() << workers << " was accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("loaded_workers is " + std::to_string(workers)),
                std::string::npos)
          << e.what();
    }
  }
  EXPECT_GE(default_loaded_workers(), 1);
  EXPECT_EQ(TuneOptions{}.loaded_workers, default_loaded_workers());
}

}  // namespace
}  // namespace hhlo
