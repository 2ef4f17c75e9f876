// Multi-process data-parallel training (issue 24, item 3), run whole under `mpirun -np 2` and
// `mpirun -np 4 --oversubscribe` (ctest label mpi). Every rank computes the independent reference
// itself: the same training on the whole global batch in this one process, without MPI. The MPI
// run (each rank stepping on its share of the batch, gradients averaged by mpi::allreduce inside
// the compiled step) must follow it step by step.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "hhlo/core/error.h"
#include "hhlo/core/sharding.h"
#include "hhlo/mpi/collectives.h"
#include "hhlo/mpi/kernels.h"
#include "hhlo/ops/reductions.h"
#include "hhlo/ops/shape_ops.h"
#include "hhlo/session.h"
#include "hhlo/train/demo.h"
#include "hhlo/train/trainer.h"

namespace hhlo {
namespace {

/// Losses of one step may differ by float summation order only (the mean of P partial means
/// against one mean over the batch): the bound.
constexpr double kTolerance = 1e-6;

int N() { return mpi::world_size(); }
int R() { return mpi::world_rank(); }

/// The session the demo and the trainers use, with the MPI kernels registered (collective).
Session& session() {
  register_mpi_kernels(default_session().client());
  return default_session();
}

/// Rows [from, from + count) of a [n, ...] array.
Array rows(const Array& a, int64_t from, int64_t count) {
  Dims d = a.dims();
  const auto row = a.byte_size() / static_cast<size_t>(d[0]);
  d[0] = count;
  Array out(a.dtype(), d);
  std::memcpy(out.data(), static_cast<const char*>(a.data()) + static_cast<size_t>(from) * row,
              static_cast<size_t>(count) * row);
  return out;
}

/// Least squares with an f32 weight and an f64 bias (two dtypes: two allreduces in the step):
/// mean over the batch and outputs of (x w + b - y)^2, x [B, 4], y [B, 3].
nn::BatchLossFn least_squares() {
  return [](const ad::Params& p, const std::vector<Value>& b) {
    Tensor pred = np::matmul(Tensor(b[0]), Tensor(p.at("w"))) + np::astype(p.at("b"), DType::f32);
    Tensor d = pred - Tensor(b[1]);
    return Value(np::mean(d * d));
  };
}

/// The global batch of step `s`: G rows of smooth, step-dependent values.
std::vector<Array> global_batch(int64_t G, int s) {
  std::vector<float> x(static_cast<size_t>(G * 4)), y(static_cast<size_t>(G * 3));
  for (size_t i = 0; i < x.size(); ++i) x[i] = std::sin(0.37f * float(i) + 0.9f * float(s));
  for (size_t i = 0; i < y.size(); ++i) y[i] = std::cos(0.23f * float(i) - 0.4f * float(s));
  return {Array::from<float>({G, 4}, x), Array::from<float>({G, 3}, y)};
}

ad::ParamArrays least_squares_init() {
  std::vector<float> w(12);
  for (size_t i = 0; i < w.size(); ++i) w[i] = 0.1f * float(i) - 0.5f;
  return {{"b", Array::from<double>({3}, {0.1, -0.2, 0.3})}, {"w", Array::from<float>({4, 3}, w)}};
}

std::vector<double> values(const Array& a) {
  if (a.dtype() == DType::f64) return a.to_vector<double>();
  std::vector<float> f = a.to_vector<float>();
  return {f.begin(), f.end()};
}

TEST(MpiTrainer, StepFollowsTheOneProcessTrainerOnTheGlobalBatch) {
  if (N() < 2) GTEST_SKIP() << "needs mpirun -np 2 or more";
  const int64_t G = 24, share = G / N();  // 24: divisible by 2, 3 and 4
  ad::ParamArrays init = least_squares_init();
  nn::Trainer one(least_squares(), init, nn::adam(0.05),
                  {{DType::f32, {G, 4}}, {DType::f32, {G, 3}}}, session());
  nn::Trainer many(least_squares(), init, nn::adam(0.05),
                   {{DType::f32, {share, 4}}, {DType::f32, {share, 3}}},
                   nn::DataParallel{.processes = N()}, session());
  EXPECT_EQ(many.processes(), N());
  // One allreduce per dtype: the f32 gradient with the loss, the f64 gradient.
  size_t calls = 0;
  for (size_t at = many.mlir().find("\"hhlo_mpi_allreduce\""); at != std::string::npos;
       at = many.mlir().find("\"hhlo_mpi_allreduce\"", at + 1))
    ++calls;
  EXPECT_EQ(calls, 2u) << many.mlir();
  for (int s = 0; s < 20; ++s) {
    std::vector<Array> batch = global_batch(G, s);
    const double want = one.step(batch);
    const double got =
        many.step({rows(batch[0], R() * share, share), rows(batch[1], R() * share, share)});
    EXPECT_NEAR(got, want, kTolerance) << "step " << s << ", rank " << R();
  }
  for (const std::string& name : init.names()) {
    std::vector<double> want = values(one.params().at(name)), got = values(many.params().at(name));
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i)
      EXPECT_NEAR(got[i], want[i], kTolerance) << name << "[" << i << "], rank " << R();
  }
  // The parameters are the same on every rank, bit for bit (every rank applies the same mean).
  Module m;
  Func& f = m.add_func("main", {TensorType{DType::f32, {4, 3}}});
  f.ret({mpi::allgather(f.arg(0), mpi::Comm::world(N()))});
  Array all = session().run(m, {many.params().at("w")})[0];
  std::vector<float> w = all.to_vector<float>();
  for (int q = 1; q < N(); ++q)
    EXPECT_EQ(std::memcmp(&w[static_cast<size_t>(q) * 12], &w[0], 12 * sizeof(float)), 0)
        << "rank " << q << "'s parameters differ from rank 0's";
}

TEST(MpiTrainer, AWorldOfAnotherSizeIsRefusedAtTheStep) {
  if (N() < 2) GTEST_SKIP() << "needs mpirun -np 2 or more";
  nn::Trainer t(least_squares(), least_squares_init(), nn::adam(0.05),
                {{DType::f32, {2, 4}}, {DType::f32, {2, 3}}},
                nn::DataParallel{.processes = N() + 1}, session());
  std::vector<Array> batch = global_batch(2, 0);
  try {
    t.step(batch);
    FAIL() << "a step written for " << N() + 1 << " processes ran on " << N();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("the job has " + std::to_string(N()) + " processes"),
              std::string::npos)
        << e.what();
  }
}

