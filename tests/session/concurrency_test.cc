// The Session's executable cache under contention (docs/reliability.md): 8 threads run the same 4
// programs through one Session at once; each program is compiled once, every result is exact.
// Also run under ThreadSanitizer (`make tsan`).
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "hhlo/session.h"

namespace hhlo {
namespace {

/// `x + k` on i64[8].
std::string add_constant(int k) {
  return "func.func @main(%x: tensor<8xi64>) -> tensor<8xi64> {\n"
         "  %k = stablehlo.constant dense<" +
         std::to_string(k) +
         "> : tensor<8xi64>\n"
         "  %r = stablehlo.add %x, %k : tensor<8xi64>\n"
         "  return %r : tensor<8xi64>\n}\n";
}

TEST(SessionConcurrency, CacheUnderContentionCompilesEachProgramOnceAndEveryResultIsExact) {
  constexpr int kThreads = 8, kPrograms = 4, kRounds = 10;
  Session session(Client::create("cpu"));
  std::vector<std::string> programs;
  for (int p = 0; p < kPrograms; ++p) programs.push_back(add_constant(100 * p + 7));
  std::atomic<int> ready{0}, checked{0}, wrong{0};
  std::vector<const LoadedExecutable*> seen(kThreads * kPrograms);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      ready.fetch_add(1);
      while (ready.load() < kThreads) std::this_thread::yield();
      for (int r = 0; r < kRounds; ++r)
        for (int q = 0; q < kPrograms; ++q) {
          int p = (q + t) % kPrograms;  // threads start on different programs
          std::vector<int64_t> x(8);
          for (int j = 0; j < 8; ++j) x[j] = int64_t{t} << 32 | (r * 8 + j);
          std::vector<Array> out = session.run(programs[p], {Array::from<int64_t>({8}, x)});
          for (int64_t& v : x) v += 100 * p + 7;
          (out.at(0).to_vector<int64_t>() == x ? checked : wrong).fetch_add(1);
          if (r == 0) seen[t * kPrograms + p] = &session.compile(programs[p]);
        }
    });
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(checked.load(), kThreads * kRounds * kPrograms);
  EXPECT_EQ(session.cache_size(), static_cast<size_t>(kPrograms));
  // Every thread got the same cached executable for a program.
  for (int t = 1; t < kThreads; ++t)
    for (int p = 0; p < kPrograms; ++p) EXPECT_EQ(seen[t * kPrograms + p], seen[p]);
}

}  // namespace
}  // namespace hhlo
