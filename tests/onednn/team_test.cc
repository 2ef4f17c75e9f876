// The matmul kernel's fork-join team (kernels/onednn/team.h): every part runs once, part 0 on the
// caller, the others on the team's threads at the same time as part 0 (or on the caller, after
// its part 0, when no team thread took them first); callers at once, calls from inside a part
// and parts that throw all end, with every part run.
#include "onednn/team.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

namespace hhlo::onednn {
namespace {

/// The thread each part of one call ran on, and how often each ran.
struct Record {
  explicit Record(int parts) : ran(parts), on(parts) {}
  std::vector<std::atomic<int>> ran;
  std::vector<std::thread::id> on;
  void part(int i) {
    ran[i].fetch_add(1);
    on[i] = std::this_thread::get_id();
  }
};

// Growing and shrinking part counts: each growth starts team threads while the call they are
// started for is being published (a new thread that read the call word itself once missed its
// call and the caller waited forever).
TEST(OneDnnTeam, RunsEachPartOnceAndPartZeroOnTheCaller) {
  for (int parts : {0, 1, 2, 3, 5, 8, 2, 1, 8}) {
    SCOPED_TRACE(parts);
    Record r(parts);
    run_parts(parts, [&](int i) { r.part(i); });
    for (int i = 0; i < parts; ++i) EXPECT_EQ(r.ran[i].load(), 1) << "part " << i;
    if (parts > 0) {
      EXPECT_EQ(r.on[0], std::this_thread::get_id());
    }
  }
}

// Part 0 waits until every other part has started: each must be running on a team thread while
// the caller is still in part 0.
TEST(OneDnnTeam, TheOtherPartsRunOnTheTeamWhilePartZeroRuns) {
  for (int parts : {2, 4}) {
    SCOPED_TRACE(parts);
    std::atomic<int> started{0};
    bool all_started = false;
    run_parts(parts, [&](int i) {
      if (i != 0) {
        started.fetch_add(1);
        return;
      }
      auto end = std::chrono::steady_clock::now() + std::chrono::seconds(10);
      while (started.load() != parts - 1 && std::chrono::steady_clock::now() < end)
        std::this_thread::yield();
      all_started = started.load() == parts - 1;
    });
    EXPECT_TRUE(all_started);
  }
}

TEST(OneDnnTeam, CallsFromManyThreadsAtOnceAllEnd) {
  constexpr int kCallers = 4, kCalls = 2000, kParts = 3;
  std::atomic<long> sum{0};
  std::vector<std::thread> callers;
  for (int c = 0; c < kCallers; ++c)
    callers.emplace_back([&] {
      for (int n = 0; n < kCalls; ++n) run_parts(kParts, [&](int i) { sum.fetch_add(i + 1); });
    });
  for (std::thread& t : callers) t.join();
  EXPECT_EQ(sum.load(), long{kCallers} * kCalls * (1 + 2 + 3));
}

TEST(OneDnnTeam, ACallFromInsideAPartRunsItsPartsItself) {
  constexpr int kOuter = 3, kInner = 4;
  std::mutex mu;
  std::vector<std::thread::id> outer_on(kOuter);
  std::vector<std::vector<std::thread::id>> inner_on(kOuter, std::vector<std::thread::id>(kInner));
  run_parts(kOuter, [&](int i) {
    outer_on[i] = std::this_thread::get_id();
    run_parts(kInner, [&](int j) {
      std::lock_guard lock(mu);
      inner_on[i][j] = std::this_thread::get_id();
    });
  });
  for (int i = 0; i < kOuter; ++i)
    for (int j = 0; j < kInner; ++j) EXPECT_EQ(inner_on[i][j], outer_on[i]) << i << ", " << j;
}

TEST(OneDnnTeam, APartsExceptionReachesTheCallerAfterEveryPartEnded) {
  constexpr int kParts = 4;
  std::atomic<int> ended{0};
  auto call = [&] {
    run_parts(kParts, [&](int i) {
      if (i == 2) throw std::runtime_error("part 2 fails");
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      ended.fetch_add(1);
    });
  };
  EXPECT_THROW(
      try { call(); } catch (const std::runtime_error& e) {
        EXPECT_STREQ(e.what(), "part 2 fails");
        EXPECT_EQ(ended.load(), kParts - 1);  // the others had all ended
        throw;
      },
      std::runtime_error);
  // The team still serves calls, and the error is not reported again.
  Record r(kParts);
  EXPECT_NO_THROW(run_parts(kParts, [&](int i) { r.part(i); }));
  for (int i = 0; i < kParts; ++i) EXPECT_EQ(r.ran[i].load(), 1);
}

}  // namespace
}  // namespace hhlo::onednn
