// Several threads on one client at once (docs/reliability.md): compiling and executing different
// programs, executing one executable with different inputs, asynchronous executions awaited out
// of order. Every result is checked exactly against integer arithmetic done here. Also run under
// ThreadSanitizer (`make tsan`).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "hhlo/program/compile.h"
#include "runtime_util.h"

namespace hhlo {
namespace {

constexpr int kThreads = 8;

/// Runs `body(t)` on kThreads threads at once (released together) and joins them.
template <typename F>
void on_threads(F body) {
  std::atomic<int> ready{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      ready.fetch_add(1);
      while (ready.load() < kThreads) std::this_thread::yield();
      body(t);
    });
  for (std::thread& th : threads) th.join();
}

/// `x * k + c` on i32[n], a distinct program per (k, c).
std::string affine_program(int k, int c, int n) {
  return "func.func @main(%x: tensor<" + std::to_string(n) + "xi32>) -> tensor<" +
         std::to_string(n) + "xi32> {\n  %k = stablehlo.constant dense<" + std::to_string(k) +
         "> : tensor<" + std::to_string(n) + "xi32>\n  %c = stablehlo.constant dense<" +
         std::to_string(c) + "> : tensor<" + std::to_string(n) + "xi32>\n" +
         "  %m = stablehlo.multiply %x, %k : tensor<" + std::to_string(n) + "xi32>\n" +
         "  %r = stablehlo.add %m, %c : tensor<" + std::to_string(n) + "xi32>\n" +
         "  return %r : tensor<" + std::to_string(n) + "xi32>\n}\n";
}

std::vector<int32_t> inputs_for(int t, int i, int n) {
  std::vector<int32_t> v(n);
  for (int j = 0; j < n; ++j) v[j] = t * 1000 + i * 7 - j;
  return v;
}

TEST(Concurrency, EightThreadsCompileAndRunDifferentProgramsOnOneClient) {
  constexpr int kRuns = 20;
  std::atomic<int> checked{0}, wrong{0};
  on_threads([&](int t) {
    int n = 16 + t;  // different shapes too
    LoadedExecutable exe = compile(test::cpu(), affine_program(t + 2, 3 * t - 5, n));
    for (int i = 0; i < kRuns; ++i) {
      std::vector<int32_t> x = inputs_for(t, i, n);
      Buffer in = test::cpu().buffer_from_host(Array::from<int32_t>({n}, x));
      std::vector<int32_t> got = exe.execute({&in}).at(0).to_host().to_vector<int32_t>();
      for (int j = 0; j < n; ++j) x[j] = x[j] * (t + 2) + (3 * t - 5);
      (got == x ? checked : wrong).fetch_add(1);
    }
  });
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(checked.load(), kThreads * kRuns);
}

TEST(Concurrency, EightThreadsRunOneExecutableWithDifferentInputs) {
  constexpr int kRuns = 50, kN = 256;
  LoadedExecutable exe = compile(test::cpu(), R"(
func.func @main(%x: tensor<256xi32>, %y: tensor<256xi32>) -> (tensor<256xi32>, tensor<i32>) {
  %p = stablehlo.multiply %x, %y : tensor<256xi32>
  %z = stablehlo.constant dense<0> : tensor<i32>
  %s = stablehlo.reduce(%p init: %z) applies stablehlo.add across dimensions = [0] : (tensor<256xi32>, tensor<i32>) -> tensor<i32>
  return %p, %s : tensor<256xi32>, tensor<i32>
}
)");
  std::atomic<int> checked{0}, wrong{0};
  on_threads([&](int t) {
    for (int i = 0; i < kRuns; ++i) {
      std::vector<int32_t> x = inputs_for(t, i, kN), y = inputs_for(i, t, kN);
      Buffer bx = test::cpu().buffer_from_host(Array::from<int32_t>({kN}, x));
      Buffer by = test::cpu().buffer_from_host(Array::from<int32_t>({kN}, y));
      std::vector<Buffer> out = exe.execute({&bx, &by});
      std::vector<int32_t> p(kN);
      int32_t s = 0;
      for (int j = 0; j < kN; ++j) s += (p[j] = x[j] * y[j]);
      bool ok = out.at(0).to_host().to_vector<int32_t>() == p &&
                out.at(1).to_host().to_vector<int32_t>() == std::vector<int32_t>{s};
      (ok ? checked : wrong).fetch_add(1);
    }
  });
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(checked.load(), kThreads * kRuns);
}

TEST(Concurrency, AsyncExecutionsAwaitedOutOfOrder) {
  constexpr int kCalls = 32, kN = 4096;
  LoadedExecutable exe = compile(test::cpu(), affine_program(3, -1, kN));
  std::vector<Buffer> inputs;
  std::vector<ExecuteResult> results;
  for (int i = 0; i < kCalls; ++i) {
    inputs.push_back(
        test::cpu().buffer_from_host(Array::from<int32_t>({kN}, inputs_for(i, i, kN))));
    results.push_back(exe.execute_async({&inputs.back()}));
  }
  std::vector<int> order(kCalls);
  for (int i = 0; i < kCalls; ++i) order[i] = i;
  std::shuffle(order.begin(), order.end(), std::mt19937(14));
  std::reverse(order.begin(), order.begin() + kCalls / 2);
  for (int i : order) {
    results[i].done.await();
    std::vector<int32_t> want = inputs_for(i, i, kN);
    for (int32_t& v : want) v = v * 3 - 1;
    EXPECT_EQ(results[i].outputs.at(0).to_host().to_vector<int32_t>(), want) << "call " << i;
  }
}

TEST(Concurrency, AsyncExecutionsFromSeveralThreadsAwaitedByOthers) {
  // Launched on one set of threads, awaited and read on another, in reverse order.
  constexpr int kN = 1024;
  LoadedExecutable exe = compile(test::cpu(), affine_program(-2, 9, kN));
  std::vector<Buffer> inputs(kThreads);
  std::vector<ExecuteResult> results(kThreads);
  on_threads([&](int t) {
    inputs[t] = test::cpu().buffer_from_host(Array::from<int32_t>({kN}, inputs_for(t, 1, kN)));
    results[t] = exe.execute_async({&inputs[t]});
  });
  std::atomic<int> wrong{0};
  on_threads([&](int t) {
    int i = kThreads - 1 - t;
    results[i].done.await();
    std::vector<int32_t> want = inputs_for(i, 1, kN);
    for (int32_t& v : want) v = v * -2 + 9;
    if (results[i].outputs.at(0).to_host().to_vector<int32_t>() != want) wrong.fetch_add(1);
  });
  EXPECT_EQ(wrong.load(), 0);
}

}  // namespace
}  // namespace hhlo
