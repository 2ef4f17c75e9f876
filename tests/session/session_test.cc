#include <gtest/gtest.h>

#include "hhlo/session.h"

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

TEST(Session, DefaultSessionRejectsWrongArguments) {
  EXPECT_THROW(run(std::string_view(kScale), {Array::from<float>({3}, {1, 2, 3})}), Error);
  EXPECT_THROW(run(std::string_view(kScale), {}), Error);
}

}  // namespace
}  // namespace hhlo
