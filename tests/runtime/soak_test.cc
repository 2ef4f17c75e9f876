// Soak (docs/reliability.md): 10,000 executions in one process, each with a host-to-device copy of
// its input and a device-to-host copy of its output, every result checked; resident memory
// (/proc/self/statm) is sampled every 1,000 and must stay flat after the first 1,000 (warm-up:
// the plugin's pools and thread stacks) within kBoundBytes. The curve is printed for the docs.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <vector>

#include "runtime_util.h"

namespace hhlo {
namespace {

// Under AddressSanitizer or ThreadSanitizer (`make asan`, `make tsan`) resident memory is the
// sanitizer's: ASan keeps freed blocks in its quarantine (256 MiB) and TSan grows its shadow and
// history (+5.6 MiB over these 10,000 executions, measured), so the bound is checked only without
// one; the executions and their results are checked either way, and LSan checks the leaks.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif

int64_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  int64_t size = 0, resident = 0;
  statm >> size >> resident;
  return resident * sysconf(_SC_PAGESIZE);
}

TEST(Soak, TenThousandExecutionsWithTransfersKeepResidentMemoryFlat) {
  constexpr int kRuns = 10000, kEvery = 1000, kN = 16384;  // 64 KiB in, 64 KiB out per run
  // Growth allowed between the sample after the first 1,000 runs and the last: 4 MiB, i.e. less
  // than 420 bytes per execution; one leaked input or output buffer per run would be 640 MiB.
  constexpr int64_t kBoundBytes = int64_t{4} << 20;
  LoadedExecutable exe = test::compile(R"(
func.func @main(%x: tensor<16384xi32>) -> tensor<16384xi32> {
  %one = stablehlo.constant dense<1> : tensor<16384xi32>
  %r = stablehlo.add %x, %one : tensor<16384xi32>
  return %r : tensor<16384xi32>
}
)");
  Array in = Array::from<int32_t>({kN}, std::vector<int32_t>(kN, 0));
  std::vector<int64_t> samples;
  int wrong = 0;
  for (int i = 1; i <= kRuns; ++i) {
    int32_t* x = static_cast<int32_t*>(in.data());
    x[0] = i;
    x[kN - 1] = -i;
    Buffer b = test::cpu().buffer_from_host(in);
    Array out = exe.execute({&b}).at(0).to_host();
    const int32_t* y = static_cast<const int32_t*>(out.data());
    if (y[0] != i + 1 || y[kN - 1] != 1 - i || y[kN / 2] != 1) ++wrong;
    if (i % kEvery == 0) samples.push_back(resident_bytes());
  }
  EXPECT_EQ(wrong, 0);
  std::printf("resident memory every %d executions (MiB):", kEvery);
  for (int64_t s : samples) std::printf(" %.1f", static_cast<double>(s) / (1 << 20));
  std::printf("\ngrowth after the first %d: %.2f MiB (bound %.0f MiB)\n", kEvery,
              static_cast<double>(samples.back() - samples.front()) / (1 << 20),
              static_cast<double>(kBoundBytes) / (1 << 20));
  ASSERT_EQ(samples.size(), static_cast<size_t>(kRuns / kEvery));
  if (!kSanitized) {
    EXPECT_LE(samples.back() - samples.front(), kBoundBytes);
  }
}

}  // namespace
}  // namespace hhlo
