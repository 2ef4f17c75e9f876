// End to end: the digits models trained through EDSL + autodiff + the CPU plugin.
#include "hhlo/train/demo.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <sstream>

#include "hhlo/core/error.h"
#include "hhlo/core/sharding.h"

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
  EXPECT_EQ(out.str().find("[#"), std::string::npos) << "a progress bar with progress off";
}

TEST(Demo, CnnLearnsDigits) {
  std::ostringstream out;
  demo::Result r = demo::run(options("cnn", 2), out);
  EXPECT_GT(r.test_accuracy, 0.85) << out.str();
}

class DemoCheckpoint : public ::testing::TestWithParam<std::string> {};

// --save/--load in either format (issue 41, item 7: safetensors beside .npz).
TEST_P(DemoCheckpoint, SavedParametersReloadToTheSameAccuracy) {
  std::string path = ::testing::TempDir() + "/demo_mlp" + GetParam();
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
  // Evaluating only: no training step is compiled or timed, so neither is reported.
  std::ostringstream eval_out;
  demo::run(e, eval_out);
  EXPECT_EQ(eval_out.str().find("compiled the training step"), std::string::npos) << eval_out.str();
  EXPECT_EQ(eval_out.str().find("median step"), std::string::npos) << eval_out.str();
  std::remove(path.c_str());
}

INSTANTIATE_TEST_SUITE_P(Formats, DemoCheckpoint, ::testing::Values(".npz", ".safetensors"),
                         [](const auto& info) { return info.param.substr(1); });

TEST(Demo, DataParallelOverFourDevicesFollowsTheSingleDeviceLossTrajectory) {
  // Same seed, data, shuffles and global batch: the 4-device step (batch split 8 per device,
  // gradients summed by the partitioner's all-reduce) computes the same function up to float
  // summation order.
  std::ostringstream out;
  demo::Result one = demo::run(options("mlp", 3), out);
  demo::Options o = options("mlp", 3);
  o.devices = 4;
  demo::Result four = demo::run(o, out);
  ASSERT_EQ(four.epochs.size(), one.epochs.size());
  for (std::size_t e = 0; e < one.epochs.size(); ++e) {
    EXPECT_NEAR(four.epochs[e].loss, one.epochs[e].loss, 1e-4 * one.epochs[e].loss) << e;
    EXPECT_NEAR(four.epochs[e].train_accuracy, one.epochs[e].train_accuracy, 2e-3) << e;
  }
  EXPECT_NEAR(four.test_accuracy, one.test_accuracy, 3e-3) << out.str();
  EXPECT_NE(out.str().find("data-parallel over 4 devices"), std::string::npos);
}

TEST(Demo, BatchNotDivisibleByTheDevicesIsAShardingError) {
  demo::Options o = options("mlp", 1);
  o.devices = 4;
  o.batch = 30;
  std::ostringstream out;
  try {
    demo::run(o, out);
    FAIL();
  } catch (const ShardingError& e) {
    EXPECT_EQ(e.dimension(), 0);
    EXPECT_EQ(e.axis(), "batch");
    // Said in the demo's terms, before anything is printed.
    EXPECT_NE(std::string(e.what()).find("--devices 4 does not divide --batch 30"),
              std::string::npos)
        << e.what();
    EXPECT_EQ(out.str(), "");
  }
  o.batch = 32;
  o.devices = 8;  // the default CPU client has 4
  EXPECT_THROW(demo::run(o, out), ShardingError);
}

TEST(Demo, UnknownModelIsAnError) {
  std::ostringstream out;
  EXPECT_THROW(demo::run(options("transformer", 1), out), Error);
}

}  // namespace
}  // namespace hhlo