TEST(MpiTrainer, HybridDevicesAndProcessesFollowTheOneProcessTrainer) {
  // Each process's share split over 2 of its devices (SPMD), the average over processes taken
  // on every device: one allreduce in f64 (the bias is f64) inside an sdy.manual_computation.
  if (N() < 2) GTEST_SKIP() << "needs mpirun -np 2 or more";
  const int64_t G = 24, share = G / N();
  ad::ParamArrays init = least_squares_init();
  nn::Trainer one(least_squares(), init, nn::adam(0.05),
                  {{DType::f32, {G, 4}}, {DType::f32, {G, 3}}}, session());
  nn::Trainer hybrid(least_squares(), init, nn::adam(0.05),
                     {{DType::f32, {share, 4}}, {DType::f32, {share, 3}}},
                     nn::DataParallel{.devices = 2, .processes = N()}, session());
  EXPECT_EQ(hybrid.devices(), 2);
  EXPECT_EQ(hybrid.processes(), N());
  const std::string& text = hybrid.mlir();
  EXPECT_NE(text.find("sdy.manual_computation"), std::string::npos) << text;
  const size_t first = text.find("\"hhlo_mpi_allreduce\"");
  ASSERT_NE(first, std::string::npos) << text;
  EXPECT_EQ(text.find("\"hhlo_mpi_allreduce\"", first + 1), std::string::npos)
      << "one collective in the hybrid\n"
      << text;
  for (int s = 0; s < 12; ++s) {
    std::vector<Array> batch = global_batch(G, s);
    const double want = one.step(batch);
    const double got =
        hybrid.step({rows(batch[0], R() * share, share), rows(batch[1], R() * share, share)});
    EXPECT_NEAR(got, want, kTolerance) << "step " << s << ", rank " << R();
  }
  for (const std::string& name : init.names()) {
    std::vector<double> want = values(one.params().at(name)),
                        got = values(hybrid.params().at(name));
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i)
      EXPECT_NEAR(got[i], want[i], kTolerance) << name << "[" << i << "], rank " << R();
  }
}

