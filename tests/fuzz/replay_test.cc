// Regression replay of the fuzz entry points (fuzz.h) with the normal compiler, on every `make
// test`: each target runs over its seed corpus, its saved crash inputs and a fixed set of mutants
// of its seeds (byte flips, truncations, insertions, splices). A violated property aborts the
// binary (fuzz_fail), which fails the test; libFuzzer with ASan/UBSan runs the same entry points
// for much longer under `make fuzz` (docs/reliability.md).
#include <gtest/gtest.h>

#include <chrono>
#include <random>
#include <string>

#include "fuzz.h"
#include "seeds.h"

namespace hhlo::fuzz {
namespace {

void run(const Target& t, const std::string& bytes) {
  set_failure_input(&bytes);
  t.run(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
}

/// One mutant of `s` (libFuzzer's simplest mutations), from `gen`.
std::string mutate(std::string s, const std::string& other, std::mt19937_64& gen) {
  auto pos = [&](size_t n) { return n ? gen() % n : 0; };
  switch (gen() % 6) {
    case 0:
      if (!s.empty()) s[pos(s.size())] ^= static_cast<char>(1u << (gen() % 8));
      break;
    case 1:
      s.resize(pos(s.size() + 1));
      break;
    case 2:
      s.insert(pos(s.size() + 1), 1, static_cast<char>(gen()));
      break;
    case 3:
      if (!s.empty()) s.erase(pos(s.size()), 1 + gen() % 8);
      break;
    case 4: {  // a chunk of another seed spliced in
      size_t from = pos(other.size()), n = std::min<size_t>(other.size() - from, gen() % 64);
      s.insert(pos(s.size() + 1), other.substr(from, n));
      break;
    }
    default:
      if (!s.empty()) s[pos(s.size())] = "\0\xff\x7f\x80\"}{<>:,x9-"[gen() % 14];
      break;
  }
  return s;
}

class FuzzReplay : public ::testing::TestWithParam<Target> {};

TEST_P(FuzzReplay, SeedCorpusAndSavedCrashInputs) {
  const Target& t = GetParam();
  std::vector<Seed> corpus = seeds(t.name, 400);
  ASSERT_FALSE(corpus.empty()) << "no seed inputs for '" << t.name
                               << "': were the test inputs generated (hhlo_test_inputs)?";
  for (const Seed& s : corpus) {
    SCOPED_TRACE(s.name);
    run(t, s.bytes);
  }
  for (const Seed& s : regressions(t.name)) {
    SCOPED_TRACE(s.name);
    run(t, s.bytes);
  }
}

TEST_P(FuzzReplay, MutantsOfTheSeeds) {
  const Target& t = GetParam();
  std::vector<Seed> corpus = seeds(t.name, 100);
  for (const Seed& s : regressions(t.name)) corpus.push_back(s);
  ASSERT_FALSE(corpus.empty());
  std::mt19937_64 gen(14);
  // A fixed number of mutants, each of 1..4 mutations, within about a second per target.
  auto start = std::chrono::steady_clock::now();
  int runs = 0;
  for (; runs < 20000; ++runs) {
    if (runs % 256 == 0 && std::chrono::steady_clock::now() - start > std::chrono::seconds(1))
      break;
    std::string m = corpus[gen() % corpus.size()].bytes;
    const std::string& other = corpus[gen() % corpus.size()].bytes;
    for (int k = 1 + gen() % 4; k > 0; --k) m = mutate(std::move(m), other, gen);
    run(t, m);
  }
  EXPECT_GT(runs, 100) << "too few mutants ran to mean anything";
}

INSTANTIATE_TEST_SUITE_P(Targets, FuzzReplay, ::testing::ValuesIn(kTargets),
                         [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace hhlo::fuzz
