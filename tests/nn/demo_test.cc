// End to end: the digits MLP trained through EDSL + autodiff + the CPU plugin.
#include <gtest/gtest.h>

#include <sstream>

#include "hhlo/nn/demo.h"

namespace hhlo {
namespace {

TEST(Demo, MlpLearnsDigitsInAFewEpochs) {
  demo::Options o;
  o.epochs = 3;
  o.data = std::string(HHLO_THIRD_PARTY_DIR) + "/data/digits.csv.gz";
  o.progress = false;
  std::ostringstream out;
  demo::Result r = demo::run(o, out);
  ASSERT_EQ(r.epochs.size(), 3u);
  EXPECT_LT(r.epochs[2].loss, r.epochs[0].loss) << out.str();
  EXPECT_GT(r.test_accuracy, 0.90) << out.str();
  EXPECT_NE(out.str().find("final test accuracy"), std::string::npos);
}

}  // namespace
}  // namespace hhlo
