#include "hhlo/session.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

namespace hhlo {
namespace {

constexpr char kScale[] = R"(
func.func @main(%x: tensor<3xf64>) -> tensor<3xf64> {
  %c = stablehlo.constant dense<2.5> : tensor<3xf64>
  %0 = stablehlo.multiply %x, %c : tensor<3xf64>
  return %0 : tensor<3xf64>
}
)";

TEST(Session, RunsAndCachesTheExecutable) {
  Session s(Client::create("cpu"));
  auto out = s.run(kScale, {Array::from<double>({3}, {1, -2, 4})});
  EXPECT_EQ(out.at(0).to_vector<double>(), (std::vector<double>{2.5, -5, 10}));
  s.run(kScale, {Array::from<double>({3}, {0, 0, 0})});
  EXPECT_EQ(s.cache_size(), 1u);
  s.compile(kScale, {.portable = true});
  EXPECT_EQ(s.cache_size(), 2u);
}

// The disk cache: a second session (a later process would do the same) loads the executable
// the first one compiled, and computes the same values; it is on by default.
TEST(Session, SecondSessionLoadsTheExecutableFromTheDiskCache) {
  std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("hhlo-session-cache-" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  Client c = Client::create("cpu");
  Session first(c, {.dir = dir.string()});
  EXPECT_EQ(first.run(kScale, {Array::from<double>({3}, {1, -2, 4})}).at(0).to_vector<double>(),
            (std::vector<double>{2.5, -5, 10}));
  EXPECT_EQ(first.last_outcome(), CacheOutcome::miss);
  Session second(c, {.dir = dir.string()});
  EXPECT_EQ(second.run(kScale, {Array::from<double>({3}, {2, 0, -1})}).at(0).to_vector<double>(),
            (std::vector<double>{5, 0, -2.5}));
  EXPECT_EQ(second.last_outcome(), CacheOutcome::hit);
  Session off(c, {.enabled = false});
  off.compile(kScale);
  EXPECT_EQ(off.last_outcome(), CacheOutcome::disabled);
  std::filesystem::remove_all(dir);

  if (!std::getenv("HHLO_COMPILE_CACHE")) {
    Session by_default(c);
    EXPECT_TRUE(by_default.disk_cache().enabled());
    EXPECT_EQ(by_default.disk_cache().dir(), default_compile_cache_dir());
  }
}

TEST(Session, DefaultSessionRejectsWrongArguments) {
  EXPECT_THROW(run(std::string_view(kScale), {Array::from<float>({3}, {1, 2, 3})}), Error);
  EXPECT_THROW(run(std::string_view(kScale), {}), Error);
}

}  // namespace
}  // namespace hhlo