TEST(MpiTrainer, BadCountsAreRefused) {
  for (nn::DataParallel dp :
       {nn::DataParallel{.processes = 0}, nn::DataParallel{.devices = 0, .processes = 2}})
    EXPECT_THROW(nn::Trainer(least_squares(), least_squares_init(), nn::adam(0.05),
                             {{DType::f32, {4, 4}}, {DType::f32, {4, 3}}}, dp, session()),
                 Error);
  // Each process's share (3 rows) cannot be split over 2 devices.
  EXPECT_THROW(nn::Trainer(least_squares(), least_squares_init(), nn::adam(0.05),
                           {{DType::f32, {3, 4}}, {DType::f32, {3, 3}}},
                           nn::DataParallel{.devices = 2, .processes = 2}, session()),
               ShardingError);
}

demo::Options demo_options(int processes, int rank) {
  demo::Options o;
  o.model = "mlp";
  o.epochs = 1;
  o.batch = 32;
  o.data = std::string(HHLO_THIRD_PARTY_DIR) + "/data/digits.csv.gz";
  o.progress = false;
  o.processes = processes;
  o.rank = rank;
  return o;
}

TEST(MpiDemo, LossTrajectoryEqualsTheOneProcessRun) {
  if (N() < 2) GTEST_SKIP() << "needs mpirun -np 2 or more";
  session();
  std::ostringstream one_out, out;
  demo::Result one = demo::run(demo_options(1, 0), one_out);
  demo::Result many = demo::run(demo_options(N(), R()), out);
  ASSERT_EQ(many.losses.size(), one.losses.size());
  ASSERT_FALSE(one.losses.empty());
  double worst = 0;
  for (size_t s = 0; s < one.losses.size(); ++s) {
    EXPECT_NEAR(many.losses[s], one.losses[s], kTolerance) << "step " << s << ", rank " << R();
    worst = std::max(worst, std::abs(many.losses[s] - one.losses[s]));
  }
  EXPECT_EQ(many.test_accuracy, one.test_accuracy);
  if (R() == 0) {
    std::printf("[ rank 0 ] %zu steps, largest loss difference to the one-process run %.3g\n",
                one.losses.size(), worst);
    EXPECT_NE(out.str().find("data-parallel over " + std::to_string(N()) + " MPI processes"),
              std::string::npos)
        << out.str();
    EXPECT_NE(out.str().find("final test accuracy"), std::string::npos) << out.str();
  } else {
    EXPECT_EQ(out.str(), "") << "only rank 0 prints";
  }
}

TEST(MpiDemo, ABatchTheProcessesDoNotDivideIsAShardingError) {
  if (N() < 2) GTEST_SKIP() << "needs mpirun -np 2 or more";
  demo::Options o = demo_options(N(), R());
  o.batch = 8 * N() + 1;
  std::ostringstream out;
  try {
    demo::run(o, out);
    FAIL() << "expected a ShardingError";
  } catch (const ShardingError& e) {
    EXPECT_EQ(e.dimension(), 0);
    EXPECT_NE(std::string(e.what()).find("do not divide --batch " + std::to_string(o.batch)),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(out.str(), "") << "refused before anything is printed";
  o = demo_options(N(), N());
  EXPECT_THROW(demo::run(o, out), Error);  // no such rank
  o = demo_options(N(), R());
  o.devices = 2;
  o.batch = 3 * N();  // a share of 3 rows per process, not divisible by 2 devices
  try {
    demo::run(o, out);
    FAIL() << "expected a ShardingError";
  } catch (const ShardingError& e) {
    EXPECT_NE(std::string(e.what()).find("does not divide the share"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace hhlo
