// End to end: the digits models trained through EDSL + autodiff + the CPU plugin.
#include <gtest/gtest.h>

#include <cstdio>
#include <sstream>

#include "hhlo/core/error.h"
#include "hhlo/train/demo.h"

namespace hhlo {
namespace {

demo::Options options(const std::string& model, int epochs) {
  demo::Options o;
  o.model = model;
  o.epochs = epochs;
  o.data = std::string(HHLO_THIRD_PARTY_DIR) + "/data/digits.csv.gz";
  o.progress = false;
  return o;
}

TEST(Demo, MlpLearnsDigitsInAFewEpochs) {
  std::ostringstream out;
  demo::Result r = demo::run(options("mlp", 3), out);
  ASSERT_EQ(r.epochs.size(), 3u);
  EXPECT_LT(r.epochs[2].loss, r.epochs[0].loss) << out.str();
  EXPECT_GT(r.test_accuracy, 0.90) << out.str();
  EXPECT_NE(out.str().find("final test accuracy"), std::string::npos);
}

TEST(Demo, CnnLearnsDigits) {
  std::ostringstream out;
  demo::Result r = demo::run(options("cnn", 2), out);
  EXPECT_GT(r.test_accuracy, 0.85) << out.str();
}

TEST(Demo, SavedParametersReloadToTheSameAccuracy) {
  std::string path = ::testing::TempDir() + "/demo_mlp.npz";
  demo::Options o = options("mlp", 2);
  o.save = path;
  std::ostringstream out;
  demo::Result trained = demo::run(o, out);
  demo::Options e = options("mlp", 0);
  e.load = path;
  e.evaluate_only = true;
  demo::Result reloaded = demo::run(e, out);
  EXPECT_EQ(reloaded.test_accuracy, trained.test_accuracy) << out.str();
  EXPECT_TRUE(reloaded.epochs.empty());
  std::remove(path.c_str());
}

TEST(Demo, UnknownModelIsAnError) {
  std::ostringstream out;
  EXPECT_THROW(demo::run(options("transformer", 1), out), Error);
}

}  // namespace
}  // namespace hhlo
